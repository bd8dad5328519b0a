import { randomBytes } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import type { Knex } from 'knex';
import { stackChain, type Stack } from '../stack/stack';
import { benchOpenDepositScan, OPEN_DEPOSITS } from './open-deposits';
import type { Figure } from './report';

/**
 * One Solana watcher scan over 10,000 open USDC deposits: their token accounts are read in `getMultipleAccounts`
 * batches of 100, so the scan costs 100 reads, not one per open payment.
 */
export function benchSolanaScan(stack: Stack, knex: Knex, log: (line: string) => void): Promise<Figure[]> {
  const solana = stackChain(stack.info, 'solana');
  const addresses = Array.from({ length: OPEN_DEPOSITS }, () => getBase58Decoder().decode(randomBytes(32)));
  return benchOpenDepositScan(stack, knex, { label: 'Solana', chainId: solana.chainId, token: { symbol: 'USDC', ...solana.tokens.USDC }, addresses }, log);
}
