import type { Knex } from 'knex';
import type { ApiKeyRow, MerchantAppRow } from '../tables';

export async function findMerchantApp(options: { knex: Knex; appId: string }): Promise<MerchantAppRow | undefined> {
  return options.knex<MerchantAppRow>('merchant_apps').where({ app_id: options.appId }).first();
}

export type NewMerchantApp = Pick<MerchantAppRow, 'app_id' | 'name' | 'payout_chain_id' | 'payout_token_symbol' | 'payout_address'> &
  Partial<Pick<MerchantAppRow, 'developer_id' | 'webhook_url'>>;

export async function upsertMerchantApp(options: { knex: Knex; app: NewMerchantApp }): Promise<void> {
  await options.knex<MerchantAppRow>('merchant_apps').insert(options.app).onConflict('app_id').merge();
}

/** The live (unrevoked) key with this hash, joined to nothing: callers load the app separately when they need it. */
export async function findActiveApiKeyByHash(options: { knex: Knex; keyHash: string }): Promise<ApiKeyRow | undefined> {
  return options.knex<ApiKeyRow>('api_keys').where({ key_hash: options.keyHash }).whereNull('revoked_at').first();
}

export async function insertApiKey(options: { knex: Knex; key: Omit<ApiKeyRow, 'created_at' | 'revoked_at'> }): Promise<void> {
  await options.knex<ApiKeyRow>('api_keys').insert(options.key);
}

/** The apps a developer owns (the dashboard's scope). */
export async function listDeveloperAppIds(options: { knex: Knex; developerId: string }): Promise<string[]> {
  const rows = await options.knex<MerchantAppRow>('merchant_apps').select('app_id').where({ developer_id: options.developerId }).orderBy('app_id');
  return rows.map((row) => row.app_id);
}
