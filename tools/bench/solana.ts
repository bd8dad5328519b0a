import { randomBytes } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import type { Knex } from 'knex';
import { stackChain, type Stack } from '../stack/stack';
import { benchOpenDepositScan } from './open-deposits';
import type { Figure } from './report';

/**
 * A Solana watcher scan with 100,000 open USDC deposits against one: the scan reads the range's blocks (each
 * transaction's accounts and balances) and matches the owners they credit against the deposits in one query.
 */
export function benchSolanaScan(stack: Stack, knex: Knex, log: (line: string) => void): Promise<Figure[]> {
  const solana = stackChain(stack.info, 'solana');
  return benchOpenDepositScan(stack, knex, { label: 'Solana', chainId: solana.chainId, token: { symbol: 'USDC', ...solana.tokens.USDC }, newAddress: () => getBase58Decoder().decode(randomBytes(32)) }, log);
}
