/**
 * docs/api.md, "Every request": every failure body is `{success: false, error, message}` with
 * `message` the same text as `error`, whoever answers (a route, authentication, the rate limit,
 * Fastify before routing, Node before Fastify).
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { BODY_LIMIT, buildApp } from '../../src/http/app.ts';
import { MemoryRateLimiter } from '../../src/http/rate-limit.ts';
import { openStorage } from '../../src/storage/database.ts';
import { KEYS, type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';

const failure = (error: string) => ({ success: false, error, message: error });
const json = { 'content-type': 'application/json' };

/** Sends raw bytes to a listening server and returns the status line's code, the head and the body. */
async function rawRequest(port: number, request: string): Promise<{ status: number; head: string; body: string }> {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(request);
  await closed;
  return parseResponse(Buffer.concat(chunks).toString('utf8'));
}

function parseResponse(text: string): { status: number; head: string; body: string } {
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  return { status: Number(head.split(' ')[1]), head, body: end < 0 ? '' : text.slice(end + 4) };
}

forEachDialect('the failure envelope', (dialect) => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await createTestApp(dialect);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  after(() => t.close());

  const cases: { name: string; status: number; error: string; request: () => ReturnType<typeof call> }[] = [
    { name: 'malformed JSON', status: 400, error: 'Malformed JSON body', request: () => call(t.app, 'POST', '/report', { key: KEYS.aliceAll, body: '{"a":', headers: json }) },
    { name: 'a field of the wrong type', status: 400, error: 'name must be of type string', request: () => call(t.app, 'POST', '/projects', { key: KEYS.aliceAll, body: { name: 5 } }) },
    { name: 'a value out of range', status: 400, error: 'limit must be an integer between 1 and 50', request: () => call(t.app, 'POST', '/search', { key: KEYS.aliceAll, body: { query: 'rate', limit: 0 } }) },
    { name: 'broken percent-encoding', status: 400, error: 'Malformed URL: a path segment is not valid percent-encoding', request: () => call(t.app, 'GET', '/projects/%E0%A4%A', { key: KEYS.aliceAll }) },
    { name: 'no key', status: 401, error: 'Missing API key', request: () => call(t.app, 'GET', '/user') },
    { name: 'an unknown key', status: 401, error: 'Invalid API key', request: () => call(t.app, 'GET', '/user', { key: 'dbk_not_a_real_key_at_all_000000' }) },
    { name: 'a revoked key', status: 401, error: 'Invalid API key', request: () => call(t.app, 'GET', '/user', { key: KEYS.daveRevoked }) },
    { name: 'a missing scope', status: 403, error: 'API key missing required scope: reports:read', request: () => call(t.app, 'POST', '/report', { key: KEYS.aliceReadOnly, body: {} }) },
    { name: 'the free plan', status: 403, error: 'This endpoint requires the Core plan or higher.', request: () => call(t.app, 'GET', '/user', { key: KEYS.carolFree }) },
    { name: 'a refused delete', status: 403, error: 'Deleting projects is not available through the API.', request: () => call(t.app, 'DELETE', '/projects/p_nope', { key: KEYS.aliceAll }) },
    { name: 'an unknown path', status: 404, error: 'Not Found', request: () => call(t.app, 'GET', '/nothing-here') },
    { name: 'an unknown project', status: 404, error: 'Project not found', request: () => call(t.app, 'GET', '/projects/p_nope', { key: KEYS.aliceAll }) },
    { name: 'no summary yet', status: 404, error: 'No summary exists for this date and level yet.', request: () => call(t.app, 'GET', '/message?date=2020-01-01', { key: KEYS.aliceAll }) },
    { name: 'an unsupported method', status: 405, error: 'Method Not Allowed', request: () => call(t.app, 'PUT', '/user', { key: KEYS.aliceAll }) },
    { name: 'a body over 1 MiB', status: 413, error: 'Request body too large', request: () => call(t.app, 'POST', '/report', { key: KEYS.aliceAll, body: JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT) }), headers: json }) },
    { name: 'a path parameter over 16 KiB', status: 414, error: 'URI Too Long', request: () => call(t.app, 'GET', `/projects/${'p'.repeat(17 * 1024)}`, { key: KEYS.aliceAll }) },
    { name: 'a body that is not JSON', status: 415, error: 'Unsupported Media Type: send application/json', request: () => call(t.app, 'POST', '/report', { key: KEYS.aliceAll, body: 'hello', headers: { 'content-type': 'text/plain' } }) },
    { name: 'a compressed body', status: 415, error: 'Unsupported Content-Encoding: send the body uncompressed', request: () => call(t.app, 'POST', '/report', { key: KEYS.aliceAll, body: '{}', headers: { ...json, 'content-encoding': 'gzip' } }) },
  ];
  for (const c of cases) {
    test(`${c.status} for ${c.name}: message repeats error`, async () => {
      const res = await c.request();
      assert.deepEqual([res.status, res.json], [c.status, failure(c.error)], res.body);
    });
  }

  test('answers written before Fastify sees the request carry message too (400, 417, 431, 405 CONNECT)', async () => {
    const answers = [
      [400, 'Bad Request', await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n')],
      [400, 'Bad Request: missing Host header', await rawRequest(port, `GET /user HTTP/1.1\r\nX-API-Key: ${KEYS.aliceAll}\r\nConnection: close\r\n\r\n`)],
      [417, 'Expectation Failed', await rawRequest(port, `POST /search HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEYS.aliceAll}\r\nContent-Type: application/json\r\nExpect: foo\r\nContent-Length: 2\r\n\r\n{}`)],
      [431, 'Request Header Fields Too Large', await rawRequest(port, `GET /user?pad=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`)],
      [405, 'Method Not Allowed', await rawRequest(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')],
    ] as const;
    for (const [status, error, answer] of answers) {
      assert.deepEqual([answer.status, JSON.parse(answer.body)], [status, failure(error)], answer.head);
      assert.match(answer.head, /content-type: application\/json/i);
    }
  });

  test('500 says only Internal Server Error, in the envelope with message', async () => {
    // A table gone from under the server: the key lookup fails with SQL the caller must not see.
    await t.storage.db.schema.alterTable('api_keys').renameTo('api_keys_away').execute();
    try {
      const res = await call(t.app, 'GET', '/user', { key: KEYS.aliceAll });
      assert.deepEqual([res.status, res.json], [500, failure('Internal Server Error')]);
    } finally {
      await t.storage.db.schema.alterTable('api_keys_away').renameTo('api_keys').execute();
    }
    assert.equal((await call(t.app, 'GET', '/user', { key: KEYS.aliceAll })).status, 200);
  });
});

forEachDialect('the envelope of the rate limit and the health check', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { config: { rateLimitPerMinute: 1 } });
  });
  after(() => t.close());

  test('429 is {success, error: "rate_limited", message: "rate_limited", retryAfterSec}', async () => {
    assert.equal((await call(t.app, 'GET', '/user', { key: KEYS.bob })).status, 200);
    const res = await call(t.app, 'GET', '/user', { key: KEYS.bob });
    assert.equal(res.status, 429);
    assert.deepEqual(res.json, { ...failure('rate_limited'), retryAfterSec: Number(res.headers['retry-after']) });
    assert.ok(res.json.retryAfterSec >= 1);
  });

  test('503 Database unavailable from /readyz carries message', async () => {
    // Its own connection, closed: the probe's query fails.
    const storage = openStorage(t.database.url);
    const app = await buildApp({ storage, config: { ...loadConfig({}), databaseUrl: t.database.url, reportWorkers: 0 }, rateLimiter: new MemoryRateLimiter(), now: Date.now });
    try {
      assert.equal((await call(app, 'GET', '/readyz')).status, 200);
      await storage.close();
      const res = await call(app, 'GET', '/readyz');
      assert.deepEqual([res.status, res.json], [503, failure('Database unavailable')]);
    } finally {
      await app.close();
    }
  });
});
