import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { ChainAdapters } from '../chains/adapters';
import { DomainError, invalidField } from '../domain/errors';
import { claimLoginCodeAttempt, consumeLoginCodes, insertLoginCode, upsertDeveloperByEmail } from '../db/queries/developers';
import { insertApiKey, insertDeveloperApp, replaceWebhookSecret, withDeveloperAppCount, withLiveApiKeyCount } from '../db/queries/merchants';
import { insertDashboardSession } from '../db/queries/sessions';
import type { ApiKeyRow, ApiKeyScope, DeveloperRow, MerchantAppRow } from '../db/tables';
import { generateApiKey } from '../lib/api-keys';
import { issueDeveloperToken } from '../lib/developer-tokens';
import type { AccountLimits } from '../lib/config';
import type { Logger } from '../lib/logger';
import {
  LOGIN_CODE_MAX_ATTEMPTS,
  LOGIN_CODE_TTL_SECONDS,
  generateLoginCode,
  hashLoginCode,
  loginCodeMatches,
} from '../lib/login-codes';
import { RecipientRefused, type Mailer } from '../lib/mail';
import { generateWebhookSecret, webhookSecretFingerprint, type SecretBox } from '../lib/secrets';
import { UrlRefused, vetUrl } from '../lib/url-policy';
import type { RateLimiter } from './rate-limits';

export interface AccountServiceDeps {
  knex: Knex;
  chains: ChainAdapters;
  jwtSecret: string;
  secretBox: SecretBox;
  mailer: Mailer;
  rateLimiter: RateLimiter;
  apiKeyPrefix: string;
  webhookAllowPrivateNetworks: boolean;
  accountLimits: AccountLimits;
  log: Logger;
}

const atLimit = (count: number, limit: number) => limit > 0 && count >= limit;

/**
 * Mails a fresh login code to `email`, whether or not a developer has it yet (the answer never tells), and returns
 * the login's id: the code is traded only together with it, so only the one who asked can use or spend it. Codes
 * mailed before stay good until used or expired, so nobody can void the code a developer is about to type by asking
 * for another one.
 */
export async function sendLoginCode(deps: AccountServiceDeps, email: string, clientIp: string): Promise<{ loginId: string }> {
  await deps.rateLimiter.consume(['loginCodesPerIp', clientIp], ['loginCodesPerEmail', email], ['loginCodesGlobal', 'all']);
  const id = randomUUID();
  const code = generateLoginCode();
  await insertLoginCode({ knex: deps.knex, code: { id, email, code_hash: hashLoginCode(deps.jwtSecret, id, code) }, ttlSeconds: LOGIN_CODE_TTL_SECONDS });
  try {
    await deps.mailer.send({
      to: email,
      subject: 'Your Payrail login code',
      text: `Your Payrail login code is ${code}\n\nIt works once, in the window where you asked for it, and expires in ${LOGIN_CODE_TTL_SECONDS / 60} minutes. If you did not ask for it, ignore this e-mail.\n`,
    });
  } catch (err) {
    // Not a question of who has an account: the server refuses the address itself, for anyone who types it.
    if (err instanceof RecipientRefused) throw invalidField('email', 'the mail server refuses this address; check it');
    deps.log.error({ err }, 'could not send a login code');
    throw new DomainError('mail_unavailable', 'the login code could not be sent; try again later');
  }
  return { loginId: id };
}

/**
 * Spends the mailed code of the login; the developer is created on their first verified login. A right code for a
 * live code always logs in, whatever others guessed: each login's code takes `LOGIN_CODE_MAX_ATTEMPTS` tries and
 * only its asker knows its id. Wrong guesses count against the client like any failed credential (over the limit
 * they are answered 429), and each costs one of the few tries of a code the guesser had to have mailed to the
 * address, within the per-address and per-client mail limits.
 */
async function verifyLoginCode(deps: AccountServiceDeps, login: { email: string; code: string; loginId: string }, clientIp: string): Promise<DeveloperRow> {
  const { knex, jwtSecret } = deps;
  return deps.rateLimiter.authenticate(
    clientIp,
    async () => {
      const live = await claimLoginCodeAttempt({ knex, id: login.loginId, email: login.email, maxAttempts: LOGIN_CODE_MAX_ATTEMPTS });
      if (!live || !loginCodeMatches(jwtSecret, live.id, login.code, live.code_hash)) return undefined;
      if (!(await consumeLoginCodes({ knex, email: login.email, id: live.id }))) return undefined;
      return upsertDeveloperByEmail({ knex, id: randomUUID(), email: login.email });
    },
    () => new DomainError('invalid_code', 'the code is wrong, expired, already used or out of attempts; request a new one'),
  );
}

/** Trades a mailed code for a dashboard token (API clients: `Authorization: Bearer`). */
export async function exchangeLoginCode(
  deps: AccountServiceDeps,
  login: { email: string; code: string; loginId: string },
  clientIp: string,
): Promise<{ token: string; expiresAt: string; developerId: string }> {
  const developer = await verifyLoginCode(deps, login, clientIp);
  const { token, expiresAt } = await issueDeveloperToken(deps.jwtSecret, developer.id);
  return { token, expiresAt: expiresAt.toISOString(), developerId: developer.id };
}

/** A dashboard session lasts this long after login; logging out ends it earlier. */
export const DASHBOARD_SESSION_TTL_SECONDS = 12 * 3600;

/** Only the hash of a session's cookie value is stored: a database read never yields a usable cookie. */
export const sessionIdHash = (sessionId: string) => createHash('sha256').update(sessionId).digest('hex');

/** Trades a mailed code for a browser session: the raw id goes into the cookie, its hash into the database. */
export async function startDashboardSession(
  deps: AccountServiceDeps,
  login: { email: string; code: string; loginId: string },
  clientIp: string,
): Promise<{ sessionId: string; expiresAt: Date; developerId: string; email: string }> {
  const developer = await verifyLoginCode(deps, login, clientIp);
  const sessionId = randomBytes(32).toString('base64url');
  const expiresAt = await insertDashboardSession({ knex: deps.knex, idHash: sessionIdHash(sessionId), developerId: developer.id, ttlSeconds: DASHBOARD_SESSION_TTL_SECONDS });
  return { sessionId, expiresAt, developerId: developer.id, email: developer.email };
}

/** Webhooks go to `https://` only, and never to private networks unless the operator allows them (dev, tests). */
export const webhookUrlPolicy = (deps: Pick<AccountServiceDeps, 'webhookAllowPrivateNetworks'>) =>
  ({ schemes: ['https:'], allowPrivateNetworks: deps.webhookAllowPrivateNetworks, label: 'webhookUrl' }) as const;

/** The URL as it will be called, or a DomainError naming `webhookUrl` when the webhook policy refuses it. */
export async function checkWebhookUrl(deps: Pick<AccountServiceDeps, 'webhookAllowPrivateNetworks'>, webhookUrl: string): Promise<string> {
  try {
    const { url } = await vetUrl(webhookUrl, webhookUrlPolicy(deps));
    return url.href;
  } catch (err) {
    if (err instanceof UrlRefused) throw invalidField('webhookUrl', err.message);
    throw err;
  }
}

/** A new webhook secret: the raw value for the developer's eyes once, and what is stored (sealed, fingerprint). */
function newWebhookSecret(secretBox: SecretBox) {
  const webhookSecret = generateWebhookSecret();
  return {
    webhookSecret,
    stored: { webhook_secret_ciphertext: secretBox.seal(webhookSecret), webhook_secret_fingerprint: webhookSecretFingerprint(webhookSecret) },
  };
}

const APP_ID_ATTEMPTS = 8;

/** `merchant_<slug of the name>` first, then that slug with random suffixes; `merchant_<random>` without a name. */
function candidateAppIds(name: string | undefined): string[] {
  const slug = (name ?? '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 40)
    .replace(/^-+|-+$/g, '');
  const suffixed = () => `merchant_${slug ? `${slug}-` : ''}${randomBytes(3).toString('hex')}`;
  return Array.from({ length: APP_ID_ATTEMPTS }, (_, i) => (slug && i === 0 ? `merchant_${slug}` : suffixed()));
}

/** A new merchant app: its name, payout wallet and webhook URL (the API validates the shapes). */
export interface RegisterCommand {
  name?: string;
  webhookUrl: string;
  keylessPayments: boolean;
  payout: { chainId: string; tokenSymbol: string; address: string };
}

/** Creates the developer's merchant app with its payout wallet, webhook URL and first webhook secret. */
export async function registerApp(
  deps: AccountServiceDeps,
  developerId: string,
  body: RegisterCommand,
): Promise<{ app: MerchantAppRow; webhookSecret: string }> {
  const chainId = Number(body.payout.chainId);
  const chain = deps.chains.registry.findChain(chainId);
  if (!chain) throw invalidField('payout.chainId', `chain ${body.payout.chainId} is not supported`);
  const token = deps.chains.registry.findPayableToken(chainId, body.payout.tokenSymbol.toUpperCase());
  if (!token) throw invalidField('payout.tokenSymbol', `${body.payout.tokenSymbol} is not supported on chain ${chainId}`);
  const { addresses } = deps.chains.family(chainId);
  const payoutAddress = addresses.normalize(body.payout.address);
  if (!payoutAddress) throw invalidField('payout.address', `must be a ${chain.name} address (${addresses.form})`);
  const webhookUrl = await checkWebhookUrl(deps, body.webhookUrl);
  const { webhookSecret, stored } = newWebhookSecret(deps.secretBox);

  const limit = deps.accountLimits.appsPerDeveloper;
  return withDeveloperAppCount({ knex: deps.knex, developerId }, async (trx, apps) => {
    if (atLimit(apps, limit)) throw new DomainError('limit_reached', `a developer may have at most ${limit} merchant apps`);
    for (const appId of candidateAppIds(body.name)) {
      const app = await insertDeveloperApp({
        knex: trx,
        app: {
          app_id: appId,
          name: body.name ?? appId,
          developer_id: developerId,
          payout_chain_id: chainId,
          payout_token_symbol: token.symbol,
          payout_address: payoutAddress,
          webhook_url: webhookUrl,
          keyless_payments: body.keylessPayments,
          ...stored,
        },
      });
      if (app) return { app, webhookSecret };
    }
    throw new Error(`no free app id after ${APP_ID_ATTEMPTS} attempts`);
  });
}

export async function rotateWebhookSecret(
  deps: Pick<AccountServiceDeps, 'knex' | 'secretBox'>,
  appId: string,
): Promise<{ app: MerchantAppRow; webhookSecret: string }> {
  const { webhookSecret, stored } = newWebhookSecret(deps.secretBox);
  return { app: await replaceWebhookSecret({ knex: deps.knex, appId, secret: stored }), webhookSecret };
}

/** A new key for the app; the raw key is returned once and only its hash is kept. */
export async function createApiKey(
  deps: Pick<AccountServiceDeps, 'knex' | 'apiKeyPrefix' | 'accountLimits'>,
  appId: string,
  options: { name?: string; scope: ApiKeyScope },
): Promise<{ row: ApiKeyRow; key: string }> {
  const limit = deps.accountLimits.apiKeysPerApp;
  return withLiveApiKeyCount({ knex: deps.knex, appId }, async (trx, keys) => {
    if (atLimit(keys, limit)) throw new DomainError('limit_reached', `an app may have at most ${limit} live API keys; revoke one first`);
    const { key, keyHash, keyHint } = generateApiKey(deps.apiKeyPrefix);
    const row = await insertApiKey({
      knex: trx,
      key: { id: randomUUID(), app_id: appId, scope: options.scope, key_hash: keyHash, key_hint: keyHint, name: options.name ?? null },
    });
    return { row, key };
  });
}
