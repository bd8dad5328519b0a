import { createChainScanActivities } from './chain-scan';
import { createChainTxActivities } from './chain-tx';
import type { ActivityDeps } from './deps';
import { createReadModelActivities } from './read-models';
import { createReconcileActivities } from './reconcile';
import { createWebhookActivities } from './webhooks';

export type { ActivityDeps } from './deps';

export function createActivities(deps: ActivityDeps) {
  return {
    ...createReadModelActivities(deps),
    ...createChainScanActivities(deps),
    ...createChainTxActivities(deps),
    ...createReconcileActivities(deps),
    ...createWebhookActivities(deps),
  };
}

export type PaymentActivities = ReturnType<typeof createActivities>;
