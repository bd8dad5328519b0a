import assert from 'node:assert/strict';
import Koa from 'koa';
import { DatabaseError } from 'pg';
import request from 'supertest';
import { errorMiddleware } from '../../api/errors';
import { createKnex } from '../../db/connection';
import { createLogger } from '../../lib/logger';
import { freePort } from '../../tools/stack/ports';

/** An app whose one route fails the way `fail` does, behind the API's error middleware. */
function failingWith(fail: () => Promise<unknown>) {
  const app = new Koa();
  app.use(errorMiddleware(createLogger('silent', 'test')));
  app.use(async () => {
    await fail();
  });
  return app.callback();
}

describe('a dependency that is away is a 503 with Retry-After, not a 500', () => {
  it('PostgreSQL refusing connections', async () => {
    const db = createKnex(`postgres://payrail:payrail@127.0.0.1:${await freePort()}/payrail`, { max: 1 });
    try {
      const res = await request(failingWith(() => db.raw('select 1'))).post('/v1/payment-api');
      assert.equal(res.status, 503);
      assert.equal(res.headers['retry-after'], '2');
      assert.equal((res.body as { error: string }).error, 'service_unavailable');
    } finally {
      await db.destroy();
    }
  });

  it('PostgreSQL shutting down or starting up (SQLSTATE 57P01, 57P03)', async () => {
    for (const code of ['57P01', '57P03']) {
      const err = Object.assign(new DatabaseError('the database system is shutting down', 0, 'error'), { code });
      const res = await request(failingWith(() => Promise.reject(err))).get('/v1/payment-api/x');
      assert.equal(res.status, 503, code);
      assert.equal((res.body as { error: string }).error, 'service_unavailable');
    }
  });

  it('an error of the code itself stays a 500 that shows nothing of it', async () => {
    const res = await request(failingWith(() => Promise.reject(new TypeError('secret detail')))).get('/');
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { error: 'internal_error', message: 'internal error' });
  });

  it('a query PostgreSQL refuses as wrong stays a 500', async () => {
    const err = Object.assign(new DatabaseError('syntax error at or near "x"', 0, 'error'), { code: '42601' });
    const res = await request(failingWith(() => Promise.reject(err))).get('/');
    assert.equal(res.status, 500);
  });
});
