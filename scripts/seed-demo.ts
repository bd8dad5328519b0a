import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { findActiveApiKeyByHash, insertApiKey, upsertMerchantApp } from '../db/queries/merchants';
import type { ApiKeyScope } from '../db/tables';
import { generateApiKey, hashApiKey } from '../lib/api-keys';

export const DEMO_APP_ID = 'merchant_demo';

export interface DemoMerchant {
  appId: string;
  ordersKey: string;
  adminKey: string;
  payout: { chainId: number; tokenSymbol: string; address: string };
}

/**
 * Seeds the demo merchant app and makes sure its two keys are live. Keys handed in (from an earlier run's
 * `var/`) are kept; missing ones are generated, since only their hashes are stored.
 */
export async function seedDemoMerchant(options: {
  knex: Knex;
  apiKeyPrefix: string;
  payout: DemoMerchant['payout'];
  keys?: { ordersKey: string; adminKey: string };
}): Promise<DemoMerchant> {
  const { knex, apiKeyPrefix, payout } = options;
  await upsertMerchantApp({
    knex,
    app: {
      app_id: DEMO_APP_ID,
      name: 'Demo Merchant',
      payout_chain_id: payout.chainId,
      payout_token_symbol: payout.tokenSymbol,
      payout_address: payout.address,
      webhook_url: null,
    },
  });
  const ensureKey = async (scope: ApiKeyScope, existing?: string): Promise<string> => {
    if (existing && (await findActiveApiKeyByHash({ knex, keyHash: hashApiKey(existing) }))) return existing;
    const { key, keyHash, keyHint } = generateApiKey(apiKeyPrefix);
    await insertApiKey({ knex, key: { id: randomUUID(), app_id: DEMO_APP_ID, scope, key_hash: keyHash, key_hint: keyHint, name: `demo ${scope}` } });
    return key;
  };
  return {
    appId: DEMO_APP_ID,
    ordersKey: await ensureKey('Orders', options.keys?.ordersKey),
    adminKey: await ensureKey('Admin', options.keys?.adminKey),
    payout,
  };
}
