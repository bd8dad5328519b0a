import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { StrKey } from '@stellar/stellar-sdk';
import { stackChain, type Stack } from '../stack/stack';
import { benchOpenDepositScan } from './open-deposits';
import type { Figure } from './report';

/**
 * A Stellar watcher scan with 100,000 open USDC deposits (muxed addresses of the one receiving account, one memo
 * each) against one: the scan pages the receiving account's payments of the ledger range and matches their memos'
 * deposits in one query.
 */
export function benchStellarScan(stack: Stack, knex: Knex, log: (line: string) => void): Promise<Figure[]> {
  const stellar = stackChain(stack.info, 'stellar');
  const account = StrKey.decodeEd25519PublicKey(stellar.receivingAccount);
  const newAddress = () => StrKey.encodeMed25519PublicKey(Buffer.concat([account, randomBytes(8)]));
  return benchOpenDepositScan(stack, knex, { label: 'Stellar', chainId: stellar.chainId, token: { symbol: 'USDC', ...stellar.tokens.USDC }, newAddress }, log);
}
