/**
 * The OpenAPI 3.1 description of the HTTP interfaces (payment, merchant, legacy orders and the hosted page),
 * served at /v1/openapi.json. Request bodies, path and query parameters come from the zod schemas the routes
 * validate with (z.toJSONSchema, in their input form), so the document cannot drift from what is accepted.
 * Responses: the success status of each operation, with its body from the zod schema the route's answer is typed by
 * (in its output form) where the operation has one, and, for every other status, the interface's error body. The
 * dashboard types what it reads by the same schemas.
 */
import { z } from 'zod';
import { LEGACY_ORDERS_PATH } from './legacy/errors';
import { SESSION_COOKIE } from './middleware/jwt';
import type { ChainList } from './schemas/chains';
import { appIdSchema } from './schemas/common';
import {
  acceptedPaymentSchema,
  callbackAttemptListSchema,
  dashboardConfigSchema,
  deliveryListQuerySchema,
  deliveryPageSchema,
  orderListQuerySchema,
  orderPageSchema,
  paymentChangesQuerySchema,
  paymentChangesSchema,
  paymentDetailSchema,
  paymentListQuerySchema,
  paymentPageSchema,
} from './schemas/dashboard';
import {
  apiKeyIdSchema,
  apiKeyListSchema,
  apiKeyResourceSchema,
  appListSchema,
  appResourceSchema,
  appUpdateBodySchema,
  createApiKeyBodySchema,
  createdApiKeySchema,
  dashboardSessionSchema,
  dashboardTokenSchema,
  loginCodeRequestSchema,
  loginCodeSentSchema,
  merchantStatsSchema,
  registerBodySchema,
  registeredAppSchema,
  statsQuerySchema,
  tokenRequestSchema,
  webhookSecretRotationSchema,
  webhookTestResultSchema,
  webhookUpdateBodySchema,
} from './schemas/merchant';
import { chooseCurrencyBodySchema, createOrderBodySchema, orderIdParamSchema } from './schemas/orders';
import { payWalletSchema } from './schemas/pay';
import {
  claimRefundBodySchema,
  createPaymentBodySchema,
  createPaymentByAppIdBodySchema,
  createRefundBodySchema,
  idempotencyKeySchema,
  orderIdSchema,
  paymentIdParamSchema,
  refundClaimSchema,
  refundIdParamSchema,
  refundListSchema,
  refundResourceSchema,
  servedSourceSchema,
} from './schemas/payments';
import { listWebhookDeliveriesQuerySchema, webhookDeliveryLogSchema } from './schemas/webhook-deliveries';
import { eventIdParamSchema, eventListQuerySchema, eventPageSchema, keyPaymentListQuerySchema, keyPaymentPageSchema, statementQuerySchema, statementSchema, webhookEventSchema } from './schemas/listing';

export const OPENAPI_PATH = '/v1/openapi.json';
export const API_REFERENCE_PATH = '/v1/docs';

type JsonSchema = Record<string, unknown>;
type Security = 'apiKey' | 'bearer' | 'session' | 'legacyToken';

interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Koa path (`:param`). */
  path: string;
  tag: 'Payments' | 'Merchant' | 'Dashboard' | 'Legacy orders' | 'Hosted payment page';
  summary: string;
  /** How the operation authenticates; several: any one of them. */
  security?: Security | Security[];
  /** The request body; a function when the document states what this server is configured for (its chains). */
  body?: z.ZodType | ((chains: ChainList) => z.ZodType);
  params?: Record<string, z.ZodType>;
  /** Request headers the route reads besides authentication (`Idempotency-Key`), each required. */
  headers?: Record<string, z.ZodType>;
  query?: z.ZodObject;
  /** Success statuses; an HTML page answers its 404 as a page too. */
  success: number[];
  /** The success answer's body: the schema the route's answer is typed by. */
  response?: z.ZodType;
  html?: boolean;
  /** The success answer may also be CSV (a `format=csv` query), a table as text. */
  csv?: boolean;
  /** Body shape of every other status. */
  errors: 'standard' | 'legacy';
  /**
   * OpenAPI links of the success answer: operations (`'get /path/:param'`) it supplies path parameters to, each
   * parameter as a runtime expression into the answer's body. Clients and fuzzers follow them from a created
   * resource to the operations that read or change it.
   */
  links?: Record<string, Record<string, string>>;
}

const PAYMENT = '/v1/payment-api';
const MERCHANT = '/v1/merchant-api';

const PAYMENT_LINKS = {
  [`get ${PAYMENT}/payments/:id`]: { id: '$response.body#/id' },
  [`get ${PAYMENT}/payments/order/:appId/:orderId`]: { appId: '$response.body#/appId', orderId: '$response.body#/orderId' },
  'get /pay/:id': { id: '$response.body#/id' },
  'get /pay/:id/state': { id: '$response.body#/id' },
  'get /pay/:id/wallet': { id: '$response.body#/id' },
};
const ORDER_LINKS = {
  [`get ${LEGACY_ORDERS_PATH}/:id`]: { id: '$response.body#/order/id' },
  'get /pay/order/:orderId': { orderId: '$response.body#/order/id' },
  'get /pay/order/:orderId/state': { orderId: '$response.body#/order/id' },
  'post /pay/order/:orderId/currency': { orderId: '$response.body#/order/id' },
  'post /pay/order/:orderId/cancel': { orderId: '$response.body#/order/id' },
};
const appLinks = (appId: string) =>
  Object.fromEntries(
    [`get ${MERCHANT}/apps/:appId/keys`, `post ${MERCHANT}/apps/:appId/keys`, `put ${MERCHANT}/apps/:appId/webhook`, `post ${MERCHANT}/apps/:appId/webhook/rotate`].map((op) => [op, { appId }]),
  );

/** A hosted page (HTML) and the JSON state it polls, at `<path>/state`: an order's and a payment's page alike. */
function hostedPage(p: { path: string; param: string; page: string; state: string }): Operation[] {
  const common = { method: 'get', tag: 'Hosted payment page', params: { [p.param]: z.string() }, errors: 'standard' } as const;
  return [
    { ...common, path: p.path, summary: p.page, success: [200], html: true },
    { ...common, path: `${p.path}/state`, summary: p.state, success: [200] },
  ];
}

/** The JSON the dashboard's pages read about one app the developer owns (`GET {merchant_api_url}/apps/{appId}/…`). */
function dashboardReads(reads: Array<Pick<Operation, 'summary' | 'query' | 'params' | 'response'> & { path: string }>): Operation[] {
  return reads.map((read) => ({
    ...read,
    method: 'get',
    path: `${MERCHANT}${read.path}`,
    tag: 'Dashboard',
    security: 'bearer',
    params: { appId: appIdSchema, ...read.params },
    success: [200],
    errors: 'standard',
  }));
}

const OPERATIONS: Operation[] = [
  { method: 'post', path: `${PAYMENT}`, tag: 'Payments', summary: 'Create a payment (idempotent per orderId)', security: 'apiKey', body: (chains) => createPaymentBodySchema.extend({ source: servedSourceSchema(chains) }), success: [200, 201], errors: 'standard', links: PAYMENT_LINKS },
  { method: 'post', path: `${PAYMENT}/payments`, tag: 'Payments', summary: 'Create a payment for a merchant app named in the body', body: (chains) => createPaymentByAppIdBodySchema.extend({ source: servedSourceSchema(chains) }), success: [200, 201], errors: 'standard', links: PAYMENT_LINKS },
  {
    method: 'get',
    path: `${PAYMENT}/payments/order/:appId/:orderId`,
    tag: 'Payments',
    summary: "Read a payment by the merchant's order id",
    security: 'apiKey',
    params: { appId: appIdSchema, orderId: orderIdSchema },
    success: [200],
    errors: 'standard',
  },
  {
    method: 'get',
    path: `${PAYMENT}`,
    tag: 'Payments',
    summary: "List the key's app's payments: newest first, or by change with updatedSince (a sync that skips nothing)",
    security: 'apiKey',
    query: keyPaymentListQuerySchema,
    success: [200],
    response: keyPaymentPageSchema,
    errors: 'standard',
  },
  { method: 'get', path: `${PAYMENT}/payments/:id`, tag: 'Payments', summary: 'Read a payment', params: { id: paymentIdParamSchema }, success: [200], errors: 'standard' },
  { method: 'post', path: `${PAYMENT}/:id/accept`, tag: 'Payments', summary: 'Accept a payment collecting with less than its amount as paid (Admin key)', security: 'apiKey', params: { id: paymentIdParamSchema }, success: [200], errors: 'standard' },
  {
    method: 'post',
    path: `${PAYMENT}/:id/refunds`,
    tag: 'Payments',
    summary: 'Refund a completed payment (Admin key; idempotent per Idempotency-Key)',
    security: 'apiKey',
    params: { id: paymentIdParamSchema },
    headers: { 'Idempotency-Key': idempotencyKeySchema },
    body: createRefundBodySchema,
    success: [200, 201],
    response: refundResourceSchema,
    errors: 'standard',
    links: { [`get ${PAYMENT}/:id/refunds`]: { id: '$response.body#/paymentId' } },
  },
  { method: 'get', path: `${PAYMENT}/:id/refunds`, tag: 'Payments', summary: "A payment's refunds, oldest first (Admin key)", security: 'apiKey', params: { id: paymentIdParamSchema }, success: [200], response: refundListSchema, errors: 'standard' },
  {
    method: 'post',
    path: `${PAYMENT}/:id/refunds/:refundId/send-to-sender`,
    tag: 'Payments',
    summary: "Send a refund nobody claimed within the claim window to the payment's sender (Admin key); 409 before the window ends or once it has an address",
    security: 'apiKey',
    params: { id: paymentIdParamSchema, refundId: refundIdParamSchema },
    success: [200],
    response: refundResourceSchema,
    errors: 'standard',
  },

  { method: 'post', path: `${MERCHANT}/auth/login-code`, tag: 'Merchant', summary: 'E-mail a login code', body: loginCodeRequestSchema, success: [202], response: loginCodeSentSchema, errors: 'standard' },
  { method: 'post', path: `${MERCHANT}/auth/token`, tag: 'Merchant', summary: 'Trade a login code for a token', body: tokenRequestSchema, success: [200], response: dashboardTokenSchema, errors: 'standard' },
  { method: 'post', path: `${MERCHANT}/auth/session`, tag: 'Dashboard', summary: 'Trade a login code for a dashboard session (an HttpOnly cookie)', body: tokenRequestSchema, success: [200], response: dashboardSessionSchema, errors: 'standard' },
  { method: 'get', path: `${MERCHANT}/auth/session`, tag: 'Dashboard', summary: 'Who is logged in to the dashboard', security: 'session', success: [200], response: dashboardSessionSchema, errors: 'standard' },
  { method: 'delete', path: `${MERCHANT}/auth/session`, tag: 'Dashboard', summary: 'Log out of the dashboard: the session ends server-side', security: 'session', success: [204], errors: 'standard' },
  { method: 'get', path: `${MERCHANT}/dashboard/config`, tag: 'Dashboard', summary: "The dashboard's configuration: chains, explorers, payment statuses", success: [200], response: dashboardConfigSchema, errors: 'standard' },
  {
    method: 'post',
    path: `${MERCHANT}/register`,
    tag: 'Merchant',
    summary: 'Register a merchant app',
    security: 'bearer',
    body: registerBodySchema,
    success: [201],
    response: registeredAppSchema,
    errors: 'standard',
    links: appLinks('$response.body#/appId'),
  },
  { method: 'get', path: `${MERCHANT}/apps`, tag: 'Merchant', summary: "List the developer's apps", security: 'bearer', success: [200], response: appListSchema, errors: 'standard', links: appLinks('$response.body#/data/0/appId') },
  {
    method: 'patch',
    path: `${MERCHANT}/apps/:appId`,
    tag: 'Merchant',
    summary: "Change an app's settings",
    security: 'bearer',
    params: { appId: appIdSchema },
    body: appUpdateBodySchema,
    success: [200],
    response: appResourceSchema,
    errors: 'standard',
  },
  {
    method: 'post',
    path: `${MERCHANT}/apps/:appId/keys`,
    tag: 'Merchant',
    summary: 'Create an API key',
    security: 'bearer',
    params: { appId: appIdSchema },
    body: createApiKeyBodySchema,
    success: [201],
    response: createdApiKeySchema,
    errors: 'standard',
    links: { [`delete ${MERCHANT}/apps/:appId/keys/:keyId`]: { appId: '$request.path.appId', keyId: '$response.body#/id' } },
  },
  { method: 'get', path: `${MERCHANT}/apps/:appId/keys`, tag: 'Merchant', summary: "List an app's API keys", security: 'bearer', params: { appId: appIdSchema }, success: [200], response: apiKeyListSchema, errors: 'standard' },
  {
    method: 'delete',
    path: `${MERCHANT}/apps/:appId/keys/:keyId`,
    tag: 'Merchant',
    summary: 'Revoke an API key',
    security: 'bearer',
    params: { appId: appIdSchema, keyId: apiKeyIdSchema },
    success: [200],
    response: apiKeyResourceSchema,
    errors: 'standard',
  },
  {
    method: 'put',
    path: `${MERCHANT}/apps/:appId/webhook`,
    tag: 'Merchant',
    summary: "Move an app's webhook",
    security: 'bearer',
    params: { appId: appIdSchema },
    body: webhookUpdateBodySchema,
    success: [200],
    response: appResourceSchema,
    errors: 'standard',
  },
  {
    method: 'post',
    path: `${MERCHANT}/apps/:appId/webhook/rotate`,
    tag: 'Merchant',
    summary: "Rotate an app's webhook secret",
    security: 'bearer',
    params: { appId: appIdSchema },
    success: [200],
    response: webhookSecretRotationSchema,
    errors: 'standard',
  },
  {
    method: 'post',
    path: `${MERCHANT}/apps/:appId/webhook/test`,
    tag: 'Merchant',
    summary: "Send a signed test event to an app's webhook",
    security: 'bearer',
    params: { appId: appIdSchema },
    success: [200],
    response: webhookTestResultSchema,
    errors: 'standard',
  },
  {
    method: 'get',
    path: `${MERCHANT}/me/webhook/deliveries`,
    tag: 'Merchant',
    summary: 'The webhook delivery log',
    security: 'bearer',
    query: listWebhookDeliveriesQuerySchema,
    success: [200],
    response: webhookDeliveryLogSchema,
    errors: 'standard',
  },
  { method: 'get', path: `${MERCHANT}/events`, tag: 'Merchant', summary: "The app's webhook events with their delivery outcome, newest first (Admin key)", security: 'apiKey', query: eventListQuerySchema, success: [200], response: eventPageSchema, errors: 'standard' },
  { method: 'get', path: `${MERCHANT}/events/:id`, tag: 'Merchant', summary: 'A webhook event (Admin key)', security: 'apiKey', params: { id: eventIdParamSchema }, success: [200], response: webhookEventSchema, errors: 'standard' },
  {
    method: 'get',
    path: `${MERCHANT}/apps/:appId/statement`,
    tag: 'Merchant',
    summary: "An app's statement of a period from the ledger, JSON or CSV (its Admin key, or the dashboard)",
    security: ['apiKey', 'session', 'bearer'],
    params: { appId: appIdSchema },
    query: statementQuerySchema,
    success: [200],
    response: statementSchema,
    csv: true,
    errors: 'standard',
  },
  { method: 'get', path: `${MERCHANT}/me/stats`, tag: 'Merchant', summary: 'Payment statistics (Admin key)', security: 'apiKey', query: statsQuerySchema, success: [200], response: merchantStatsSchema, errors: 'standard' },
  ...dashboardReads([
    { path: '/apps/:appId/stats', summary: "An app's payment statistics", query: statsQuerySchema, response: merchantStatsSchema },
    { path: '/apps/:appId/payments', summary: "An app's payments, newest first: status, search, created range, cursor", query: paymentListQuerySchema, response: paymentPageSchema },
    { path: '/apps/:appId/payments/changes', summary: "An app's payments changed since a time (the live view's poll)", query: paymentChangesQuerySchema, response: paymentChangesSchema },
    { path: '/apps/:appId/payments/:paymentId', summary: 'A payment with its timeline, links and deliveries', params: { paymentId: paymentIdParamSchema }, response: paymentDetailSchema },
    { path: '/apps/:appId/deliveries', summary: "An app's webhook delivery log", query: deliveryListQuerySchema, response: deliveryPageSchema },
    { path: '/apps/:appId/orders', summary: "An app's legacy orders", query: orderListQuerySchema, response: orderPageSchema },
    { path: '/apps/:appId/orders/:orderId/callbacks', summary: "A legacy order's callback attempts", params: { orderId: orderIdParamSchema }, response: callbackAttemptListSchema },
  ]),
  {
    method: 'post',
    path: `${MERCHANT}/apps/:appId/payments/:paymentId/refunds`,
    tag: 'Dashboard',
    summary: 'Refund a completed payment from the dashboard (as the Admin key does; idempotent per Idempotency-Key)',
    security: 'bearer',
    params: { appId: appIdSchema, paymentId: paymentIdParamSchema },
    headers: { 'Idempotency-Key': idempotencyKeySchema },
    body: createRefundBodySchema,
    success: [200, 201],
    response: refundResourceSchema,
    errors: 'standard',
  },
  {
    method: 'post',
    path: `${MERCHANT}/apps/:appId/payments/:paymentId/accept`,
    tag: 'Dashboard',
    summary: 'Accept a payment collecting with less than its amount as paid, from the dashboard (as the Admin key does)',
    security: 'bearer',
    params: { appId: appIdSchema, paymentId: paymentIdParamSchema },
    success: [200],
    response: acceptedPaymentSchema,
    errors: 'standard',
  },

  { method: 'post', path: LEGACY_ORDERS_PATH, tag: 'Legacy orders', summary: 'Create an order (idempotent per merchant_order_id)', security: 'legacyToken', body: createOrderBodySchema, success: [200, 201], errors: 'legacy', links: ORDER_LINKS },
  { method: 'get', path: `${LEGACY_ORDERS_PATH}/:id`, tag: 'Legacy orders', summary: 'Read an order and its callback log', security: 'legacyToken', params: { id: orderIdParamSchema }, success: [200], errors: 'legacy' },

  ...hostedPage({ path: '/pay/order/:orderId', param: 'orderId', page: "An order's payment page", state: "An order's page state" }),
  {
    method: 'post',
    path: '/pay/order/:orderId/currency',
    tag: 'Hosted payment page',
    summary: 'Choose the currency an order is paid in',
    params: { orderId: z.string() },
    body: chooseCurrencyBodySchema,
    success: [200],
    errors: 'standard',
  },
  { method: 'post', path: '/pay/order/:orderId/cancel', tag: 'Hosted payment page', summary: 'Cancel an unpaid order', params: { orderId: z.string() }, success: [200], errors: 'standard' },
  ...hostedPage({ path: '/pay/:id', param: 'id', page: "A payment's page", state: "A payment's page state" }),
  {
    method: 'get',
    path: '/pay/:id/wallet',
    tag: 'Hosted payment page',
    summary: 'What a wallet connected to the page is asked to send (EIP-1193 or the Solana Wallet Standard); 409 when the payment takes no wallet payment now',
    params: { id: z.string() },
    success: [200],
    response: payWalletSchema,
    errors: 'standard',
  },
  {
    method: 'get',
    path: '/pay/:id/refunds/:refundId/claim/:token',
    tag: 'Hosted payment page',
    summary: "A refund's claim page: its amount, token and network, and the form for the customer's address",
    params: { id: z.string(), refundId: z.string(), token: z.string() },
    success: [200],
    html: true,
    errors: 'standard',
  },
  {
    method: 'post',
    path: '/pay/:id/refunds/:refundId/claim/:token',
    tag: 'Hosted payment page',
    summary: "Claim a refund: the customer's address on the payment's source chain (once; 409 when claimed already, 404 for a link that does not match)",
    params: { id: z.string(), refundId: z.string(), token: z.string() },
    body: claimRefundBodySchema,
    success: [200],
    response: refundClaimSchema,
    errors: 'standard',
  },
];

/**
 * A request's accepted form (`input`: before defaults and transforms), or an answer's written form (`output`);
 * refinements JSON Schema cannot say are left to the server.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output' = 'input'): JsonSchema {
  // The dialect is the document's own (OpenAPI 3.1 is JSON Schema 2020-12), not restated per schema.
  const result: JsonSchema = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
  delete result.$schema;
  return result;
}

const errorDetail = { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } }, required: ['path', 'message'] };
const legacyErrorDetail = { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } }, required: ['field', 'message'] };
const ERROR_BODIES: Record<Operation['errors'], JsonSchema> = {
  standard: {
    type: 'object',
    properties: { error: { type: 'string' }, message: { type: 'string' }, details: { type: 'array', items: errorDetail } },
    required: ['error', 'message'],
  },
  legacy: {
    type: 'object',
    properties: { status: { type: 'integer' }, error: { type: 'string' }, message: { type: 'string' }, details: { type: 'array', items: legacyErrorDetail } },
    required: ['error', 'message'],
  },
};
const SECURITY_SCHEMES: Record<Security, JsonSchema> = {
  apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An Orders or Admin key of a merchant app' },
  bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A dashboard token from POST /v1/merchant-api/auth/token' },
  session: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: "The dashboard's session, set (HttpOnly) by POST /v1/merchant-api/auth/session" },
  legacyToken: { type: 'apiKey', in: 'header', name: 'token', description: "The merchant app's key, as the legacy interface sends it" },
};

const openApiPath = (koaPath: string): string => (koaPath.replace(/:([A-Za-z]+)/g, '{$1}') || '/');

const operationId = (op: Operation): string =>
  `${op.method}${op.path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}` || op.method;

/** The success answer's links, each to an operation of OPERATIONS named `'<method> <path>'`. */
function linksObject(links: NonNullable<Operation['links']>): JsonSchema {
  return Object.fromEntries(
    Object.entries(links).map(([target, parameters]) => {
      const linked = OPERATIONS.find((op) => `${op.method} ${op.path}` === target);
      if (!linked) throw new Error(`OpenAPI link to an unknown operation: ${target}`);
      const id = operationId(linked);
      return [id, { operationId: id, parameters }];
    }),
  );
}

function operationObject(op: Operation, chains: ChainList): JsonSchema {
  const body = typeof op.body === 'function' ? op.body(chains) : op.body;
  const parameters = [
    ...Object.entries(op.params ?? {}).map(([name, schema]) => ({ name, in: 'path', required: true, schema: jsonSchema(schema) })),
    ...Object.entries(op.headers ?? {}).map(([name, schema]) => ({ name, in: 'header', required: true, schema: jsonSchema(schema) })),
    ...Object.entries(op.query?.shape ?? {}).map(([name, schema]) => ({
      name,
      in: 'query',
      required: !(schema as z.ZodType).safeParse(undefined).success,
      schema: jsonSchema(schema as z.ZodType),
    })),
  ];
  const content = (schema: JsonSchema) => ({ 'application/json': { schema } });
  const responses: Record<string, JsonSchema> = {};
  for (const status of op.success) {
    responses[String(status)] = op.html
      ? { description: 'The page', content: { 'text/html': { schema: { type: 'string' } } } }
      : status === 204
        ? { description: 'No content' }
        : {
            description: status === 201 ? 'Created' : status === 202 ? 'Accepted' : 'OK',
            content: {
              ...content(op.response ? jsonSchema(op.response, 'output') : { type: 'object' }),
              ...(op.csv ? { 'text/csv': { schema: { type: 'string' } } } : {}),
            },
            ...(op.links ? { links: linksObject(op.links) } : {}),
          };
  }
  if (op.html) responses['404'] = { description: 'Not found (a page)', content: { 'text/html': { schema: { type: 'string' } } } };
  responses.default = { description: 'A client error (4xx), or 503 with Retry-After while a service Payrail depends on is away', content: content(ERROR_BODIES[op.errors]) };
  return {
    operationId: operationId(op),
    tags: [op.tag],
    summary: op.summary,
    ...(op.security ? { security: [op.security].flat().map((scheme) => ({ [scheme]: [] })) } : {}),
    ...(parameters.length ? { parameters } : {}),
    // An absent body reaches the route as `{}`: it is required where the schema refuses that.
    ...(body ? { requestBody: { required: !body.safeParse({}).success, content: content(jsonSchema(body)) } } : {}),
    responses,
  };
}

/** The document of one server: `chains` are the chains and tokens it serves (`GET {payment_api_url}/chains`). */
export function openApiDocument(options: { serverUrl: string; chains: ChainList }): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const op of OPERATIONS) (paths[openApiPath(op.path)] ??= {})[op.method] = operationObject(op, options.chains);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payrail',
      version: '1',
      description: 'Stablecoin and crypto payments: the payment interface, the merchant service, legacy orders and the hosted payment page.',
    },
    servers: [{ url: options.serverUrl }],
    tags: [{ name: 'Payments' }, { name: 'Merchant' }, { name: 'Dashboard' }, { name: 'Legacy orders' }, { name: 'Hosted payment page' }],
    paths,
    components: { securitySchemes: SECURITY_SCHEMES },
  };
}
