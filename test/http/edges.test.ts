/**
 * Requests at the edges of what a client can send: very long path segments, broken
 * percent-encoding, oversized headers, lists longer than a database takes as parameters, and
 * values of the wrong type for fields that take a string or null. Each is a 4xx in the
 * envelope (docs/api.md, "Every request"), never Fastify's own body or a 500.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { importDataset } from '../../src/dataset/import.ts';
import { migrate, openStorage } from '../../src/storage/database.ts';
import { DEFAULT_NOW, DIALECTS, EXAMPLE, KEYS, type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';

/** Sends raw bytes to a listening server and returns the status line's code and the body. */
async function rawRequest(port: number, request: string): Promise<{ status: number; headers: string; body: string }> {
  const socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk) => chunks.push(chunk));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => {});
  socket.write(request);
  await closed;
  const text = Buffer.concat(chunks).toString('utf8');
  const [head = '', body = ''] = text.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head, body };
}

forEachDialect('requests at the edges', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  test('a project id longer than 100 characters is an ordinary unknown id', async () => {
    const id = 'p'.repeat(5000);
    const read = await call(t.app, 'GET', `/projects/${id}`, { key: KEYS.aliceAll });
    assert.deepEqual(
      [read.status, read.json],
      [404, { success: false, error: 'Project not found', message: 'Project not found' }],
    );
    const removed = await call(t.app, 'DELETE', `/projects/${id}`, { key: KEYS.aliceAll });
    assert.deepEqual(
      [removed.status, removed.json],
      [
        403,
        {
          success: false,
          error: 'Deleting projects is not available through the API.',
          message: 'Deleting projects is not available through the API.',
        },
      ],
    );
    const noKey = await call(t.app, 'POST', `/projects/${id}`, { body: {} });
    assert.deepEqual(
      [noKey.status, noKey.json],
      [401, { success: false, error: 'Missing API key', message: 'Missing API key' }],
    );
    const put = await call(t.app, 'PUT', `/projects/${id}`, { key: KEYS.aliceAll });
    assert.deepEqual(
      [put.status, put.json],
      [405, { success: false, error: 'Method Not Allowed', message: 'Method Not Allowed' }],
    );
  });

  test('broken percent-encoding in a path is 400 in the envelope', async () => {
    for (const url of ['/projects/%E0%A4%A', '/nowhere/%E0%A4%A']) {
      const res = await call(t.app, 'GET', url, { key: KEYS.aliceAll });
      assert.deepEqual(
        [res.status, res.json],
        [
          400,
          {
            success: false,
            error: 'Malformed URL: a path segment is not valid percent-encoding',
            message: 'Malformed URL: a path segment is not valid percent-encoding',
          },
        ],
        url,
      );
    }
  });

  test('headers over 16 KiB and a request line that is not HTTP are answered in the envelope', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    const long = await rawRequest(
      port,
      `GET /user?pad=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEYS.aliceAll}\r\n\r\n`,
    );
    assert.equal(long.status, 431);
    assert.match(long.headers, /content-type: application\/json/i);
    assert.deepEqual(JSON.parse(long.body), {
      success: false,
      error: 'Request Header Fields Too Large',
      message: 'Request Header Fields Too Large',
    });
    const garbage = await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n');
    assert.equal(garbage.status, 400);
    assert.deepEqual(JSON.parse(garbage.body), { success: false, error: 'Bad Request', message: 'Bad Request' });
    // What Node answers before any route: an unknown expectation and a tunnel request.
    const expect = await rawRequest(
      port,
      `POST /search HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEYS.aliceAll}\r\nContent-Type: application/json\r\nExpect: foo\r\nContent-Length: 16\r\n\r\n{"query":"rate"}`,
    );
    assert.deepEqual(
      [expect.status, JSON.parse(expect.body)],
      [417, { success: false, error: 'Expectation Failed', message: 'Expectation Failed' }],
    );
    const hostless = await rawRequest(
      port,
      `GET /user HTTP/1.1\r\nX-API-Key: ${KEYS.aliceAll}\r\nConnection: close\r\n\r\n`,
    );
    assert.deepEqual(
      [hostless.status, JSON.parse(hostless.body)],
      [400, { success: false, error: 'Bad Request: missing Host header', message: 'Bad Request: missing Host header' }],
    );
    const http10 = await rawRequest(port, `GET /user HTTP/1.0\r\nX-API-Key: ${KEYS.aliceAll}\r\n\r\n`);
    assert.equal(http10.status, 200, 'HTTP/1.0 needs no Host');
    const tunnel = await rawRequest(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    assert.deepEqual(
      [tunnel.status, JSON.parse(tunnel.body)],
      [405, { success: false, error: 'Method Not Allowed', message: 'Method Not Allowed' }],
    );
    // The server goes on serving.
    assert.equal((await call(t.app, 'GET', '/user', { key: KEYS.aliceAll })).status, 200);
  });

  test('a JSON body is UTF-8: other bytes are Malformed JSON body, another charset 415, and nothing is stored', async () => {
    const send = (payload: Buffer, type = 'application/json') =>
      t.app.inject({
        method: 'POST',
        url: '/projects',
        headers: { 'x-api-key': KEYS.aliceAll, 'content-type': type },
        payload,
      });
    const invalid = await send(Buffer.from([...Buffer.from('{"name":"a'), 0xed, 0xa0, 0x80, ...Buffer.from('b"}')]));
    assert.deepEqual(
      [invalid.statusCode, invalid.json()],
      [400, { success: false, error: 'Malformed JSON body', message: 'Malformed JSON body' }],
    );
    const empty = await t.app.inject({
      method: 'POST',
      url: '/report',
      headers: { 'x-api-key': KEYS.aliceAll, 'content-type': 'application/json; charset=iso-8859-1' },
      payload: '',
    });
    assert.equal(empty.statusCode, 200, `an empty body is {} whatever its charset: ${empty.body}`);
    const latin1 = await send(Buffer.from('{"name":"café latin"}', 'latin1'), 'application/json; charset=iso-8859-1');
    assert.deepEqual(
      [latin1.statusCode, latin1.json()],
      [
        415,
        {
          success: false,
          error: 'Unsupported Media Type: send application/json in UTF-8',
          message: 'Unsupported Media Type: send application/json in UTF-8',
        },
      ],
    );
    const list = await call(t.app, 'GET', '/projects', { key: KEYS.aliceAll });
    assert.ok(
      !list.json.projects.some(
        (p: { name: string }) => p.name.startsWith('a') && p.name.endsWith('b') && p.name.length === 5,
      ),
    );
    assert.ok(!list.json.projects.some((p: { name: string }) => p.name.includes('latin')));
    const utf8 = await send(Buffer.from('{"name":"café utf8"}'), 'application/json; charset="UTF-8"');
    assert.deepEqual([utf8.statusCode, utf8.json().project?.name ?? utf8.json().name], [201, 'café utf8'], utf8.body);
  });

  test('a contributor list longer than the database takes as parameters is checked like a short one', async () => {
    const entries = Array.from({ length: 40_000 }, (_, i) => `nobody-${i}`);
    const res = await call(t.app, 'POST', '/projects/p_api', { key: KEYS.aliceAll, body: { contributorIds: entries } });
    assert.deepEqual(
      [res.status, res.json],
      [
        400,
        {
          success: false,
          error: 'No user matches "nobody-0"; use a user id, handle, or email address',
          message: 'No user matches "nobody-0"; use a user id, handle, or email address',
        },
      ],
    );
    // Thousands of repeats of real members (by id, handle and e-mail) resolve to each member once.
    const members = Array.from({ length: 30_000 }, (_, i) => ['u_alice', 'bob', 'ALICE@example.com'][i % 3]!);
    const set = await call(t.app, 'POST', '/projects/p_api', { key: KEYS.aliceAll, body: { contributorIds: members } });
    assert.equal(set.status, 200, set.body);
    assert.deepEqual(set.json.project.contributorIds, ['u_alice', 'u_bob']);
  });

  test('a report naming more project ids than the database takes as parameters names the first unknown one', async () => {
    const projectIds = Array.from({ length: 40_000 }, (_, i) => `p_missing_${i}`);
    const res = await call(t.app, 'POST', '/report', {
      key: KEYS.aliceAll,
      body: {
        dateRange: { from: Date.parse('2026-11-16T00:00:00Z'), to: Date.parse('2026-11-23T00:00:00Z') },
        aggregationLevel: 'day',
        projectIds,
      },
    });
    assert.deepEqual(
      [res.status, res.json],
      [
        400,
        { success: false, error: 'Unknown project id: "p_missing_0"', message: 'Unknown project id: "p_missing_0"' },
      ],
    );
  });

  test('a value of the wrong type for a string-or-null field names the string type, not null', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/projects', { team: 5 }, 'team must be of type string'],
      ['POST', '/projects', { portfolio: {} }, 'portfolio must be of type string'],
      ['POST', '/projects/p_api', { team: true }, 'team must be of type string'],
      ['POST', '/project', { operation: 'create', name: 5 }, 'name must be of type string'],
      ['POST', '/project', { operation: 'create', name: 'x', description: [] }, 'description must be of type string'],
    ];
    for (const [method, url, body, error] of cases) {
      const res = await call(t.app, method as 'POST', url, { key: KEYS.aliceAll, body });
      assert.deepEqual([res.status, res.json], [400, { success: false, error, message: error }], JSON.stringify(body));
    }
  });

  test('the deprecated /project answers Invalid color value for a color that is not a string', async () => {
    for (const color of [5, true, { hex: '#FFB623' }, ['#FFB623']]) {
      const res = await call(t.app, 'POST', '/project', {
        key: KEYS.aliceAll,
        body: { operation: 'create', name: 'Colors', color },
      });
      assert.deepEqual(
        [res.status, res.json],
        [400, { success: false, error: 'Invalid color value', message: 'Invalid color value' }],
        JSON.stringify(color),
      );
    }
    const cleared = await call(t.app, 'POST', '/project', {
      key: KEYS.aliceAll,
      body: { operation: 'create', name: 'Plain', color: '' },
    });
    assert.equal(cleared.status, 200);
    const project = await call(t.app, 'GET', `/projects/${cleared.json.projectId}`, { key: KEYS.aliceAll });
    assert.equal(project.json.project.color, null);
  });

  test('a 405 names the methods the path serves in Allow', async () => {
    for (const [method, url, allow] of [
      ['PUT', '/user', 'GET'],
      ['HEAD', '/user', 'GET'],
      ['OPTIONS', '/report', 'POST'],
      ['PATCH', '/projects/p_api', 'GET, POST, DELETE'],
      ['PUT', '/message', 'GET, POST'],
    ] as const) {
      const res = await call(t.app, method, url, { key: KEYS.aliceAll });
      assert.equal(res.status, 405, `${method} ${url}`);
      assert.equal(res.headers.allow, allow, `${method} ${url}`);
    }
  });

  test('an empty POST body is {} whatever content type labels it; a non-empty one of another type is 415', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', undefined]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/report',
        headers: { 'x-api-key': KEYS.aliceAll, ...(type ? { 'content-type': type } : {}), 'content-length': '0' },
        payload: '',
      });
      assert.equal(res.statusCode, 200, `${type}: ${res.body}`);
      assert.equal(res.json().success, true);
    }
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'application/vnd.api+json']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/report',
        headers: { 'x-api-key': KEYS.aliceAll, 'content-type': type },
        payload: '{"aggregationLevel":"day"}',
      });
      assert.deepEqual(
        [res.statusCode, res.json()],
        [
          415,
          {
            success: false,
            error: 'Unsupported Media Type: send application/json',
            message: 'Unsupported Media Type: send application/json',
          },
        ],
        type,
      );
    }
  });

  test('a compressed body is 415 naming the encoding, not Malformed JSON body', async () => {
    const { gzipSync } = await import('node:zlib');
    const body = gzipSync(JSON.stringify({ query: 'api' }));
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/search',
        headers: { 'x-api-key': KEYS.aliceAll, 'content-type': 'application/json', 'content-encoding': encoding },
        payload: body,
      });
      assert.deepEqual(
        [res.statusCode, res.json()],
        [
          415,
          {
            success: false,
            error: 'Unsupported Content-Encoding: send the body uncompressed',
            message: 'Unsupported Content-Encoding: send the body uncompressed',
          },
        ],
        encoding,
      );
    }
    const identity = await t.app.inject({
      method: 'POST',
      url: '/search',
      headers: { 'x-api-key': KEYS.aliceAll, 'content-type': 'application/json', 'content-encoding': 'identity' },
      payload: '{"query":"api"}',
    });
    assert.equal(identity.statusCode, 200, identity.body);
  });

  test('the same key sent twice is that key; two different keys are no key', async () => {
    const twice = await t.app.inject({
      method: 'GET',
      url: '/user',
      headers: { 'x-api-key': `${KEYS.aliceAll}, ${KEYS.aliceAll}` },
    });
    assert.equal(twice.statusCode, 200, twice.body);
    const two = await t.app.inject({
      method: 'GET',
      url: '/user',
      headers: { 'x-api-key': `${KEYS.aliceAll}, ${KEYS.bob}` },
    });
    assert.deepEqual(
      [two.statusCode, two.json()],
      [401, { success: false, error: 'Invalid API key', message: 'Invalid API key' }],
    );
  });

  test('a NUL character in a body, a path or a query is 400 naming the field, on both databases', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/projects', { name: 'a\u0000b' }, 'name must not contain the NUL character (\\u0000)'],
      [
        'POST',
        '/projects/p_api',
        { contributorIds: ['bob', '\u0000'] },
        'contributorIds[1] must not contain the NUL character (\\u0000)',
      ],
      ['POST', '/project', { operation: 'archive', id: '\u0000' }, 'id must not contain the NUL character (\\u0000)'],
      [
        'POST',
        '/report',
        { dateRange: { from: 0, to: 1 }, aggregationLevel: 'day', projectIds: ['\u0000'] },
        'projectIds[0] must not contain the NUL character (\\u0000)',
      ],
      ['POST', '/search', { query: 'api\u0000' }, 'query must not contain the NUL character (\\u0000)'],
      ['GET', '/projects/a%00b', undefined, 'id must not contain the NUL character (\\u0000)'],
      ['GET', '/message?date=2026-11-20%00', undefined, 'date must not contain the NUL character (\\u0000)'],
    ];
    for (const [method, url, body, error] of cases) {
      const res = await call(t.app, method as 'GET', url, {
        key: KEYS.aliceAll,
        ...(body === undefined ? {} : { body }),
      });
      assert.deepEqual([res.status, res.json], [400, { success: false, error, message: error }], `${method} ${url}`);
    }
    // However deep the field, its name is cut like any echoed input.
    const deep = await t.app.inject({
      method: 'POST',
      url: '/projects',
      headers: { 'x-api-key': KEYS.aliceAll, 'content-type': 'application/json' },
      payload: `{"x":${'['.repeat(50_000)}"\\u0000"${']'.repeat(50_000)}}`,
    });
    assert.equal(deep.statusCode, 400);
    assert.equal(
      deep.json().error,
      `x${'[0]'.repeat(33)}[…`.slice(0, 100) + '… must not contain the NUL character (\\u0000)',
    );
    // A backslash followed by u0000 is text, not a NUL.
    const text = await call(t.app, 'POST', '/search', { key: KEYS.aliceAll, body: { query: 'api \\u0000' } });
    assert.equal(text.status, 200, text.body);
  });

  test('a lone surrogate anywhere in a body is a 400 naming the field, not a 500 or U+FFFD', async () => {
    const report = await call(t.app, 'POST', '/report', {
      key: KEYS.aliceAll,
      body: { dateRange: { from: 0, to: 1 }, aggregationLevel: 'day', projectIds: ['p_api', '\ud800'] },
    });
    assert.deepEqual([report.status, report.json.error], [400, 'projectIds[1] must not contain a lone surrogate']);
    const contributors = await call(t.app, 'POST', '/projects/p_api', {
      key: KEYS.aliceAll,
      body: { contributorIds: ['x\udc00'] },
    });
    assert.deepEqual(
      [contributors.status, contributors.json.error],
      [400, 'contributorIds[0] must not contain a lone surrogate'],
    );
    const search = await call(t.app, 'POST', '/search', { key: KEYS.aliceAll, body: { query: 'api \ud83d' } });
    assert.deepEqual([search.status, search.json.error], [400, 'query must not contain a lone surrogate']);
    // A pair, written as two escapes, is one character and welcome.
    const pair = await t.app.inject({
      method: 'POST',
      url: '/search',
      headers: { 'x-api-key': KEYS.aliceAll, 'content-type': 'application/json' },
      payload: '{"query":"api \\ud83d\\ude00"}',
    });
    assert.equal(pair.statusCode, 200, pair.body);
  });

  test('a deeply nested or huge value is named briefly in the error, never echoed whole', async () => {
    const nested = `${'['.repeat(10_000)}"tasks"${']'.repeat(10_000)}`;
    const deep = await t.app.inject({
      method: 'POST',
      url: '/search',
      headers: { 'x-api-key': KEYS.aliceAll, 'content-type': 'application/json' },
      payload: `{"query":"api","sources":[${nested}]}`,
    });
    assert.deepEqual(
      [deep.statusCode, deep.json()],
      [
        400,
        {
          success: false,
          error: 'sources contains an invalid value: an array',
          message: 'sources contains an invalid value: an array',
        },
      ],
    );
    const huge = await call(t.app, 'POST', '/projects', { key: KEYS.aliceAll, body: { team: 'x'.repeat(500_000) } });
    assert.equal(huge.status, 400);
    assert.equal(huge.json.error, `Team not found: "${'x'.repeat(100)}…"`);
  });

  test('fractional instants in dateRange are whole milliseconds: the same rows as the next integers', async () => {
    const at = (iso: string) => Date.parse(iso);
    const body = (from: number, to: number) => ({ dateRange: { from, to }, aggregationLevel: 'activity' });
    const whole = await call(t.app, 'POST', '/report', {
      key: KEYS.aliceAll,
      body: body(at('2026-11-16T00:00:00Z'), at('2026-11-23T00:00:00Z')),
    });
    const fractional = await call(t.app, 'POST', '/report', {
      key: KEYS.aliceAll,
      body: body(at('2026-11-16T00:00:00Z') - 0.5, at('2026-11-23T00:00:00Z') - 0.25),
    });
    assert.equal(fractional.status, 200, fractional.body);
    assert.ok(whole.json.rowCount > 0);
    assert.deepEqual(fractional.json, whole.json);
    const tiny = await call(t.app, 'POST', '/report', {
      key: KEYS.aliceAll,
      body: { dateRange: { from: 0.25, to: 0.75 }, aggregationLevel: 'day' },
    });
    assert.deepEqual([tiny.status, tiny.json], [200, { success: true, rowCount: 0, rows: [] }]);
  });

  test('a range at the last instant a report takes holds no rows, and one beyond it is a 400', async () => {
    const last = Date.parse('9999-12-30T00:00:00Z');
    for (const teamIds of [undefined, ['t_eng']]) {
      const res = await call(t.app, 'POST', '/report', {
        key: KEYS.aliceAll,
        body: {
          dateRange: { from: last - 3_600_000, to: last },
          aggregationLevel: 'day',
          ...(teamIds ? { teamIds } : {}),
        },
      });
      assert.deepEqual(
        [res.status, res.json],
        [200, { success: true, rowCount: 0, rows: [] }],
        JSON.stringify(teamIds),
      );
    }
    const beyond = await call(t.app, 'POST', '/report', {
      key: KEYS.aliceAll,
      body: { dateRange: { from: last, to: last + 1 }, aggregationLevel: 'day' },
    });
    assert.equal(beyond.status, 400);
    assert.match(beyond.json.error, /^dateRange\.to must be at most /);
  });
});

test('SQLite: a write while another process holds the write lock is 503 with Retry-After; reads go on', {
  skip: !DIALECTS.includes('sqlite'),
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'daybook-busy-'));
  const url = `sqlite:${join(dir, 'busy.db')}`;
  const storage = openStorage(url);
  await migrate(storage);
  await importDataset(storage, EXAMPLE, { now: () => DEFAULT_NOW });
  const t = await createTestApp('sqlite', { database: { url, storage, drop: () => storage.close() }, dataset: null });
  // Another process (an import) holding the lock: a second connection in a write transaction.
  const other = new Database(join(dir, 'busy.db'));
  try {
    // The server's writes wait for the lock this long before giving up (5 s in production).
    await sql`pragma busy_timeout = 1000`.execute(storage.db);
    other.exec('begin immediate');
    const write = await call(t.app, 'POST', '/projects', { key: KEYS.aliceAll, body: { name: 'While locked' } });
    assert.deepEqual(
      [write.status, write.json],
      [
        503,
        {
          success: false,
          error: 'Service Unavailable: the database is busy with another writer; retry shortly',
          message: 'Service Unavailable: the database is busy with another writer; retry shortly',
        },
      ],
    );
    assert.equal(write.headers['retry-after'], '5');
    // Reads are answered, and a key's use stamp, which the lock also refuses, holds up nothing.
    const started = performance.now();
    assert.equal((await call(t.app, 'GET', '/projects', { key: KEYS.bob })).status, 200, 'reads are answered');
    assert.ok(performance.now() - started < 500, `the read took ${Math.round(performance.now() - started)} ms`);
    other.exec('rollback');
    assert.equal((await call(t.app, 'POST', '/projects', { key: KEYS.aliceAll, body: { name: 'After' } })).status, 201);
  } finally {
    other.close();
    await t.close();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
