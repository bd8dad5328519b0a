import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { TronWeb } from 'tronweb';
import { stackChain, type Stack } from '../stack/stack';
import { benchOpenDepositScan, OPEN_DEPOSITS } from './open-deposits';
import type { Figure } from './report';

/**
 * One Tron watcher scan over 10,000 open USDT deposits: the scan reads each block of its range once and matches
 * TRC-20 transfers against the watched set, so its cost grows with the range's transactions, not with open payments.
 */
export function benchTronScan(stack: Stack, knex: Knex, log: (line: string) => void): Promise<Figure[]> {
  const tron = stackChain(stack.info, 'tron');
  const addresses = Array.from({ length: OPEN_DEPOSITS }, () => TronWeb.address.fromHex(`41${randomBytes(20).toString('hex')}`));
  return benchOpenDepositScan(stack, knex, { label: 'Tron', chainId: tron.chainId, token: { symbol: 'USDT', ...tron.tokens.USDT }, addresses }, log);
}
