/** docs/api.md, "Every request" and "GET /user", through real HTTP: envelope, order of checks, keys, scopes, plans. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BODY_LIMIT } from '../../src/http/app.ts';
import { KEYS, type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';

forEachDialect('every request', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  test('GET /user answers the key owner with the settings name', async () => {
    const res = await call(t.app, 'GET', '/user', { key: KEYS.aliceAll });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { success: true, name: 'Alice Meyer', email: 'alice@example.com' });
  });

  test('/user name falls back to the identity-provider name, then the e-mail local part', async () => {
    const bob = await call(t.app, 'GET', '/user', { key: KEYS.bob });
    assert.deepEqual(bob.json, { success: true, name: 'Bob Stone', email: 'bob@example.com' });
    await t.storage.db.updateTable('users').set({ plan: 'core' }).where('id', '=', 'u_carol').execute();
    const carol = await call(t.app, 'GET', '/user', { key: KEYS.carolFree });
    assert.deepEqual(carol.json, { success: true, name: 'carol.jones', email: 'carol.jones@example.com' });
    await t.storage.db.updateTable('users').set({ plan: 'free' }).where('id', '=', 'u_carol').execute();
  });

  test("a key never reads another user's profile", async () => {
    const alice = await call(t.app, 'GET', '/user', { key: KEYS.aliceReadOnly });
    const bob = await call(t.app, 'GET', '/user', { key: KEYS.bob });
    assert.equal(alice.json.email, 'alice@example.com');
    assert.equal(bob.json.email, 'bob@example.com');
  });

  test('unknown path is 404 Not Found in the envelope, even without a key', async () => {
    const res = await call(t.app, 'GET', '/nothing-here');
    assert.equal(res.status, 404);
    assert.deepEqual(res.json, { success: false, error: 'Not Found', message: 'Not Found' });
  });

  for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const) {
    test(`${method} /user is 405 Method Not Allowed, before the key check`, async () => {
      const res = await call(t.app, method, '/user');
      assert.equal(res.status, 405);
      if (method !== 'HEAD')
        assert.deepEqual(res.json, { success: false, error: 'Method Not Allowed', message: 'Method Not Allowed' });
    });
  }

  test('no key: 401 Missing API key', async () => {
    const res = await call(t.app, 'GET', '/user');
    assert.equal(res.status, 401);
    assert.deepEqual(res.json, { success: false, error: 'Missing API key', message: 'Missing API key' });
  });

  test('unknown key: 401 Invalid API key', async () => {
    const res = await call(t.app, 'GET', '/user', { key: 'dbk_not_a_real_key_at_all_000000' });
    assert.deepEqual(
      [res.status, res.json],
      [401, { success: false, error: 'Invalid API key', message: 'Invalid API key' }],
    );
  });

  test('a revoked key is 401 Invalid API key', async () => {
    const res = await call(t.app, 'GET', '/user', { key: KEYS.daveRevoked });
    assert.deepEqual(
      [res.status, res.json],
      [401, { success: false, error: 'Invalid API key', message: 'Invalid API key' }],
    );
  });

  test('a key in the query string or Authorization header is ignored (401)', async () => {
    const query = await call(t.app, 'GET', `/user?api_key=${KEYS.aliceAll}&x-api-key=${KEYS.aliceAll}`);
    assert.deepEqual([query.status, query.json.error], [401, 'Missing API key']);
    const bearer = await call(t.app, 'GET', '/user', { headers: { authorization: `Bearer ${KEYS.aliceAll}` } });
    assert.deepEqual([bearer.status, bearer.json.error], [401, 'Missing API key']);
  });

  test('missing scope: 403 naming the scope', async () => {
    const { status, json } = await call(t.app, 'GET', '/user', { key: KEYS.aliceAll });
    assert.equal(status, 200, JSON.stringify(json));
    await t.storage.db
      .updateTable('api_keys')
      .set({ scopes: 'reports:read' })
      .where('id', '=', 'key_alice_ro')
      .execute();
    const res = await call(t.app, 'GET', '/user', { key: KEYS.aliceReadOnly });
    await t.storage.db
      .updateTable('api_keys')
      .set({ scopes: 'projects:read user:read' })
      .where('id', '=', 'key_alice_ro')
      .execute();
    assert.deepEqual(
      [res.status, res.json],
      [
        403,
        {
          success: false,
          error: 'API key missing required scope: user:read',
          message: 'API key missing required scope: user:read',
        },
      ],
    );
  });

  test('free plan: 403 on /user after the scope check', async () => {
    const res = await call(t.app, 'GET', '/user', { key: KEYS.carolFree });
    assert.deepEqual(
      [res.status, res.json],
      [
        403,
        {
          success: false,
          error: 'This endpoint requires the Core plan or higher.',
          message: 'This endpoint requires the Core plan or higher.',
        },
      ],
    );
  });

  test('authenticated responses carry RateLimit-* headers', async () => {
    const res = await call(t.app, 'GET', '/user', { key: KEYS.bob });
    assert.equal(res.headers['ratelimit-limit'], '10000');
    assert.ok(Number(res.headers['ratelimit-remaining']) < 10000);
    assert.ok(Number(res.headers['ratelimit-reset']) >= 1 && Number(res.headers['ratelimit-reset']) <= 60);
  });

  test('the key records when it was last used, and is stored only as a hash', async () => {
    await call(t.app, 'GET', '/user', { key: KEYS.aliceAll });
    await new Promise((r) => setTimeout(r, 50));
    const row = await t.storage.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', 'key_alice_all')
      .executeTakeFirstOrThrow();
    assert.ok(row.last_used_at !== null);
    assert.match(row.key_hash, /^[0-9a-f]{64}$/);
    const everything = JSON.stringify(await t.storage.db.selectFrom('api_keys').selectAll().execute());
    assert.ok(!everything.includes(KEYS.aliceAll));
  });

  test('/healthz and /readyz answer without a key', async () => {
    assert.equal((await call(t.app, 'GET', '/healthz')).status, 200);
    const ready = await call(t.app, 'GET', '/readyz');
    assert.deepEqual([ready.status, ready.json.database], [200, dialect]);
  });
});

forEachDialect('bodies', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
    // A JSON route of the foundation: the envelope rules hold for every POST route.
    t.app;
  });
  after(() => t.close());

  test('malformed JSON is 400 Malformed JSON body', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/report',
      headers: { 'x-api-key': KEYS.aliceAll, 'content-type': 'application/json' },
      payload: '{"a":',
    });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), { success: false, error: 'Malformed JSON body', message: 'Malformed JSON body' });
  });

  test('a body over 1 MiB is 413 Request body too large', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/report',
      headers: { 'x-api-key': KEYS.aliceAll, 'content-type': 'application/json' },
      payload: JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT) }),
    });
    assert.equal(res.statusCode, 413);
    assert.deepEqual(res.json(), {
      success: false,
      error: 'Request body too large',
      message: 'Request body too large',
    });
  });

  test('a body over 1 MiB to an unknown path is 404, to an unsupported method 405 (docs/api.md, "Every request")', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT) });
    for (const key of [KEYS.aliceAll, undefined]) {
      const headers = { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) };
      const unknown = await t.app.inject({ method: 'POST', url: '/nope', headers, payload: big });
      assert.deepEqual(
        [unknown.statusCode, unknown.json()],
        [404, { success: false, error: 'Not Found', message: 'Not Found' }],
      );
      for (const [method, url] of [
        ['PUT', '/projects'],
        ['POST', '/user'],
      ] as const) {
        const res = await t.app.inject({ method, url, headers, payload: big });
        assert.deepEqual(
          [res.statusCode, res.json()],
          [405, { success: false, error: 'Method Not Allowed', message: 'Method Not Allowed' }],
          `${method} ${url}`,
        );
        assert.ok(res.headers.allow, 'with its Allow header');
      }
    }
  });

  test('a non-JSON content type is 415 in the envelope', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/report',
      headers: { 'x-api-key': KEYS.aliceAll, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    assert.equal(res.statusCode, 415);
    assert.equal(res.json().success, false);
    assert.match(res.json().error, /Unsupported Media Type/);
  });

  test('JSON bodies are not coerced: a number where a string belongs is a 400 naming the field', async () => {
    const res = await call(t.app, 'POST', '/projects', { key: KEYS.aliceAll, body: { name: 5 } });
    assert.deepEqual(
      [res.status, res.json],
      [400, { success: false, error: 'name must be of type string', message: 'name must be of type string' }],
    );
    const list = await call(t.app, 'GET', '/projects', { key: KEYS.aliceAll });
    assert.ok(!list.json.projects.some((p: { name: string }) => p.name === '5'));
  });

  test('query strings are coerced: includeArchived=true is a boolean, anything else a 400', async () => {
    assert.equal((await call(t.app, 'GET', '/projects?includeArchived=true', { key: KEYS.aliceAll })).status, 200);
    const bad = await call(t.app, 'GET', '/projects?includeArchived=yes', { key: KEYS.aliceAll });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error, /includeArchived/);
  });

  test('a POST without a body is handled as {}; a JSON null body is a 400', async () => {
    const created = await t.app.inject({ method: 'POST', url: '/projects', headers: { 'x-api-key': KEYS.aliceAll } });
    assert.equal(created.statusCode, 201);
    assert.match(created.json().project.name, /^New Project \d{4}-\d{2}-\d{2}$/);
    const res = await t.app.inject({
      method: 'POST',
      url: '/projects',
      headers: { 'x-api-key': KEYS.aliceAll, 'content-type': 'application/json' },
      payload: 'null',
    });
    assert.deepEqual(
      [res.statusCode, res.json()],
      [400, { success: false, error: 'body must be of type object', message: 'body must be of type object' }],
    );
  });

  test('401 comes before 400: malformed JSON without a key is 401', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/report',
      headers: { 'content-type': 'application/json' },
      payload: '{',
    });
    assert.equal(res.statusCode, 401);
  });
});

forEachDialect('rate limits', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { config: { rateLimitPerMinute: 3, authFailuresPerMinute: 2 } });
  });
  after(() => t.close());

  test('over the per-key budget: 429 rate_limited with retryAfterSec and Retry-After', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await call(t.app, 'GET', '/user', { key: KEYS.bob })).status, 200);
    const res = await call(t.app, 'GET', '/user', { key: KEYS.bob });
    assert.equal(res.status, 429);
    assert.equal(res.json.success, false);
    assert.equal(res.json.error, 'rate_limited');
    assert.ok(Number.isInteger(res.json.retryAfterSec) && res.json.retryAfterSec >= 1);
    assert.equal(res.headers['retry-after'], String(res.json.retryAfterSec));
    assert.equal(res.headers['ratelimit-remaining'], '0');
    // Another key has its own budget.
    assert.equal((await call(t.app, 'GET', '/user', { key: KEYS.aliceAll })).status, 200);
  });

  test('the budget refills when the window ends', async () => {
    t.setNow(Date.parse('2026-11-22T12:01:01Z'));
    assert.equal((await call(t.app, 'GET', '/user', { key: KEYS.bob })).status, 200);
  });

  test('failed key attempts are limited per client address', async () => {
    for (let i = 0; i < 2; i++) {
      assert.equal((await call(t.app, 'GET', '/user', { key: `dbk_guess_${i}_xxxxxxxxxxxxxxxx` })).status, 401);
    }
    const res = await call(t.app, 'GET', '/user', { key: 'dbk_guess_3_xxxxxxxxxxxxxxxx' });
    assert.equal(res.status, 429);
    assert.equal(res.json.error, 'rate_limited');
    assert.equal(res.headers['retry-after'], String(res.json.retryAfterSec));
    // Until the window ends the address learns nothing about any key, a valid one included.
    const valid = await call(t.app, 'GET', '/user', { key: KEYS.aliceAll });
    assert.deepEqual([valid.status, valid.json.error], [429, 'rate_limited']);
    t.setNow(Date.parse('2026-11-22T12:02:02Z'));
    assert.equal(
      (await call(t.app, 'GET', '/user', { key: KEYS.aliceAll })).status,
      200,
      'served again after the window',
    );
  });
});

forEachDialect('key cache', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { config: { keyCacheMs: 2000 } });
  });
  after(() => t.close());

  test('a revoked key stops working once the cache time has passed', async () => {
    assert.equal((await call(t.app, 'GET', '/user', { key: KEYS.bob })).status, 200);
    await t.storage.db.updateTable('api_keys').set({ revoked: 1 }).where('id', '=', 'key_bob').execute();
    t.setNow(Date.parse('2026-11-22T12:00:02.001Z'));
    const res = await call(t.app, 'GET', '/user', { key: KEYS.bob });
    assert.deepEqual([res.status, res.json.error], [401, 'Invalid API key']);
  });

  test('a team membership given up reaches team reports once the cache time has passed', async () => {
    const cachedAt = Date.parse('2026-11-22T13:00:00Z');
    const body = {
      dateRange: { from: cachedAt - 7 * 86_400_000, to: cachedAt },
      aggregationLevel: 'day',
      teamIds: ['t_eng'],
    };
    t.setNow(cachedAt);
    assert.equal((await call(t.app, 'POST', '/report', { key: KEYS.aliceAll, body })).status, 200);
    await t.storage.db
      .updateTable('team_members')
      .set({ status: 'inactive' })
      .where('team_id', '=', 't_eng')
      .where('user_id', '=', 'u_alice')
      .execute();
    try {
      t.setNow(cachedAt + 2001);
      const res = await call(t.app, 'POST', '/report', { key: KEYS.aliceAll, body });
      assert.deepEqual([res.status, res.json.error], [400, 'Unknown team id: "t_eng"']);
    } finally {
      await t.storage.db
        .updateTable('team_members')
        .set({ status: 'active' })
        .where('team_id', '=', 't_eng')
        .where('user_id', '=', 'u_alice')
        .execute();
    }
  });

  test('an unknown key is never cached: a key created afterwards works at once', async () => {
    const key = 'dbk_created_later_0123456789abcdef';
    assert.equal((await call(t.app, 'GET', '/user', { key })).status, 401);
    const { hashApiKey } = await import('../../src/services/api-keys.ts');
    await t.storage.db
      .insertInto('api_keys')
      .values({
        id: 'key_later',
        user_id: 'u_alice',
        name: 'later',
        key_hash: hashApiKey(key),
        scopes: 'user:read',
        revoked: 0,
        created_at: 0,
        last_used_at: null,
      })
      .execute();
    assert.equal((await call(t.app, 'GET', '/user', { key })).status, 200);
  });
});
