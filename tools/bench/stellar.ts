import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { StrKey } from '@stellar/stellar-sdk';
import { stackChain, type Stack } from '../stack/stack';
import { benchOpenDepositScan, OPEN_DEPOSITS } from './open-deposits';
import type { Figure } from './report';

/**
 * One Stellar watcher scan over 10,000 open USDC deposits (muxed addresses of the one receiving account, one memo
 * each): the scan pages the receiving account's payments, so its cost grows with payments received, not with open payments.
 */
export function benchStellarScan(stack: Stack, knex: Knex, log: (line: string) => void): Promise<Figure[]> {
  const stellar = stackChain(stack.info, 'stellar');
  const account = StrKey.decodeEd25519PublicKey(stellar.receivingAccount);
  const addresses = Array.from({ length: OPEN_DEPOSITS }, () => StrKey.encodeMed25519PublicKey(Buffer.concat([account, randomBytes(8)])));
  return benchOpenDepositScan(stack, knex, { label: 'Stellar', chainId: stellar.chainId, token: { symbol: 'USDC', ...stellar.tokens.USDC }, addresses }, log);
}
