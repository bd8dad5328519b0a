import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { upsertDeveloperByEmail } from '../../db/queries/developers';
import { findActiveApiKeyByHash, insertApiKey, upsertMerchantApp } from '../../db/queries/merchants';
import type { ApiKeyScope } from '../../db/tables';
import { generateApiKey, hashApiKey } from '../../lib/api-keys';

export const DEMO_APP_ID = 'merchant_demo';
/** Log in to the dashboard as this address (the code lands in the mail sink) to manage the demo app. */
export const DEMO_DEVELOPER_EMAIL = 'demo@payrail.local';

export interface DemoMerchant {
  appId: string;
  developerEmail: string;
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
  const developer = await upsertDeveloperByEmail({ knex, id: randomUUID(), email: DEMO_DEVELOPER_EMAIL });
  await upsertMerchantApp({
    knex,
    app: {
      app_id: DEMO_APP_ID,
      developer_id: developer.id,
      name: 'Demo Merchant',
      payout_chain_id: payout.chainId,
      payout_token_symbol: payout.tokenSymbol,
      payout_address: payout.address,
      webhook_url: null,
      // The demo checkout creates payments from the browser, without a key.
      keyless_payments: true,
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
    developerEmail: DEMO_DEVELOPER_EMAIL,
    ordersKey: await ensureKey('Orders', options.keys?.ordersKey),
    adminKey: await ensureKey('Admin', options.keys?.adminKey),
    payout,
  };
}
