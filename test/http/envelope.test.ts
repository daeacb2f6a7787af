/**
 * docs/api.md, "Every request": every failure body is `{success: false, error, message}` with
 * `message` the same text as `error`, whoever answers (a route, authentication, the rate limit,
 * Fastify before routing, Node before Fastify); and a 413 reaches a client that is still sending
 * its body instead of a reset connection.
 */
import assert from 'node:assert/strict';
import { type Socket, connect } from 'node:net';
import { after, before, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { loadConfig } from '../../src/config.ts';
import { BODY_LIMIT, buildApp } from '../../src/http/app.ts';
import { DRAIN_MS } from '../../src/http/drain.ts';
import { MemoryRateLimiter } from '../../src/http/rate-limit.ts';
import { openStorage } from '../../src/storage/database.ts';
import { DIALECTS, KEYS, type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';
import type { UploadJob, UploadOutcome } from './upload-client.ts';

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

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function write(socket: Socket, data: string | Buffer): Promise<Error | null> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve(new Error('socket closed'));
    socket.write(data, (err) => resolve(err ?? null));
  });
}

interface SlowUpload {
  response: string;
  /** The first socket error (EPIPE, ECONNRESET), or null. */
  error: string | null;
  /** Body bytes written before the body ended or the socket failed. */
  written: number;
  /** Milliseconds from the first byte to the socket's close. */
  closedAfterMs: number;
}

/**
 * POSTs a `size`-byte body to /report over a raw socket, `chunk` bytes at a time with a pause
 * after each, as a client on a slow link does; reads whatever the server sends meanwhile. With
 * `chunked`, the body goes as Transfer-Encoding: chunked, without Content-Length. With `stopAt`,
 * the client stops sending there and waits for the server.
 */
async function slowUpload(
  port: number,
  size: number,
  options: { chunk: number; pauseMs: number; chunked?: boolean; stopAt?: number },
): Promise<SlowUpload> {
  const started = performance.now();
  const socket = connect(port, '127.0.0.1');
  const received: Buffer[] = [];
  let error: string | null = null;
  socket.on('data', (data) => received.push(data));
  socket.on('error', (err: NodeJS.ErrnoException) => {
    error ??= err.code ?? err.message;
  });
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise((resolve) => socket.once('connect', resolve));
  const framing = options.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${size}`;
  let failed = await write(
    socket,
    `POST /report HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${KEYS.aliceAll}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`,
  );
  let written = 0;
  const limit = options.stopAt ?? size;
  while (!failed && written < limit) {
    const piece = Buffer.alloc(Math.min(options.chunk, limit - written), 0x20);
    failed = await write(
      socket,
      options.chunked
        ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')])
        : piece,
    );
    if (!failed) written += piece.length;
    await pause(options.pauseMs);
  }
  if (!failed && options.stopAt === undefined) {
    if (options.chunked) await write(socket, '0\r\n\r\n');
    socket.end();
  }
  await closed;
  return {
    response: Buffer.concat(received).toString('utf8'),
    error,
    written,
    closedAfterMs: performance.now() - started,
  };
}

/** Node's http.request in a worker thread (upload-client.ts) POSTing `size` bytes `times` times. */
async function nodeUploads(port: number, size: number, times: number): Promise<UploadOutcome[]> {
  const job: UploadJob = { port, key: KEYS.aliceAll, size, times };
  const worker = new Worker(new URL('./upload-client.ts', import.meta.url), { workerData: job });
  try {
    return await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
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
    {
      name: 'malformed JSON',
      status: 400,
      error: 'Malformed JSON body',
      request: () => call(t.app, 'POST', '/report', { key: KEYS.aliceAll, body: '{"a":', headers: json }),
    },
    {
      name: 'a field of the wrong type',
      status: 400,
      error: 'name must be of type string',
      request: () => call(t.app, 'POST', '/projects', { key: KEYS.aliceAll, body: { name: 5 } }),
    },
    {
      name: 'a value out of range',
      status: 400,
      error: 'limit must be an integer between 1 and 50',
      request: () => call(t.app, 'POST', '/search', { key: KEYS.aliceAll, body: { query: 'rate', limit: 0 } }),
    },
    {
      // Ajv coerces `1e309` to Infinity and then skips minimum and maximum: a 500 the fuzz found.
      name: 'a query number past the range of a double',
      status: 400,
      error: 'limit must be an integer between 1 and 1000',
      request: () =>
        call(t.app, 'GET', '/projects?sort=usedAt&includeArchived=true&limit=1e309', { key: KEYS.aliceAll }),
    },
    {
      name: 'a query number that is minus infinity',
      status: 400,
      error: 'limit must be an integer between 1 and 1000',
      request: () => call(t.app, 'GET', '/projects?limit=-Infinity', { key: KEYS.aliceAll }),
    },
    {
      name: 'a JSON number past the range of a double',
      status: 400,
      error: 'limit must be an integer between 1 and 50',
      request: () =>
        call(t.app, 'POST', '/search', { key: KEYS.aliceAll, body: '{"query":"rate","limit":1e309}', headers: json }),
    },
    {
      name: 'broken percent-encoding',
      status: 400,
      error: 'Malformed URL: a path segment is not valid percent-encoding',
      request: () => call(t.app, 'GET', '/projects/%E0%A4%A', { key: KEYS.aliceAll }),
    },
    { name: 'no key', status: 401, error: 'Missing API key', request: () => call(t.app, 'GET', '/user') },
    {
      name: 'an unknown key',
      status: 401,
      error: 'Invalid API key',
      request: () => call(t.app, 'GET', '/user', { key: 'dbk_not_a_real_key_at_all_000000' }),
    },
    {
      name: 'a revoked key',
      status: 401,
      error: 'Invalid API key',
      request: () => call(t.app, 'GET', '/user', { key: KEYS.daveRevoked }),
    },
    {
      name: 'a missing scope',
      status: 403,
      error: 'API key missing required scope: reports:read',
      request: () => call(t.app, 'POST', '/report', { key: KEYS.aliceReadOnly, body: {} }),
    },
    {
      name: 'the free plan',
      status: 403,
      error: 'This endpoint requires the Core plan or higher.',
      request: () => call(t.app, 'GET', '/user', { key: KEYS.carolFree }),
    },
    {
      name: 'a refused delete',
      status: 403,
      error: 'Deleting projects is not available through the API.',
      request: () => call(t.app, 'DELETE', '/projects/p_nope', { key: KEYS.aliceAll }),
    },
    { name: 'an unknown path', status: 404, error: 'Not Found', request: () => call(t.app, 'GET', '/nothing-here') },
    {
      name: 'an unknown project',
      status: 404,
      error: 'Project not found',
      request: () => call(t.app, 'GET', '/projects/p_nope', { key: KEYS.aliceAll }),
    },
    {
      name: 'no summary yet',
      status: 404,
      error: 'No summary exists for this date and level yet.',
      request: () => call(t.app, 'GET', '/message?date=2020-01-01', { key: KEYS.aliceAll }),
    },
    {
      name: 'an unsupported method',
      status: 405,
      error: 'Method Not Allowed',
      request: () => call(t.app, 'PUT', '/user', { key: KEYS.aliceAll }),
    },
    {
      name: 'a body over 1 MiB',
      status: 413,
      error: 'Request body too large',
      request: () =>
        call(t.app, 'POST', '/report', {
          key: KEYS.aliceAll,
          body: JSON.stringify({ pad: 'x'.repeat(BODY_LIMIT) }),
          headers: json,
        }),
    },
    {
      name: 'a path parameter over 16 KiB',
      status: 414,
      error: 'URI Too Long',
      request: () => call(t.app, 'GET', `/projects/${'p'.repeat(17 * 1024)}`, { key: KEYS.aliceAll }),
    },
    {
      name: 'a body that is not JSON',
      status: 415,
      error: 'Unsupported Media Type: send application/json',
      request: () =>
        call(t.app, 'POST', '/report', {
          key: KEYS.aliceAll,
          body: 'hello',
          headers: { 'content-type': 'text/plain' },
        }),
    },
    {
      name: 'a compressed body',
      status: 415,
      error: 'Unsupported Content-Encoding: send the body uncompressed',
      request: () =>
        call(t.app, 'POST', '/report', {
          key: KEYS.aliceAll,
          body: '{}',
          headers: { ...json, 'content-encoding': 'gzip' },
        }),
    },
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
      [
        400,
        'Bad Request: missing Host header',
        await rawRequest(port, `GET /user HTTP/1.1\r\nX-API-Key: ${KEYS.aliceAll}\r\nConnection: close\r\n\r\n`),
      ],
      [
        417,
        'Expectation Failed',
        await rawRequest(
          port,
          `POST /search HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEYS.aliceAll}\r\nContent-Type: application/json\r\nExpect: foo\r\nContent-Length: 2\r\n\r\n{}`,
        ),
      ],
      [
        431,
        'Request Header Fields Too Large',
        await rawRequest(port, `GET /user?pad=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      ],
      [
        405,
        'Method Not Allowed',
        await rawRequest(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'),
      ],
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
    const app = await buildApp({
      storage,
      config: { ...loadConfig({}), databaseUrl: t.database.url, reportWorkers: 0 },
      rateLimiter: new MemoryRateLimiter(),
      now: Date.now,
    });
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

forEachDialect('a 413 reaches a client still sending its body', (dialect) => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await createTestApp(dialect);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  after(() => t.close());

  const size = 1.5 * 1024 * 1024;
  const expect413 = (upload: SlowUpload) => {
    assert.equal(
      upload.error,
      null,
      `the connection failed (${upload.error}) after ${upload.written} of ${size} bytes`,
    );
    assert.equal(upload.written, size, 'the whole body was taken');
    const answer = parseResponse(upload.response);
    assert.equal(answer.status, 413, upload.response.slice(0, 300));
    assert.match(answer.head, /^connection: close$/im);
    assert.deepEqual(JSON.parse(answer.body), failure('Request body too large'));
  };

  test('Content-Length of 1.5 MiB, the body written slowly over a raw socket: the full 413, no reset', async () => {
    expect413(await slowUpload(port, size, { chunk: 64 * 1024, pauseMs: 10 }));
  });

  test('a chunked body (no Content-Length) over 1 MiB, written slowly: the full 413, no reset', async () => {
    expect413(await slowUpload(port, size, { chunk: 64 * 1024, pauseMs: 10, chunked: true }));
  });

  test("Node's http.request writing 1.5 MiB or 4 MiB at once gets the 413, never EPIPE or ECONNRESET", async () => {
    // Without reading on, about half of the 4 MiB uploads end in EPIPE, a third with no status at all.
    for (const bytes of [size, 4 * 1024 * 1024]) {
      for (const [i, outcome] of (await nodeUploads(port, bytes, 20)).entries()) {
        assert.deepEqual(
          { ...outcome, body: outcome.body && JSON.parse(outcome.body) },
          { status: 413, body: failure('Request body too large') },
          `${bytes} bytes, upload ${i + 1}`,
        );
      }
    }
  });

  test('the server goes on serving on other connections meanwhile and after', async () => {
    const upload = slowUpload(port, size, { chunk: 64 * 1024, pauseMs: 10 });
    assert.equal((await call(t.app, 'GET', '/user', { key: KEYS.aliceAll })).status, 200);
    expect413(await upload);
    assert.equal((await call(t.app, 'GET', '/user', { key: KEYS.aliceAll })).status, 200);
  });
});

test('a refused body is read on for a bounded time and amount, then the connection is closed', {
  skip: DIALECTS.length === 0,
}, async (context) => {
  const t = await createTestApp(DIALECTS[0]!);
  context.after(() => t.close());
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as { port: number };

  // A client that declares 1 GiB and sends as fast as it can: cut off long before the end.
  const flood = await slowUpload(port, 1024 * 1024 * 1024, { chunk: 256 * 1024, pauseMs: 0 });
  assert.equal(parseResponse(flood.response).status, 413);
  assert.ok(flood.written < 256 * 1024 * 1024, `${flood.written} bytes taken`);
  assert.ok(flood.closedAfterMs < DRAIN_MS + 3000, `closed after ${Math.round(flood.closedAfterMs)} ms`);

  // A client that stops sending: the server waits DRAIN_MS for the rest, then closes.
  const stalled = await slowUpload(port, 1.5 * 1024 * 1024, { chunk: 64 * 1024, pauseMs: 0, stopAt: 128 * 1024 });
  assert.equal(parseResponse(stalled.response).status, 413);
  assert.ok(stalled.closedAfterMs >= DRAIN_MS - 100, `closed after ${Math.round(stalled.closedAfterMs)} ms`);
  assert.ok(stalled.closedAfterMs < DRAIN_MS + 3000, `closed after ${Math.round(stalled.closedAfterMs)} ms`);
});
