import type { ApiKeyRow, MerchantAppRow } from '../../db/tables';
import type { ApiKeyResource, AppResource } from '../schemas/merchant';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A merchant app as the dashboard sees it: never its webhook secret, only the fingerprint. */
export function toAppResource(app: MerchantAppRow): AppResource {
  return {
    appId: app.app_id,
    name: app.name,
    developerId: app.developer_id,
    payout: { chainId: String(app.payout_chain_id), tokenSymbol: app.payout_token_symbol, address: app.payout_address },
    webhookUrl: app.webhook_url,
    keylessPayments: app.keyless_payments,
    underpaymentToleranceBps: app.underpayment_tolerance_bps,
    webhookSecretFingerprint: app.webhook_secret_fingerprint,
    webhookSecretRotatedAt: iso(app.webhook_secret_rotated_at),
    createdAt: app.created_at.toISOString(),
  };
}

/** An API key without its secret; `hint` (prefix and last characters) tells keys apart. */
export function toApiKeyResource(key: ApiKeyRow): ApiKeyResource {
  return {
    id: key.id,
    name: key.name,
    scope: key.scope,
    hint: key.key_hint,
    createdAt: key.created_at.toISOString(),
    revokedAt: iso(key.revoked_at),
    lastUsedAt: iso(key.last_used_at),
  };
}
