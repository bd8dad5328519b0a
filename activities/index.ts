import { createChainScanActivities } from './chain-scan';
import { createChainTxActivities } from './chain-tx';
import type { ActivityDeps } from './deps';
import { createReadModelActivities } from './read-models';
import { createOrderActivities } from './orders';
import { createReconcileActivities } from './reconcile';
import { createWebhookActivities } from './webhooks';

export type { ActivityDeps } from './deps';

function createPaymentActivities(deps: ActivityDeps) {
  return {
    ...createReadModelActivities(deps),
    ...createChainScanActivities(deps),
    ...createChainTxActivities(deps),
    ...createReconcileActivities(deps),
    ...createWebhookActivities(deps),
  };
}

export function createActivities(deps: ActivityDeps) {
  return { ...createPaymentActivities(deps), ...createOrderActivities(deps) };
}

/** The activities of the payment spine (payments, chain watchers, reconciler). */
export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
export type { OrderActivities } from './orders';
