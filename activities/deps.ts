import type { Client } from '@temporalio/client';
import type { Knex } from 'knex';
import type { EvmChains } from '../chains/evm';
import type { Logger } from '../lib/logger';
import type { MailSender } from '../lib/order-mail';

export interface ActivityDeps {
  knex: Knex;
  chains: EvmChains;
  /** Hot wallet that owns the deposit factory and bridge and holds payout liquidity on every chain. */
  treasuryPrivateKey: string;
  temporal: { client: Client; taskQueue: string };
  latePayinWindowMs: number;
  log: Logger;
  /** Fault injection for crash tests: called right after a transaction was broadcast, before the activity returns. */
  afterBroadcast?: (purpose: string) => void;
  /** Legacy orders (activities/orders.ts): pricing their payments, callbacks and receipts. */
  orders?: {
    feeBps: number;
    publicBaseUrl: string;
    /** Callbacks may target loopback and private addresses (dev and tests only). */
    allowPrivateCallbackTargets: boolean;
    mailer: MailSender;
  };
}
