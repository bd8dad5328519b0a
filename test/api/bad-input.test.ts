import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Stack } from '../../tools/stack/stack';
import { paymentWorkflowId } from '../../workflows/ids';
import { request, type HttpResult } from '../support/http';
import { eventually } from '../support/poll';
import { connectServices, type StackServices } from '../support/services';
import { getStack } from '../support/stack';
import { newMerchant, type TestMerchant } from '../support/merchant';
import { assertErrorEnvelope, countPayments, listWorkflows, uniqueOrderId } from './helpers';

/**
 * Every endpoint of the payment service (spec 4.1) fed bad input: each row must get its documented 4xx (never a
 * 5xx) with the JSON error envelope of ARCHITECTURE §3, validation errors naming the field, and the whole table
 * must create no payment row and no payment workflow.
 */

interface Ctx {
  api: string;
  /** The API origin, without the payment-api prefix. */
  origin: string;
  merchant: TestMerchant;
  other: TestMerchant;
  revoked: TestMerchant;
  revokedKey: string;
  /** An order of `other`: exists, but must stay invisible to `merchant`'s keys. */
  otherOrderId: string;
  /** An order of `merchant`: must stay invisible to `other`'s keys. */
  merchantOrderId: string;
}

interface RequestSpec {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string | Uint8Array<ArrayBuffer>;
  contentType?: string | null;
}

interface Row {
  name: string;
  request: (c: Ctx) => RequestSpec;
  status: number | number[];
  error: string | string[];
  /** A body field `details[].path` must name ("metadata.*" matches the field and anything under it). */
  field?: string;
  /** A path parameter the message must name (path parameters are reported with details path "(root)"). */
  param?: string;
  /** The `Allow` header a 405 must carry: the methods the path does take (RFC 9110). */
  allow?: string;
}

const DROP = Symbol('drop');

function baseBody(): Record<string, unknown> {
  return {
    type: 'exactIn',
    orderId: uniqueOrderId('bad-input'),
    display: { name: 'Bad input test', description: 'must never be created', currency: 'USD' },
    source: { chainId: '42161', tokenSymbol: 'USDC', amount: '10' },
  };
}

/** The base body with `path` (dot separated) set to `value`, or removed for DROP. */
function bodyWith(path: string, value: unknown): Record<string, unknown> {
  const body = baseBody();
  const keys = path.split('.');
  let target = body;
  for (const k of keys.slice(0, -1)) target = target[k] as Record<string, unknown>;
  const last = keys[keys.length - 1]!;
  if (value === DROP) delete target[last];
  else target[last] = value;
  return body;
}

const long = (n: number, ch = 'a') => ch.repeat(n);

/** Body rows run against both create forms: `POST {api}` with a key and `POST {api}/payments` with appId. */
const bodyCases: Array<{ name: string; path: string; value: unknown; field: string }> = [
  // destination is fixed on the server (spec 4.1 rule 2)
  { name: 'destination set', path: 'destination', value: { chainId: '8453', tokenSymbol: 'USDC', receiverAddress: '0x000000000000000000000000000000000000dEaD' }, field: 'destination' },
  { name: 'destination null', path: 'destination', value: null, field: 'destination' },
  { name: 'destination {}', path: 'destination', value: {}, field: 'destination' },
  // type
  { name: 'type exactOut', path: 'type', value: 'exactOut', field: 'type' },
  { name: 'type ExactIn (wrong case)', path: 'type', value: 'ExactIn', field: 'type' },
  { name: 'type empty', path: 'type', value: '', field: 'type' },
  { name: 'type number', path: 'type', value: 1, field: 'type' },
  { name: 'type null', path: 'type', value: null, field: 'type' },
  // source
  { name: 'source missing', path: 'source', value: DROP, field: 'source' },
  { name: 'source string', path: 'source', value: '42161:USDC:10', field: 'source' },
  { name: 'source array', path: 'source', value: [], field: 'source' },
  { name: 'chainId unsupported "1"', path: 'source.chainId', value: '1', field: 'source.chainId' },
  { name: 'chainId unsupported "1234567890"', path: 'source.chainId', value: '1234567890', field: 'source.chainId' },
  { name: 'chainId number', path: 'source.chainId', value: 42161, field: 'source.chainId' },
  { name: 'chainId hex', path: 'source.chainId', value: '0xa4b1', field: 'source.chainId' },
  { name: 'chainId empty', path: 'source.chainId', value: '', field: 'source.chainId' },
  { name: 'chainId with space', path: 'source.chainId', value: ' 42161', field: 'source.chainId' },
  { name: 'chainId negative', path: 'source.chainId', value: '-42161', field: 'source.chainId' },
  { name: 'chainId leading zero', path: 'source.chainId', value: '042161', field: 'source.chainId' },
  { name: 'chainId decimal', path: 'source.chainId', value: '42161.0', field: 'source.chainId' },
  { name: 'chainId too long', path: 'source.chainId', value: '99999999999', field: 'source.chainId' },
  { name: 'chainId null', path: 'source.chainId', value: null, field: 'source.chainId' },
  { name: 'chainId boolean', path: 'source.chainId', value: true, field: 'source.chainId' },
  { name: 'chainId missing', path: 'source.chainId', value: DROP, field: 'source.chainId' },
  { name: 'tokenSymbol unknown DAI', path: 'source.tokenSymbol', value: 'DAI', field: 'source.tokenSymbol' },
  { name: 'tokenSymbol unknown ETH', path: 'source.tokenSymbol', value: 'ETH', field: 'source.tokenSymbol' },
  { name: 'tokenSymbol empty', path: 'source.tokenSymbol', value: '', field: 'source.tokenSymbol' },
  { name: 'tokenSymbol with space', path: 'source.tokenSymbol', value: 'US DC', field: 'source.tokenSymbol' },
  { name: 'tokenSymbol with punctuation', path: 'source.tokenSymbol', value: 'USDC.e', field: 'source.tokenSymbol' },
  { name: 'tokenSymbol number', path: 'source.tokenSymbol', value: 5, field: 'source.tokenSymbol' },
  { name: 'tokenSymbol missing', path: 'source.tokenSymbol', value: DROP, field: 'source.tokenSymbol' },
  // amount (USDC has 6 decimals)
  { name: 'amount negative', path: 'source.amount', value: '-1', field: 'source.amount' },
  { name: 'amount negative fraction', path: 'source.amount', value: '-0.5', field: 'source.amount' },
  { name: 'amount zero', path: 'source.amount', value: '0', field: 'source.amount' },
  { name: 'amount zero with decimals', path: 'source.amount', value: '0.000000', field: 'source.amount' },
  { name: 'amount 7 decimals', path: 'source.amount', value: '1.0000001', field: 'source.amount' },
  { name: 'amount below one base unit', path: 'source.amount', value: '0.0000001', field: 'source.amount' },
  { name: 'amount 37 decimals', path: 'source.amount', value: `1.${long(37, '1')}`, field: 'source.amount' },
  { name: 'amount exponent', path: 'source.amount', value: '1e6', field: 'source.amount' },
  { name: 'amount upper-case exponent', path: 'source.amount', value: '1E3', field: 'source.amount' },
  { name: 'amount negative exponent', path: 'source.amount', value: '1e-6', field: 'source.amount' },
  { name: 'amount float number', path: 'source.amount', value: 10.5, field: 'source.amount' },
  { name: 'amount integer number', path: 'source.amount', value: 10, field: 'source.amount' },
  { name: 'amount absurdly large (41 digits)', path: 'source.amount', value: `1${long(40, '0')}`, field: 'source.amount' },
  { name: 'amount 21 digits', path: 'source.amount', value: '123456789012345678901', field: 'source.amount' },
  { name: 'amount empty', path: 'source.amount', value: '', field: 'source.amount' },
  { name: 'amount leading space', path: 'source.amount', value: ' 10', field: 'source.amount' },
  { name: 'amount trailing space', path: 'source.amount', value: '10 ', field: 'source.amount' },
  { name: 'amount inner space', path: 'source.amount', value: '1 000', field: 'source.amount' },
  { name: 'amount leading zero', path: 'source.amount', value: '01', field: 'source.amount' },
  { name: 'amount trailing dot', path: 'source.amount', value: '1.', field: 'source.amount' },
  { name: 'amount leading dot', path: 'source.amount', value: '.5', field: 'source.amount' },
  { name: 'amount decimal comma', path: 'source.amount', value: '1,5', field: 'source.amount' },
  { name: 'amount plus sign', path: 'source.amount', value: '+10', field: 'source.amount' },
  { name: 'amount NaN', path: 'source.amount', value: 'NaN', field: 'source.amount' },
  { name: 'amount Infinity', path: 'source.amount', value: 'Infinity', field: 'source.amount' },
  { name: 'amount hex', path: 'source.amount', value: '0x10', field: 'source.amount' },
  { name: 'amount full-width digits', path: 'source.amount', value: '１０', field: 'source.amount' },
  { name: 'amount null', path: 'source.amount', value: null, field: 'source.amount' },
  { name: 'amount array', path: 'source.amount', value: ['10'], field: 'source.amount' },
  { name: 'amount missing', path: 'source.amount', value: DROP, field: 'source.amount' },
  // display
  { name: 'display missing', path: 'display', value: DROP, field: 'display' },
  { name: 'display null', path: 'display', value: null, field: 'display' },
  { name: 'display string', path: 'display', value: 'Order 1', field: 'display' },
  { name: 'display without name or title', path: 'display', value: { description: 'no label', currency: 'USD' }, field: 'display' },
  { name: 'display {}', path: 'display', value: {}, field: 'display' },
  { name: 'display.name empty', path: 'display.name', value: '', field: 'display.name' },
  { name: 'display.name blank', path: 'display.name', value: '   ', field: 'display.name' },
  { name: 'display.name 201 characters', path: 'display.name', value: long(201), field: 'display.name' },
  { name: 'display.name number', path: 'display.name', value: 5, field: 'display.name' },
  { name: 'display.name null', path: 'display.name', value: null, field: 'display.name' },
  { name: 'display.title 201 characters', path: 'display', value: { title: long(201) }, field: 'display.title' },
  { name: 'display.title array', path: 'display', value: { title: ['x'] }, field: 'display.title' },
  { name: 'display.description 1001 characters', path: 'display.description', value: long(1001), field: 'display.description' },
  { name: 'display.description number', path: 'display.description', value: 5, field: 'display.description' },
  { name: 'display.currency lower case', path: 'display.currency', value: 'usd', field: 'display.currency' },
  { name: 'display.currency words', path: 'display.currency', value: 'US Dollar', field: 'display.currency' },
  { name: 'display.currency number', path: 'display.currency', value: 840, field: 'display.currency' },
  // orderId
  { name: 'orderId 129 characters', path: 'orderId', value: long(129), field: 'orderId' },
  { name: 'orderId 10000 characters', path: 'orderId', value: long(10_000), field: 'orderId' },
  { name: 'orderId number', path: 'orderId', value: 12345, field: 'orderId' },
  { name: 'orderId empty', path: 'orderId', value: '', field: 'orderId' },
  { name: 'orderId with space', path: 'orderId', value: 'order 1', field: 'orderId' },
  { name: 'orderId with tab', path: 'orderId', value: 'order\t1', field: 'orderId' },
  { name: 'orderId non-ASCII', path: 'orderId', value: 'commande-é', field: 'orderId' },
  { name: 'orderId object', path: 'orderId', value: { id: 1 }, field: 'orderId' },
  { name: 'orderId boolean', path: 'orderId', value: true, field: 'orderId' },
  // metadata
  { name: 'metadata too large (5000 characters)', path: 'metadata', value: { note: long(5000) }, field: 'metadata' },
  {
    name: 'metadata too large (many keys)',
    path: 'metadata',
    value: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`key${i}`, 'value-value'])),
    field: 'metadata',
  },
  { name: 'metadata array', path: 'metadata', value: [1, 2], field: 'metadata' },
  { name: 'metadata string', path: 'metadata', value: 'x', field: 'metadata' },
  { name: 'metadata number', path: 'metadata', value: 1, field: 'metadata' },
  { name: 'metadata key 65 characters', path: 'metadata', value: { [long(65)]: 1 }, field: 'metadata.*' },
  // PostgreSQL jsonb cannot store U+0000 nor unpaired surrogates: these must be refused as input, not fail in the DB.
  { name: 'display.name with a NUL character', path: 'display.name', value: 'a\u0000b', field: 'display.name' },
  { name: 'display.description with a NUL character', path: 'display.description', value: '\u0000', field: 'display.description' },
  { name: 'display.title with an unpaired surrogate', path: 'display', value: { title: 'x\ud800' }, field: 'display.title' },
  { name: 'metadata value with a NUL character', path: 'metadata', value: { note: 'a\u0000b' }, field: 'metadata.*' },
  { name: 'metadata key with a NUL character', path: 'metadata', value: { 'a\u0000': 1 }, field: 'metadata.*' },
  { name: 'metadata value with an unpaired surrogate', path: 'metadata', value: { note: '\udc00' }, field: 'metadata.*' },
];

const validUuid = '3f2b8c1e-9d4a-4c6b-8e2f-1a2b3c4d5e6f';

function rows(): Row[] {
  const out: Row[] = [];
  const keyed = (c: Ctx, key = c.merchant.ordersKey) => ({ 'x-api-key': key });

  // ---- POST {api} (X-API-Key) ----
  const postKey = 'POST {api}';
  out.push(
    { name: `${postKey}: no X-API-Key`, request: (c) => ({ url: c.api, body: baseBody() }), status: 401, error: 'missing_api_key' },
    { name: `${postKey}: empty X-API-Key`, request: (c) => ({ url: c.api, headers: { 'x-api-key': '' }, body: baseBody() }), status: 401, error: 'missing_api_key' },
    {
      name: `${postKey}: key sent as a Bearer token instead of X-API-Key`,
      request: (c) => ({ url: c.api, headers: { authorization: `Bearer ${c.merchant.ordersKey}` }, body: baseBody() }),
      status: 401,
      error: 'missing_api_key',
    },
    { name: `${postKey}: unknown key`, request: (c) => ({ url: c.api, headers: { 'x-api-key': 'pr_live_notakey' }, body: baseBody() }), status: 401, error: 'invalid_api_key' },
    { name: `${postKey}: key with a typo`, request: (c) => ({ url: c.api, headers: { 'x-api-key': `${c.merchant.ordersKey}x` }, body: baseBody() }), status: 401, error: 'invalid_api_key' },
    { name: `${postKey}: revoked key`, request: (c) => ({ url: c.api, headers: { 'x-api-key': c.revokedKey }, body: baseBody() }), status: 401, error: 'invalid_api_key' },
    { name: `${postKey}: no key and a bad body`, request: (c) => ({ url: c.api, body: { nonsense: true } }), status: 401, error: 'missing_api_key' },
  );
  for (const [label, extra] of [
    [postKey, (c: Ctx) => ({ url: c.api, headers: keyed(c) })],
    ['POST {api}/payments', (c: Ctx) => ({ url: `${c.api}/payments`, headers: {} })],
  ] as const) {
    out.push(
      { name: `${label}: Content-Type text/plain`, request: (c) => ({ ...extra(c), rawBody: JSON.stringify(baseBody()), contentType: 'text/plain' }), status: 415, error: 'unsupported_media_type' },
      {
        name: `${label}: form-urlencoded body`,
        request: (c) => ({ ...extra(c), rawBody: 'type=exactIn&source.amount=10', contentType: 'application/x-www-form-urlencoded' }),
        status: 415,
        error: 'unsupported_media_type',
      },
      {
        name: `${label}: body without Content-Type`,
        request: (c) => ({ ...extra(c), rawBody: new TextEncoder().encode(JSON.stringify(baseBody())), contentType: null }),
        status: 415,
        error: 'unsupported_media_type',
      },
      { name: `${label}: malformed JSON`, request: (c) => ({ ...extra(c), rawBody: '{"type": "exactIn",' }), status: 400, error: 'invalid_request' },
      { name: `${label}: not JSON at all`, request: (c) => ({ ...extra(c), rawBody: '<xml/>' }), status: 400, error: 'invalid_request' },
      { name: `${label}: JSON string`, request: (c) => ({ ...extra(c), rawBody: '"pay me"' }), status: 400, error: 'invalid_request' },
      { name: `${label}: JSON null`, request: (c) => ({ ...extra(c), rawBody: 'null' }), status: 400, error: 'invalid_request' },
      { name: `${label}: JSON array`, request: (c) => ({ ...extra(c), body: [baseBody()] }), status: 400, error: 'invalid_request', field: '(root)' },
      { name: `${label}: empty JSON body`, request: (c) => ({ ...extra(c), rawBody: '' }), status: 400, error: 'invalid_request', field: 'source' },
      { name: `${label}: {}`, request: (c) => ({ ...extra(c), body: {} }), status: 400, error: 'invalid_request', field: 'display' },
      {
        name: `${label}: huge body (100 KB)`,
        request: (c) => ({ ...extra(c), body: { ...baseBody(), appId: c.merchant.appId, padding: long(100_000) } }),
        status: 413,
        error: 'payload_too_large',
      },
      {
        name: `${label}: unsupported Content-Encoding`,
        request: (c) => ({ ...extra(c), headers: { ...extra(c).headers, 'content-encoding': 'compress-me' }, body: baseBody() }),
        status: 415,
        error: 'unsupported_media_type',
      },
      {
        // The body is not gzip data although the header says so: the client's fault, so a 400 (now: 500).
        name: `${label}: Content-Encoding gzip with a body that is not gzip`,
        request: (c) => ({ ...extra(c), headers: { ...extra(c).headers, 'content-encoding': 'gzip' }, body: baseBody() }),
        status: 400,
        error: 'invalid_request',
      },
    );
  }
  for (const bc of bodyCases) {
    out.push({
      name: `${postKey}: ${bc.name}`,
      request: (c) => ({ url: c.api, headers: keyed(c), body: bodyWith(bc.path, bc.value) }),
      status: 400,
      error: 'invalid_request',
      field: bc.field,
    });
    out.push({
      name: `POST {api}/payments: ${bc.name}`,
      request: (c) => ({ url: `${c.api}/payments`, body: { ...bodyWith(bc.path, bc.value), appId: c.merchant.appId } }),
      status: 400,
      error: 'invalid_request',
      field: bc.field,
    });
  }

  // ---- POST {api}/payments (appId in the body) ----
  const postApp = 'POST {api}/payments';
  for (const [name, appId] of [
    ['appId missing', DROP],
    ['appId unknown', 'merchant_no-such-app'],
    ['appId unknown wallet_', 'wallet_no-such-app'],
    ['appId malformed (spaces, capitals)', 'Merchant Demo'],
    ['appId without slug', 'merchant_'],
    ['appId with another prefix', 'user_demo'],
    ['appId too long', `merchant_${long(70)}`],
    ['appId number', 42],
    ['appId null', null],
    ['appId SQL-looking', "merchant_demo' OR '1'='1"],
  ] as const) {
    out.push({
      name: `${postApp}: ${name}`,
      request: (c) => {
        const body = baseBody();
        if (appId !== DROP) body.appId = appId;
        return { url: `${c.api}/payments`, body };
      },
      status: 400,
      error: 'invalid_request',
      field: 'appId',
    });
  }

  // ---- GET {api}/payments/:id ----
  const getId = 'GET {api}/payments/:id';
  for (const [name, id] of [
    ['not a UUID', 'not-a-uuid'],
    ['a number', '12345'],
    ['UUID with an extra character', `${validUuid}0`],
    ['UUID without dashes', validUuid.replace(/-/g, '')],
    ['UUID with braces', `%7B${validUuid}%7D`],
    ['bad percent-encoding', '%E0%A4%A'],
    ['SQL-looking', encodeURIComponent("1' OR '1'='1")],
    ['a very long id', long(5000)],
  ] as const) {
    out.push({ name: `${getId}: ${name}`, request: (c) => ({ url: `${c.api}/payments/${id}` }), status: 400, error: 'invalid_request', param: 'payment id' });
  }
  out.push(
    { name: `${getId}: unknown UUID`, request: (c) => ({ url: `${c.api}/payments/${randomUUID()}` }), status: 404, error: 'not_found' },
    { name: `${getId}: nil UUID`, request: (c) => ({ url: `${c.api}/payments/00000000-0000-0000-0000-000000000000` }), status: 404, error: 'not_found' },
    { name: `${getId}: max UUID`, request: (c) => ({ url: `${c.api}/payments/ffffffff-ffff-ffff-ffff-ffffffffffff` }), status: 404, error: 'not_found' },
  );

  // ---- GET {api}/payments/order/:appId/:orderId ----
  const getOrder = 'GET {api}/payments/order/:appId/:orderId';
  const orderUrl = (c: Ctx, appId: string, orderId: string) => `${c.api}/payments/order/${appId}/${orderId}`;
  out.push(
    { name: `${getOrder}: no X-API-Key`, request: (c) => ({ url: orderUrl(c, c.merchant.appId, c.merchantOrderId) }), status: 401, error: 'missing_api_key' },
    {
      name: `${getOrder}: unknown key`,
      request: (c) => ({ url: orderUrl(c, c.merchant.appId, c.merchantOrderId), headers: { 'x-api-key': 'pr_live_notakey' } }),
      status: 401,
      error: 'invalid_api_key',
    },
    {
      name: `${getOrder}: revoked key`,
      request: (c) => ({ url: orderUrl(c, c.merchant.appId, c.merchantOrderId), headers: { 'x-api-key': c.revokedKey } }),
      status: 401,
      error: 'invalid_api_key',
    },
    { name: `${getOrder}: malformed appId`, request: (c) => ({ url: orderUrl(c, 'Merchant%20Demo', 'x'), headers: keyed(c) }), status: 400, error: 'invalid_request', param: 'appId' },
    { name: `${getOrder}: orderId 129 characters`, request: (c) => ({ url: orderUrl(c, c.merchant.appId, long(129)), headers: keyed(c) }), status: 400, error: 'invalid_request', param: 'orderId' },
    { name: `${getOrder}: orderId with a space`, request: (c) => ({ url: orderUrl(c, c.merchant.appId, 'a%20b'), headers: keyed(c) }), status: 400, error: 'invalid_request', param: 'orderId' },
    { name: `${getOrder}: orderId non-ASCII`, request: (c) => ({ url: orderUrl(c, c.merchant.appId, '%C3%A9'), headers: keyed(c) }), status: 400, error: 'invalid_request', param: 'orderId' },
    { name: `${getOrder}: unknown orderId`, request: (c) => ({ url: orderUrl(c, c.merchant.appId, uniqueOrderId('nope')), headers: keyed(c) }), status: 404, error: 'not_found' },
    {
      name: `${getOrder}: another app's order, asked with the merchant's key`,
      request: (c) => ({ url: orderUrl(c, c.other.appId, c.otherOrderId), headers: keyed(c) }),
      status: 404,
      error: 'not_found',
    },
    {
      name: `${getOrder}: another app's order, asked with the merchant's Admin key`,
      request: (c) => ({ url: orderUrl(c, c.other.appId, c.otherOrderId), headers: keyed(c, c.merchant.adminKey) }),
      status: 404,
      error: 'not_found',
    },
    {
      name: `${getOrder}: the merchant's order, asked with another app's key`,
      request: (c) => ({ url: orderUrl(c, c.merchant.appId, c.merchantOrderId), headers: keyed(c, c.other.ordersKey) }),
      status: 404,
      error: 'not_found',
    },
    {
      name: `${getOrder}: the other app's orderId under the merchant's appId`,
      request: (c) => ({ url: orderUrl(c, c.merchant.appId, c.otherOrderId), headers: keyed(c) }),
      status: 404,
      error: 'not_found',
    },
    { name: `${getOrder}: unknown (well-formed) appId`, request: (c) => ({ url: orderUrl(c, 'merchant_no-such-app', 'x'), headers: keyed(c) }), status: 404, error: 'not_found' },
  );

  // ---- unknown routes and wrong methods ----
  out.push(
    { name: 'GET {api}/unknown', request: (c) => ({ url: `${c.api}/unknown` }), status: 404, error: 'not_found' },
    { name: 'GET {origin}/v2/payment-api', request: (c) => ({ url: `${c.origin}/v2/payment-api` }), status: 404, error: 'not_found' },
    { name: 'POST {origin}/unknown', request: (c) => ({ url: `${c.origin}/unknown`, body: baseBody() }), status: 404, error: 'not_found' },
    { name: 'GET {api}/payments/order/:appId (no orderId)', request: (c) => ({ url: `${c.api}/payments/order/${c.merchant.appId}`, headers: keyed(c) }), status: 404, error: 'not_found' },
    { name: 'GET {api}/payments/:id/extra', request: (c) => ({ url: `${c.api}/payments/${validUuid}/extra` }), status: 404, error: 'not_found' },
    { name: 'GET {api}/payments (create is POST)', request: (c) => ({ url: `${c.api}/payments` }), status: 405, error: 'method_not_allowed', allow: 'POST' },
    { name: 'PUT {api} (list is GET, create is POST)', request: (c) => ({ url: c.api, method: 'PUT', headers: keyed(c), body: baseBody() }), status: 405, error: 'method_not_allowed', allow: 'HEAD, GET, POST' },
    { name: 'PATCH {api}/payments', request: (c) => ({ url: `${c.api}/payments`, method: 'PATCH', body: baseBody() }), status: 405, error: 'method_not_allowed', allow: 'POST' },
    { name: 'DELETE {api}/payments/:id', request: (c) => ({ url: `${c.api}/payments/${validUuid}`, method: 'DELETE' }), status: 405, error: 'method_not_allowed', allow: 'HEAD, GET' },
    { name: 'POST {api}/payments/:id', request: (c) => ({ url: `${c.api}/payments/${validUuid}`, body: baseBody() }), status: 405, error: 'method_not_allowed', allow: 'HEAD, GET' },
    {
      name: 'DELETE {api}/payments/order/:appId/:orderId',
      request: (c) => ({ url: orderUrl(c, c.merchant.appId, c.merchantOrderId), method: 'DELETE', headers: keyed(c) }),
      status: 405,
      error: 'method_not_allowed',
      allow: 'HEAD, GET',
    },
    { name: 'PROPFIND {api} (a method the router does not know)', request: (c) => ({ url: c.api, method: 'PROPFIND' }), status: 405, error: 'method_not_allowed', allow: 'HEAD, GET, POST' },
  );
  return out;
}

function namesField(body: { message: string; details?: Array<{ path: string }> }, field: string): boolean {
  const paths = (body.details ?? []).map((d) => d.path);
  if (field.endsWith('.*')) {
    const base = field.slice(0, -2);
    return paths.some((p) => p === base || p.startsWith(`${base}.`));
  }
  return paths.includes(field);
}

describe('payment service: bad input is refused with a 4xx and creates nothing', function () {
  this.timeout(120_000);
  let stack: Stack;
  let services: StackServices;
  const ctx = {} as Ctx;
  let rowsBefore: number;
  let idsBefore: Set<string>;
  let tableStartedAt: Date;
  /** The payments of this file's apps: whatever a request of the table could have created. */
  const ofTheApps: Knex.QueryCallback = (payments) => void payments.whereIn('app_id', [ctx.merchant.appId, ctx.other.appId, ctx.revoked.appId]);

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    ctx.api = stack.info.paymentApiUrl;
    ctx.origin = new URL(stack.info.paymentApiUrl).origin;
    ctx.merchant = await newMerchant(stack, services.knex, { keylessPayments: true });
    ctx.other = await newMerchant(stack, services.knex);
    // A key that worked once and was revoked.
    ctx.revoked = await newMerchant(stack, services.knex);
    await services.knex('api_keys').where({ app_id: ctx.revoked.appId }).update({ revoked_at: services.knex.fn.now() });
    ctx.revokedKey = ctx.revoked.ordersKey;
    // One real order per app, so "exists but belongs to someone else" is tested, not just "does not exist".
    ctx.otherOrderId = uniqueOrderId('other-app-order');
    ctx.merchantOrderId = uniqueOrderId('merchant-app-order');
    for (const [key, orderId] of [
      [ctx.other.ordersKey, ctx.otherOrderId],
      [ctx.merchant.ordersKey, ctx.merchantOrderId],
    ] as const) {
      const res = await request(ctx.api, { headers: { 'x-api-key': key }, body: { ...baseBody(), orderId } });
      assert.equal(res.status, 201, res.text);
    }

    rowsBefore = await countPayments(services.knex, ofTheApps);
    idsBefore = new Set((await services.knex('payments').where(ofTheApps).select('id')).map((r: { id: string }) => r.id));
    tableStartedAt = new Date(Date.now() - 1000);
  });
  after(async () => services?.close());

  const table = rows();

  it('the table covers every endpoint and at least 150 cases', () => {
    assert.ok(table.length >= 150, `only ${table.length} rows`);
    for (const prefix of ['POST {api}:', 'POST {api}/payments:', 'GET {api}/payments/:id:', 'GET {api}/payments/order/:appId/:orderId:']) {
      assert.ok(table.some((r) => r.name.startsWith(prefix)), `no row for ${prefix}`);
    }
  });

  for (const row of table) {
    it(row.name, async () => {
      const spec = row.request(ctx);
      let res: HttpResult;
      try {
        res = await request(spec.url, spec);
      } catch (err) {
        throw new Error(`request failed without an HTTP answer: ${String(err)}`);
      }
      const label = `${row.name} (${spec.method ?? (spec.body !== undefined || spec.rawBody !== undefined ? 'POST' : 'GET')} ${spec.url.slice(0, 120)})`;
      assert.ok(res.status < 500, `never a 5xx for bad input: ${label} → HTTP ${res.status} ${res.text.slice(0, 200)}`);
      const statuses = Array.isArray(row.status) ? row.status : [row.status];
      assert.ok(statuses.includes(res.status), `expected HTTP ${statuses.join(' or ')}: ${label} → HTTP ${res.status} ${res.text.slice(0, 300)}`);
      const body = assertErrorEnvelope(res, label);
      const codes = Array.isArray(row.error) ? row.error : [row.error];
      assert.ok(codes.includes(body.error), `expected error ${codes.join(' or ')}: ${label} → ${res.text.slice(0, 300)}`);
      if (row.field) {
        assert.ok(body.details, `validation error has details: ${label} → ${res.text.slice(0, 300)}`);
        assert.ok(namesField(body, row.field), `details name ${row.field}: ${label} → ${res.text.slice(0, 400)}`);
      }
      if (row.allow) assert.equal(res.headers.get('allow'), row.allow, `Allow names the path's methods: ${label}`);
      if (row.param) {
        assert.ok(body.details, `validation error has details: ${label} → ${res.text.slice(0, 300)}`);
        assert.ok(body.message.includes(row.param), `message names ${row.param}: ${label} → ${res.text.slice(0, 300)}`);
      }
    });
  }

  it('created no payment row and started no payment workflow for any of the rows above', async () => {
    assert.equal(await countPayments(services.knex, ofTheApps), rowsBefore, 'payments rows changed');
    // Positive control, created after every row above: the same checks see it. Visibility is eventually consistent,
    // so the workflows are listed once the control's is visible: one a bad request started earlier is visible by then.
    const res = await request(ctx.api, { headers: { 'x-api-key': ctx.merchant.ordersKey }, body: baseBody() });
    assert.equal(res.status, 201, res.text);
    const control = paymentWorkflowId((res.body as { id: string }).id);
    assert.equal(await countPayments(services.knex, ofTheApps), rowsBefore + 1);
    const apps = [ctx.merchant, ctx.other, ctx.revoked].map((app) => `"${app.appId}"`).join(', ');
    const query = `WorkflowType = "paymentWorkflow" AND MerchantAppId IN (${apps}) AND StartTime >= "${tableStartedAt.toISOString()}"`;
    const started = await eventually('the control payment workflow to be visible to the query', 10_000, async () => {
      const found = await listWorkflows(services.client, query);
      return found.some((wf) => wf.workflowId === control) ? found : undefined;
    });
    // Rows created before the table may have started just inside its window; anything else was a bad request's.
    const strays = started.filter((wf) => wf.workflowId !== control && !idsBefore.has(wf.workflowId.replace(/^payment-/, '')));
    assert.deepEqual(strays.map((wf) => wf.workflowId), [], 'payment workflows started by bad input');
  });
});
