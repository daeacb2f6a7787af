/**
 * Security headers on every answer, and CORS: off by default, on for the origins of
 * DAYBOOK_CORS_ORIGINS (docs/configuration.md), with preflights answered and the key header allowed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { KEYS, type TestApp, createTestApp } from '../helper.ts';

const DASH = 'https://dash.example.com';

describe('security headers and CORS', () => {
  let closed: TestApp;
  let open: TestApp;
  before(async () => {
    closed = await createTestApp('sqlite');
    open = await createTestApp('sqlite', { config: { corsOrigins: [DASH] } });
  });
  after(async () => {
    await closed.close();
    await open.close();
  });

  test('nosniff on every answer; no-store on authenticated ones, refusals included', async () => {
    for (const [url, key, store] of [
      ['/user', KEYS.aliceAll, 'no-store'],
      ['/user', 'dbk_wrong', 'no-store'],
      ['/healthz', undefined, undefined],
      ['/nowhere', undefined, undefined],
    ] as const) {
      const res = await closed.app.inject({ method: 'GET', url, headers: key ? { 'x-api-key': key } : {} });
      assert.equal(res.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(res.headers['cache-control'], store, url);
    }
  });

  test('CORS is off by default: no Access-Control headers, a preflight is 405', async () => {
    const get = await closed.app.inject({
      method: 'GET',
      url: '/user',
      headers: { origin: DASH, 'x-api-key': KEYS.aliceAll },
    });
    assert.equal(get.statusCode, 200);
    assert.equal(get.headers['access-control-allow-origin'], undefined);
    const preflight = await closed.app.inject({
      method: 'OPTIONS',
      url: '/report',
      headers: { origin: DASH, 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.statusCode, 405);
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
  });

  test('a listed origin gets its preflight answered and may send the key; others get nothing', async () => {
    const preflight = await open.app.inject({
      method: 'OPTIONS',
      url: '/report',
      headers: {
        origin: DASH,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, content-type',
      },
    });
    assert.equal(preflight.statusCode, 204, preflight.body);
    assert.equal(preflight.headers['access-control-allow-origin'], DASH);
    assert.match(String(preflight.headers['access-control-allow-headers']), /x-api-key/);
    assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
    const get = await open.app.inject({
      method: 'GET',
      url: '/user',
      headers: { origin: DASH, 'x-api-key': KEYS.aliceAll },
    });
    assert.equal(get.statusCode, 200);
    assert.equal(get.headers['access-control-allow-origin'], DASH);
    const other = await open.app.inject({
      method: 'GET',
      url: '/user',
      headers: { origin: 'https://evil.example.com', 'x-api-key': KEYS.aliceAll },
    });
    assert.equal(other.headers['access-control-allow-origin'], undefined);
    // Preflights make no path known: an unknown one is still 404, a known one's other method 405.
    assert.equal((await open.app.inject({ method: 'GET', url: '/nowhere' })).statusCode, 404);
    assert.equal(
      (await open.app.inject({ method: 'PUT', url: '/user', headers: { 'x-api-key': KEYS.aliceAll } })).statusCode,
      405,
    );
  });

  test('DAYBOOK_CORS_ORIGINS takes origins or *, and refuses anything else at start', () => {
    assert.deepEqual(loadConfig({}).corsOrigins, []);
    assert.deepEqual(loadConfig({ DAYBOOK_CORS_ORIGINS: `${DASH}, http://localhost:3000` }).corsOrigins, [
      DASH,
      'http://localhost:3000',
    ]);
    assert.deepEqual(loadConfig({ DAYBOOK_CORS_ORIGINS: '*' }).corsOrigins, ['*']);
    for (const bad of ['dash.example.com', 'https://dash.example.com/', 'ftp://x.example.com'])
      assert.throws(() => loadConfig({ DAYBOOK_CORS_ORIGINS: bad }), /DAYBOOK_CORS_ORIGINS must list origins/);
  });
});
