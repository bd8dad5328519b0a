import type { Knex } from 'knex';
import type { ApiKeyRow, ApiKeyScope, MerchantAppRow } from '../tables';

export async function findMerchantApp(options: { knex: Knex; appId: string }): Promise<MerchantAppRow | undefined> {
  return options.knex<MerchantAppRow>('merchant_apps').where({ app_id: options.appId }).first();
}

export type NewMerchantApp = Pick<MerchantAppRow, 'app_id' | 'name' | 'payout_chain_id' | 'payout_token_symbol' | 'payout_address'> &
  Partial<Pick<MerchantAppRow, 'developer_id' | 'webhook_url' | 'keyless_payments'>>;

export async function upsertMerchantApp(options: { knex: Knex; app: NewMerchantApp }): Promise<void> {
  await options.knex<MerchantAppRow>('merchant_apps').insert(options.app).onConflict('app_id').merge();
}

/**
 * Inserts a developer's new app with its first webhook secret (rotated now). Returns nothing when the `app_id`
 * is taken, so the caller can pick another.
 */
export async function insertDeveloperApp(options: {
  knex: Knex;
  app: NewMerchantApp & Pick<MerchantAppRow, 'developer_id' | 'webhook_secret_ciphertext' | 'webhook_secret_fingerprint'>;
}): Promise<MerchantAppRow | undefined> {
  const { knex, app } = options;
  const [row] = await knex<MerchantAppRow>('merchant_apps')
    .insert({ ...app, webhook_secret_rotated_at: knex.fn.now() as unknown as Date })
    .onConflict('app_id')
    .ignore()
    .returning('*');
  return row;
}

/**
 * Runs `body` while holding the developer's row lock, after counting their apps: creations for one developer are
 * serialised, so a cap on apps holds under concurrent requests.
 */
export async function withDeveloperAppCount<T>(options: { knex: Knex; developerId: string }, body: (trx: Knex.Transaction, apps: number) => Promise<T>): Promise<T> {
  return options.knex.transaction(async (trx) => {
    await trx('developers').where({ id: options.developerId }).forUpdate().first('id');
    const [row] = await trx<MerchantAppRow>('merchant_apps').where({ developer_id: options.developerId }).count<Array<{ count: string }>>({ count: '*' });
    return body(trx, Number(row?.count ?? 0));
  });
}

/** Like withDeveloperAppCount, for the live (unrevoked) API keys of an app, under the app's row lock. */
export async function withLiveApiKeyCount<T>(options: { knex: Knex; appId: string }, body: (trx: Knex.Transaction, keys: number) => Promise<T>): Promise<T> {
  return options.knex.transaction(async (trx) => {
    await trx('merchant_apps').where({ app_id: options.appId }).forUpdate().first('app_id');
    const [row] = await trx<ApiKeyRow>('api_keys').where({ app_id: options.appId }).whereNull('revoked_at').count<Array<{ count: string }>>({ count: '*' });
    return body(trx, Number(row?.count ?? 0));
  });
}

export async function listDeveloperApps(options: { knex: Knex; developerId: string }): Promise<MerchantAppRow[]> {
  return options.knex<MerchantAppRow>('merchant_apps').where({ developer_id: options.developerId }).orderBy(['created_at', 'app_id']);
}

/** The app if this developer owns it; other developers' apps are indistinguishable from missing ones. */
export async function findDeveloperApp(options: { knex: Knex; developerId: string; appId: string }): Promise<MerchantAppRow | undefined> {
  return options.knex<MerchantAppRow>('merchant_apps').where({ app_id: options.appId, developer_id: options.developerId }).first();
}

export async function updateWebhookUrl(options: { knex: Knex; appId: string; webhookUrl: string }): Promise<MerchantAppRow> {
  const [row] = await options
    .knex<MerchantAppRow>('merchant_apps')
    .where({ app_id: options.appId })
    .update({ webhook_url: options.webhookUrl })
    .returning('*');
  return row!;
}

/** Changes the app's settings (those the merchant may change themselves). */
export async function updateAppSettings(options: { knex: Knex; appId: string; settings: Partial<Pick<MerchantAppRow, 'keyless_payments' | 'underpayment_tolerance_bps'>> }): Promise<MerchantAppRow> {
  const [row] = await options.knex<MerchantAppRow>('merchant_apps').where({ app_id: options.appId }).update(options.settings).returning('*');
  return row!;
}

/** Replaces the webhook secret; the old one is gone at once (spec 6.1: no grace period). */
export async function replaceWebhookSecret(options: {
  knex: Knex;
  appId: string;
  secret: Pick<MerchantAppRow, 'webhook_secret_ciphertext' | 'webhook_secret_fingerprint'>;
}): Promise<MerchantAppRow> {
  const { knex, appId, secret } = options;
  const [row] = await knex<MerchantAppRow>('merchant_apps')
    .where({ app_id: appId })
    .update({ ...secret, webhook_secret_rotated_at: knex.fn.now() as unknown as Date })
    .returning('*');
  return row!;
}

/** A live key as a request authenticates with it, with its app: what every keyed request reads first. */
export interface ActiveApiKey extends Pick<ApiKeyRow, 'id' | 'app_id' | 'scope' | 'last_used_at'> {
  app: MerchantAppRow;
}

/** The live (unrevoked) key with this hash and its app, in one round trip. */
export async function findActiveApiKeyByHash(options: { knex: Knex; keyHash: string }): Promise<ActiveApiKey | undefined> {
  const row = await options
    .knex('api_keys')
    .join('merchant_apps', 'merchant_apps.app_id', 'api_keys.app_id')
    .where('api_keys.key_hash', options.keyHash)
    .whereNull('api_keys.revoked_at')
    .first<(MerchantAppRow & { key_id: string; key_scope: ApiKeyScope; key_last_used_at: Date | null }) | undefined>(
      'merchant_apps.*',
      'api_keys.id as key_id',
      'api_keys.scope as key_scope',
      'api_keys.last_used_at as key_last_used_at',
    );
  if (!row) return undefined;
  const { key_id, key_scope, key_last_used_at, ...app } = row;
  return { id: key_id, app_id: app.app_id, scope: key_scope, last_used_at: key_last_used_at, app };
}

export async function insertApiKey(options: { knex: Knex; key: Omit<ApiKeyRow, 'created_at' | 'revoked_at' | 'last_used_at'> }): Promise<ApiKeyRow> {
  const [row] = await options.knex<ApiKeyRow>('api_keys').insert(options.key).returning('*');
  return row!;
}

export async function listApiKeys(options: { knex: Knex; appId: string }): Promise<ApiKeyRow[]> {
  return options.knex<ApiKeyRow>('api_keys').where({ app_id: options.appId }).orderBy(['created_at', 'id']);
}

/** Revokes the app's key (keeping the first revocation time); nothing when the app has no such key. */
export async function revokeApiKey(options: { knex: Knex; appId: string; keyId: string }): Promise<ApiKeyRow | undefined> {
  const { knex, appId, keyId } = options;
  const [row] = await knex<ApiKeyRow>('api_keys')
    .where({ id: keyId, app_id: appId })
    .update({ revoked_at: knex.raw('coalesce(revoked_at, now())') as unknown as Date })
    .returning('*');
  return row;
}

/** The apps a developer owns (the dashboard's scope). */
export async function listDeveloperAppIds(options: { knex: Knex; developerId: string }): Promise<string[]> {
  const rows = await options.knex<MerchantAppRow>('merchant_apps').select('app_id').where({ developer_id: options.developerId }).orderBy('app_id');
  return rows.map((row) => row.app_id);
}

/** How precisely `last_used_at` records a key's use: at most one write per key per minute. */
const KEY_USE_RESOLUTION_MS = 60_000;

/** Whether a key last used at `lastUsedAt` (as read with it) is due a `touchApiKey`: a busy key is not read and then written on every request. */
export function keyUseIsStale(lastUsedAt: Date | null, now = Date.now()): boolean {
  return lastUsedAt === null || now - lastUsedAt.getTime() >= KEY_USE_RESOLUTION_MS;
}

/** Notes that the key was just used; written at most once a minute per key, so busy keys cost no write per request. */
export async function touchApiKey(options: { knex: Knex; keyId: string }): Promise<void> {
  const { knex, keyId } = options;
  await knex<ApiKeyRow>('api_keys')
    .where({ id: keyId })
    .where((q) => void q.whereNull('last_used_at').orWhere('last_used_at', '<', knex.raw(`now() - make_interval(secs => ?)`, [KEY_USE_RESOLUTION_MS / 1000])))
    .update({ last_used_at: knex.fn.now() as unknown as Date });
}

/** Sets what the app may owe for its refunds (the operator's decision); undefined when the app does not exist. */
export async function updateRefundCredit(options: { knex: Knex; appId: string; refundCredit: string }): Promise<MerchantAppRow | undefined> {
  const [row] = await options.knex<MerchantAppRow>('merchant_apps').where({ app_id: options.appId }).update({ refund_credit: options.refundCredit }).returning('*');
  return row;
}
