import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { TronWeb } from 'tronweb';
import { stackChain, type Stack } from '../stack/stack';
import { benchOpenDepositScan } from './open-deposits';
import type { Figure } from './report';

/**
 * A Tron watcher scan with 100,000 open USDT deposits against one: the scan reads each block of its range and its
 * transaction infos once and matches the recipients of their transfers against the deposits in one query.
 */
export function benchTronScan(stack: Stack, knex: Knex, log: (line: string) => void): Promise<Figure[]> {
  const tron = stackChain(stack.info, 'tron');
  return benchOpenDepositScan(stack, knex, { label: 'Tron', chainId: tron.chainId, token: { symbol: 'USDT', ...tron.tokens.USDT }, newAddress: () => TronWeb.address.fromHex(`41${randomBytes(20).toString('hex')}`) }, log);
}
