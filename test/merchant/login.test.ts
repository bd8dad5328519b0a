import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { freePort } from '../../tools/stack/ports';
import type { Stack } from '../../tools/stack/stack';
import { assertErrorEnvelope } from '../api/helpers';
import { request } from '../support/http';
import { sinkMessages } from '../support/mail';
import { connectServices, startExtraApi, type StackServices } from '../support/services';
import { getStack } from '../support/stack';
import { bearer, login, requestLoginCode, uniqueEmail } from './helpers';

/** A JWT's payload, without verifying it (the API under test does that). */
const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

describe('merchant service: developer login by e-mail code', function () {
  this.timeout(60_000);
  let stack: Stack;
  let services: StackServices;
  let api: string;
  let sink: string;

  before(async function () {
    this.timeout(300_000);
    stack = await getStack();
    services = await connectServices(stack);
    api = stack.info.merchantApiUrl;
    assert.ok(stack.info.mailSinkUrl, 'the test stack runs a mail sink');
    sink = stack.info.mailSinkUrl;
  });
  after(async () => services?.close());

  const exchange = (email: string, code: string, loginId: string) => request(`${api}/auth/token`, { body: { email, code, loginId } });
  const assertInvalidCode = async (email: string, code: string, loginId: string, label: string) => {
    const res = await exchange(email, code, loginId);
    assert.equal(res.status, 401, `${label}: ${res.text}`);
    assert.equal(assertErrorEnvelope(res, label).error, 'invalid_code', label);
  };

  it('mails a code to any address with the same 202, and the first login creates the developer', async () => {
    const email = uniqueEmail('first');
    const { code, loginId, mail } = await requestLoginCode(api, sink, email);
    assert.equal(mail.subject, 'Your Payrail login code');
    assert.match(mail.text, /expires in 10 minutes/);
    assert.equal(await services.knex('developers').where({ email }).first(), undefined, 'no developer before the code is verified');

    const res = await exchange(email, code, loginId);
    assert.equal(res.status, 200, res.text);
    const body = res.body as { token: string; expiresAt: string; developerId: string };
    assert.deepEqual(Object.keys(body).sort(), ['developerId', 'expiresAt', 'token']);
    const jwt = claims(body.token);
    assert.equal(jwt.iss, 'payrail');
    assert.equal(jwt.sub, body.developerId);
    assert.equal((jwt.exp as number) - (jwt.iat as number), 12 * 3600, 'valid 12 hours');
    assert.equal(new Date(body.expiresAt).getTime(), (jwt.exp as number) * 1000);
    assert.deepEqual(JSON.parse(Buffer.from(body.token.split('.')[0]!, 'base64url').toString()), { alg: 'HS256', typ: 'JWT' });
    const developer = (await services.knex('developers').where({ email }).first()) as { id: string } | undefined;
    assert.equal(developer?.id, body.developerId);

    // The same person logging in again, whatever the case of the address, is the same developer.
    const again = await login(api, sink, email.toUpperCase());
    assert.equal(again.developerId, body.developerId);
    const apps = await request(`${api}/apps`, { headers: bearer(again.token) });
    assert.equal(apps.status, 200, apps.text);
    assert.deepEqual(apps.body, { data: [] });

    // An address nobody has used answers exactly like a known one (each with the id of its own login).
    const known = await request<{ loginId: string }>(`${api}/auth/login-code`, { body: { email } });
    const unknown = await request<{ loginId: string }>(`${api}/auth/login-code`, { body: { email: uniqueEmail('unknown') } });
    assert.equal(known.status, 202);
    const withoutId = ({ loginId, ...rest }: { loginId: string }) => (assert.match(loginId, /^[0-9a-f-]{36}$/), rest);
    assert.deepEqual(withoutId(unknown.body), withoutId(known.body));
  });

  it('stores codes only as HMACs', async () => {
    const email = uniqueEmail('hashed');
    const { code } = await requestLoginCode(api, sink, email);
    const row = (await services.knex('login_codes').where({ email }).first()) as { code_hash: string; attempts: number };
    assert.match(row.code_hash, /^[0-9a-f]{64}$/);
    assert.ok(!row.code_hash.includes(code));
    assert.equal(row.attempts, 0);
  });

  it('refuses a wrong code, a used code, an expired code, a code out of attempts and a code of another login with 401 invalid_code', async () => {
    const email = uniqueEmail('codes');
    const { code, loginId } = await requestLoginCode(api, sink, email);
    const wrong = code === '000000' ? '000001' : '000000';
    await assertInvalidCode(email, wrong, loginId, 'wrong code');
    assert.equal((await exchange(email, code, loginId)).status, 200, 'a wrong guess leaves the right code usable');
    await assertInvalidCode(email, code, loginId, 'reused code');

    const expiring = await requestLoginCode(api, sink, email);
    await services.knex('login_codes').where({ email }).update({ expires_at: services.knex.raw(`now() - interval '1 second'`) });
    await assertInvalidCode(email, expiring.code, expiring.loginId, 'expired code');

    const guessed = await requestLoginCode(api, sink, email);
    const other = guessed.code === '999999' ? '999998' : '999999';
    for (let i = 1; i <= 3; i++) await assertInvalidCode(email, other, guessed.loginId, `wrong guess ${i}`);
    await assertInvalidCode(email, guessed.code, guessed.loginId, 'the right code after 3 wrong guesses');

    // A code counts only with the login that asked for it: another login's id, or the address of another, is refused.
    const mine = await requestLoginCode(api, sink, email);
    const theirs = await requestLoginCode(api, sink, uniqueEmail('theirs'));
    await assertInvalidCode(email, mine.code, theirs.loginId, "the right code with another login's id");
    await assertInvalidCode(email, mine.code, '00000000-0000-4000-8000-000000000000', 'the right code with an id nobody was given');
    assert.equal((await exchange(email, mine.code, mine.loginId)).status, 200, 'the code still logs in with its own login');

    await assertInvalidCode(uniqueEmail('nobody'), '123456', theirs.loginId, 'an address without any code');
  });

  it('a new code leaves the older one good until it is used or expires (nobody can void the code a developer types); a login ends them all', async () => {
    const email = uniqueEmail('newer');
    const older = await requestLoginCode(api, sink, email);
    const newer = await requestLoginCode(api, sink, email);
    assert.equal((await exchange(email, older.code, older.loginId)).status, 200, 'the older code still logs in');
    await assertInvalidCode(email, newer.code, newer.loginId, 'the newer code after a login with the older one');
    assert.equal((await sinkMessages(sink, email)).length, 2);
  });

  it('dashboard endpoints want a valid Bearer token: 401 missing_token / invalid_token', async () => {
    const { SignJWT } = await import('jose');
    const secret = new TextEncoder().encode(stack.env.PAYRAIL_JWT_SECRET);
    const developerId = (await login(api, sink)).developerId;
    const sign = (edit: (jwt: InstanceType<typeof SignJWT>) => InstanceType<typeof SignJWT>, key = secret) =>
      edit(new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(developerId).setIssuedAt()).sign(key);
    const valid = (jwt: InstanceType<typeof SignJWT>) => jwt.setIssuer('payrail').setAudience('payrail-dashboard').setExpirationTime('1h');

    assert.equal((await request(`${api}/apps`, { headers: bearer(await sign(valid)) })).status, 200, 'a well-formed token works');
    const cases: Array<[string, Record<string, string>, string]> = [
      ['no Authorization header', {}, 'missing_token'],
      ['Basic credentials', { authorization: 'Basic dXNlcjpwYXNz' }, 'missing_token'],
      ['Bearer without a token', { authorization: 'Bearer ' }, 'missing_token'],
      ['garbage token', bearer('not.a.jwt'), 'invalid_token'],
      ['another secret', bearer(await sign(valid, new TextEncoder().encode('x'.repeat(64)))), 'invalid_token'],
      ['expired', bearer(await sign((j) => j.setIssuer('payrail').setAudience('payrail-dashboard').setExpirationTime(Math.floor(Date.now() / 1000) - 60))), 'invalid_token'],
      ['another issuer', bearer(await sign((j) => j.setIssuer('someone').setAudience('payrail-dashboard').setExpirationTime('1h'))), 'invalid_token'],
      ['another audience', bearer(await sign((j) => j.setIssuer('payrail').setAudience('elsewhere').setExpirationTime('1h'))), 'invalid_token'],
      ['alg none', bearer(`${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: developerId, iss: 'payrail', aud: 'payrail-dashboard' })).toString('base64url')}.`), 'invalid_token'],
    ];
    for (const [label, headers, error] of cases) {
      const res = await request(`${api}/apps`, { headers });
      assert.equal(res.status, 401, `${label}: ${res.text}`);
      assert.equal(assertErrorEnvelope(res, label).error, error, label);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer\b/, `${label}: WWW-Authenticate`);
    }
  });

  it('answers bad login input with 400 naming the field, never 5xx', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['login-code', 'missing email', {}, 'email'],
      ['login-code', 'not an address', { email: 'not-an-email' }, 'email'],
      ['login-code', 'email as number', { email: 42 }, 'email'],
      ['login-code', 'overlong address', { email: `${'a'.repeat(250)}@x.test` }, 'email'],
      ['login-code', 'unknown field', { email: uniqueEmail('x'), password: 'hunter2' }, '(root)'],
      ['token', 'missing code', { email: uniqueEmail('x'), loginId: randomUUID() }, 'code'],
      ['token', '5-digit code', { email: uniqueEmail('x'), code: '12345', loginId: randomUUID() }, 'code'],
      ['token', 'code as number', { email: uniqueEmail('x'), code: 123456, loginId: randomUUID() }, 'code'],
      ['token', 'code with letters', { email: uniqueEmail('x'), code: '12a456', loginId: randomUUID() }, 'code'],
      ['token', 'missing loginId', { email: uniqueEmail('x'), code: '123456' }, 'loginId'],
      ['token', 'loginId not an id', { email: uniqueEmail('x'), code: '123456', loginId: 'abc' }, 'loginId'],
    ];
    for (const [endpoint, label, body, field] of cases) {
      const res = await request(`${api}/auth/${endpoint}`, { body });
      assert.equal(res.status, 400, `${label}: ${res.text}`);
      const error = assertErrorEnvelope(res, label);
      assert.equal(error.error, 'invalid_request');
      assert.ok(error.details?.some((d) => d.path === field), `${label}: details name ${field}: ${res.text}`);
    }
    const notJson = await request(`${api}/auth/login-code`, { rawBody: 'email=a@b.test', contentType: 'application/x-www-form-urlencoded' });
    assert.equal(notJson.status, 415);
    const broken = await request(`${api}/auth/token`, { rawBody: '{"email":' });
    assert.equal(broken.status, 400);
    assertErrorEnvelope(broken);
    const wrongMethod = await request(`${api}/auth/token`);
    assert.equal(wrongMethod.status, 405);
    assertErrorEnvelope(wrongMethod);
  });

  it('answers 400 naming email, not 503, when the mail server refuses the address for good', async () => {
    // 254 characters, which the schema takes; the mail sink (smtp-server) refuses paths over 253 with a 501.
    const email = `x@${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(55)}.test`;
    assert.equal(email.length, 254);
    const res = await request(`${api}/auth/login-code`, { body: { email } });
    assert.equal(res.status, 400, res.text);
    const error = assertErrorEnvelope(res);
    assert.equal(error.error, 'invalid_request');
    assert.deepEqual(error.details, [{ path: 'email', message: 'the mail server refuses this address; check it' }]);
  });

  it('answers 503 mail_unavailable when the mail server cannot be reached', async () => {
    const offline = await startExtraApi(stack, services, { smtpUrl: `smtp://127.0.0.1:${await freePort()}`, logLevel: 'fatal' });
    try {
      const res = await request(`${offline.merchantApiUrl}/auth/login-code`, { body: { email: uniqueEmail('offline') } });
      assert.equal(res.status, 503, res.text);
      assert.equal(assertErrorEnvelope(res).error, 'mail_unavailable');
    } finally {
      await offline.close();
    }
  });
});
