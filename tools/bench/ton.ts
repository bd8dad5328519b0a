import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { NATIVE_TOKEN_ADDRESS } from '../../domain/payment';
import { stackChain, type Stack } from '../stack/stack';
import { benchOpenDepositScan, OPEN_DEPOSITS } from './open-deposits';
import type { Figure } from './report';

/**
 * One TON watcher scan over 10,000 open TON deposits: the deposit wallets are read in toncenter v3 `accountStates`
 * batches of 1,000, and only accounts whose last transaction changed are read further.
 */
export function benchTonScan(stack: Stack, knex: Knex, log: (line: string) => void): Promise<Figure[]> {
  const ton = stackChain(stack.info, 'ton');
  const addresses = Array.from({ length: OPEN_DEPOSITS }, () => `0:${randomBytes(32).toString('hex')}`);
  return benchOpenDepositScan(stack, knex, { label: 'TON', chainId: ton.chainId, token: { symbol: 'TON', address: NATIVE_TOKEN_ADDRESS, decimals: ton.nativeCurrency.decimals }, addresses }, log);
}
