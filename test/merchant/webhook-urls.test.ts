import assert from 'node:assert/strict';
import type { Stack } from '../../tools/stack/stack';
import { assertErrorEnvelope } from '../api/helpers';
import { request, type HttpResult } from '../support/http';
import { connectServices, startExtraApi, type ExtraApi, type StackServices } from '../support/services';
import { getStack } from '../support/stack';
import { bearer, login, register, registerBody, type Session } from './helpers';

/** Refused whatever the operator allows. */
const NOT_HTTPS: Array<[string, RegExp]> = [
  ['http://93.184.215.14/payrail', /https:\/\//],
  ['ftp://93.184.215.14/payrail', /https:\/\//],
  ['//93.184.215.14/payrail', /absolute URL/],
  ['payrail.example/hooks', /absolute URL/],
  ['https://user:secret@93.184.215.14/payrail', /credentials/],
];

const PRIVATE = /private, loopback or link-local/;
/** Refused in production (private networks not allowed): each is, or resolves to, a non-public address. */
const PRIVATE_TARGETS: Array<[string, RegExp]> = [
  ['https://127.0.0.1/payrail', PRIVATE],
  ['https://127.1/payrail', PRIVATE],
  ['https://2130706433/payrail', PRIVATE],
  ['https://0x7f000001/payrail', PRIVATE],
  ['https://0.0.0.0/payrail', PRIVATE],
  ['https://localhost/payrail', PRIVATE],
  ['https://LOCALHOST:8443/payrail', PRIVATE],
  ['https://10.0.0.1/payrail', PRIVATE],
  ['https://172.16.5.4/payrail', PRIVATE],
  ['https://192.168.1.10/payrail', PRIVATE],
  ['https://100.64.0.1/payrail', PRIVATE],
  ['https://169.254.169.254/latest/meta-data/', PRIVATE],
  ['https://[::1]/payrail', PRIVATE],
  ['https://[::ffff:127.0.0.1]/payrail', PRIVATE],
  ['https://[::ffff:169.254.169.254]/payrail', PRIVATE],
  ['https://[fd00::1]/payrail', PRIVATE],
  ['https://[fe80::1]/payrail', PRIVATE],
  ['https://[::7f00:1]/payrail', PRIVATE],
  ['https://[64:ff9b::7f00:1]/payrail', PRIVATE],
  ['https://[2002:7f00:1::]/payrail', PRIVATE],
  ['https://payrail-test.invalid/payrail', /does not resolve/],
];

describe('merchant service: webhook URL policy at registration and update', function () {
  this.timeout(60_000);
  let stack: Stack;
  let services: StackServices;
  let production: ExtraApi;
  let session: Session;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    // The shared stack allows private targets for its loopback receivers; production settings do not.
    production = await startExtraApi(stack, services, { webhookAllowPrivateNetworks: false });
    session = await login(production.merchantApiUrl, stack.info.mailSinkUrl!);
  });
  after(async () => {
    await production?.close();
    await services?.close();
  });

  const assertRefused = (res: HttpResult, url: string, reason: RegExp) => {
    assert.equal(res.status, 400, `${url}: ${res.text}`);
    const error = assertErrorEnvelope(res, url);
    assert.equal(error.error, 'invalid_request');
    const detail = error.details?.find((d) => d.path === 'webhookUrl');
    assert.ok(detail, `${url}: details name webhookUrl: ${res.text}`);
    assert.match(detail.message, reason, url);
  };

  it('refuses non-https and private, loopback and link-local targets at registration', async () => {
    for (const [url, reason] of [...NOT_HTTPS, ...PRIVATE_TARGETS]) {
      const res = await request(`${production.merchantApiUrl}/register`, { headers: bearer(session.token), body: registerBody({ webhookUrl: url }) });
      assertRefused(res, url, reason);
    }
    const apps = await request(`${production.merchantApiUrl}/apps`, { headers: bearer(session.token) });
    assert.deepEqual(apps.body, { data: [] }, 'no refused registration created an app');
  });

  it('refuses the same URLs on update and leaves the app unchanged; a public https URL is accepted', async () => {
    const app = await register(production.merchantApiUrl, session.token, registerBody({ webhookUrl: 'https://93.184.215.14/payrail' }));
    assert.equal(app.webhookUrl, 'https://93.184.215.14/payrail');
    for (const [url, reason] of [...NOT_HTTPS, ...PRIVATE_TARGETS]) {
      const res = await request(`${production.merchantApiUrl}/apps/${app.appId}/webhook`, { method: 'PUT', headers: bearer(session.token), body: { webhookUrl: url } });
      assertRefused(res, url, reason);
    }
    const row = (await services.knex('merchant_apps').where({ app_id: app.appId }).first()) as { webhook_url: string };
    assert.equal(row.webhook_url, 'https://93.184.215.14/payrail');
    const moved = await request(`${production.merchantApiUrl}/apps/${app.appId}/webhook`, {
      method: 'PUT',
      headers: bearer(session.token),
      body: { webhookUrl: 'https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:8443/hooks?source=payrail' },
    });
    assert.equal(moved.status, 200, moved.text);
    assert.equal((moved.body as { webhookUrl: string }).webhookUrl, 'https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:8443/hooks?source=payrail');
  });

  it('with private networks allowed (dev, tests) loopback targets pass, but https is still required', async () => {
    const dev = stack.info.merchantApiUrl;
    const devSession = await login(dev, stack.info.mailSinkUrl!);
    for (const url of ['https://127.0.0.1:9443/payrail', 'https://localhost:9443/payrail', 'https://[::1]:9443/payrail']) {
      const app = await register(dev, devSession.token, registerBody({ webhookUrl: url }));
      assert.equal(app.webhookUrl, new URL(url).href);
    }
    for (const [url, reason] of NOT_HTTPS) {
      assertRefused(await request(`${dev}/register`, { headers: bearer(devSession.token), body: registerBody({ webhookUrl: url }) }), url, reason);
    }
  });
});
