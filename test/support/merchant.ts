import { randomBytes, randomUUID } from 'node:crypto';
import { Wallet } from 'ethers';
import type { Knex } from 'knex';
import { upsertDeveloperByEmail } from '../../db/queries/developers';
import { upsertMerchantApp } from '../../db/queries/merchants';
import type { ApiKeyScope } from '../../db/tables';
import { SecretBox } from '../../lib/secrets';
import { createApiKey, rotateWebhookSecret as rotateAppWebhookSecret } from '../../services/accounts';
import type { Stack } from '../../tools/stack/stack';

/**
 * A merchant of one test file's own: a new developer, one merchant app with its own Orders and Admin keys, its own
 * webhook settings and a payout wallet nobody else's payments touch. A test that pays, lists, counts or reconciles
 * through it sees its own payments only, whatever other files run on the same stack.
 */
export interface TestMerchant {
  appId: string;
  name: string;
  developerId: string;
  developerEmail: string;
  ordersKey: string;
  adminKey: string;
  payout: { chainId: number; tokenSymbol: string; address: string };
  webhookUrl: string | null;
  /** The app's raw webhook secret (sealed in the database), when it has a webhook URL. */
  webhookSecret: string | null;
}

export interface TestMerchantOptions {
  name?: string;
  /** USDC on Base to a fresh wallet by default. */
  payout?: { chainId?: number; tokenSymbol?: string; address?: string };
  /** None by default, as the demo merchant has none: its payments then schedule no webhook deliveries. */
  webhookUrl?: string | null;
  /** Off by default; the demo merchant takes keyless payments for its checkout page. */
  keylessPayments?: boolean;
}

/**
 * Registers a test merchant on the stack as the demo merchant is seeded (the developer and app rows, the webhook URL
 * as given), with its keys and webhook secret made by the account service the API uses.
 */
export async function newMerchant(stack: Stack, knex: Knex, options: TestMerchantOptions = {}): Promise<TestMerchant> {
  const appId = `merchant_test-${randomBytes(5).toString('hex')}`;
  const name = options.name ?? `Test merchant ${appId}`;
  const developerEmail = `${appId}@merchant.test`;
  const payout = { chainId: 8453, tokenSymbol: 'USDC', address: Wallet.createRandom().address, ...options.payout };
  const webhookUrl = options.webhookUrl ?? null;
  const developer = await upsertDeveloperByEmail({ knex, id: randomUUID(), email: developerEmail });
  await upsertMerchantApp({
    knex,
    app: {
      app_id: appId,
      developer_id: developer.id,
      name,
      payout_chain_id: payout.chainId,
      payout_token_symbol: payout.tokenSymbol,
      payout_address: payout.address,
      webhook_url: webhookUrl,
      keyless_payments: options.keylessPayments ?? false,
    },
  });
  const webhookSecret = webhookUrl ? await rotateWebhookSecret(stack, knex, appId) : null;
  const key = async (scope: ApiKeyScope) =>
    (await createApiKey({ knex, apiKeyPrefix: stack.config.apiKeyPrefix, accountLimits: stack.config.accountLimits }, appId, { scope, name: `test ${scope}` })).key;
  return { appId, name, developerId: developer.id, developerEmail, ordersKey: await key('Orders'), adminKey: await key('Admin'), payout, webhookUrl, webhookSecret };
}

/** Replaces the app's webhook secret, as a rotation from the dashboard does; returns the new raw secret. */
export async function rotateWebhookSecret(stack: Stack, knex: Knex, appId: string): Promise<string> {
  return (await rotateAppWebhookSecret({ knex, secretBox: new SecretBox(stack.env.PAYRAIL_SECRETS_KEY!) }, appId)).webhookSecret;
}
