import { createChainWaitActivities, createChainWriteActivities } from './chain';
import type { ActivityDeps } from './deps';
import { createDepositAddressActivities } from './deposit-addresses';
import { createLedgerActivities } from './ledger';
import { createOrderActivities } from './orders';
import { createPaymentRecordActivities } from './payments';
import { createRebalanceActivities } from './rebalances';
import { createRefundActivities } from './refunds';
import { createWatcherActivities } from './watcher';
import { createWebhookActivities } from './webhooks';

export type { ActivityDeps } from './deps';

function createPaymentActivities(deps: ActivityDeps) {
  return { ...createPaymentRecordActivities(deps), ...createChainWriteActivities(deps), ...createWebhookActivities(deps), ...createRefundActivities(deps) };
}

/** Every activity: the workflow task queue's worker serves them all (and runs the chain waits as local activities). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createPaymentActivities(deps),
    ...createChainWaitActivities(deps),
    ...createWatcherActivities(deps),
    ...createOrderActivities(deps),
    ...createDepositAddressActivities(deps),
    ...createLedgerActivities(deps),
    ...createRebalanceActivities(deps),
  };
}

export { createChainWaitActivities };

/** Payments, late payins, merchant refunds and the reconciler: read models, terms, chain writes, webhooks. */
export type PaymentActivities = ReturnType<typeof createPaymentActivities> & ChainWaitActivities;
/** The long, heartbeating waits that run on the chain-waits task queue. */
export type ChainWaitActivities = ReturnType<typeof createChainWaitActivities>;
export type WatcherActivities = ReturnType<typeof createWatcherActivities>;
export type { OrderActivities } from './orders';
export type { DepositAddressActivities } from './deposit-addresses';
export type { LedgerActivities } from './ledger';
export type { RebalanceActivities } from './rebalances';
export type AllActivities = ReturnType<typeof createActivities>;
