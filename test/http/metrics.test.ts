/**
 * Prometheus metrics (docs/operations.md, "Metrics"): off by default; behind a token on the API's
 * port, or without one on a port of their own; a scrape shows requests by route pattern, method
 * and status, rejections, summary runs, the PostgreSQL pool and the event loop.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { importDataset } from '../../src/dataset/import.ts';
import { buildApp } from '../../src/http/app.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import { Metrics, serveMetrics } from '../../src/http/metrics.ts';
import { MemoryRateLimiter } from '../../src/http/rate-limit.ts';
import type { App } from '../../src/http/types.ts';
import {
  DEFAULT_NOW,
  EXAMPLE,
  KEYS,
  type TestApp,
  type TestDatabase,
  call,
  createTestApp,
  createTestDatabase,
  forEachDialect,
} from '../helper.ts';

const TOKEN = 'metrics-token-0123456789abcdef';
const WRITER = 'dbk_test_metrics_writer_0123456789abcdef';

test('without DAYBOOK_METRICS_* there is no /metrics', async () => {
  const t: TestApp = await createTestApp('sqlite', { dataset: null });
  try {
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.statusCode, 404);
  } finally {
    await t.close();
  }
});

test('DAYBOOK_METRICS_TOKEN must be long enough', () => {
  assert.equal(loadConfig({}).metricsToken, null);
  assert.equal(loadConfig({ DAYBOOK_METRICS_TOKEN: TOKEN }).metricsToken, TOKEN);
  assert.throws(() => loadConfig({ DAYBOOK_METRICS_TOKEN: 'short' }), /at least 16 characters/);
});

forEachDialect('metrics', (dialect) => {
  let database: TestDatabase;
  let app: App;
  let metrics: Metrics;
  const files = tempFiles();
  before(async () => {
    database = await createTestDatabase(dialect);
    await importDataset(database.storage, EXAMPLE, { now: () => DEFAULT_NOW });
    await importDataset(
      database.storage,
      files.write(`writer-${dialect}.json`, {
        version: 1,
        apiKeys: [{ userId: 'u_alice', name: 'writer', key: WRITER, scopes: ['activity:write'] }],
      }),
      { now: () => DEFAULT_NOW },
    );
    metrics = new Metrics(database.storage);
    app = await buildApp({
      storage: database.storage,
      config: {
        ...loadConfig({}),
        databaseUrl: database.url,
        rateLimitPerMinute: 3,
        authFailuresPerMinute: 10_000,
        keyCacheMs: 0,
        reportWorkers: 0,
        metricsToken: TOKEN,
      },
      rateLimiter: new MemoryRateLimiter(() => DEFAULT_NOW),
      now: () => DEFAULT_NOW,
      metrics,
    });
    await app.ready();
  });
  after(async () => {
    await app.close();
    await database.drop();
    files.remove();
  });

  const scrape = async () => {
    const res = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    return res.body;
  };

  test('a scrape shows requests by route pattern, rejections, summary runs, the pool and the event loop', async () => {
    assert.equal((await call(app, 'GET', '/user', { key: KEYS.aliceAll })).status, 200);
    assert.equal((await call(app, 'GET', '/projects/p_api', { key: KEYS.aliceAll })).status, 200);
    assert.equal((await call(app, 'GET', '/user', { key: 'dbk_nobody' })).status, 401);
    assert.equal((await call(app, 'GET', '/user', { key: KEYS.aliceReadOnly })).status, 200);
    for (let i = 0; i < 4; i++) await call(app, 'GET', '/user', { key: KEYS.bob });
    metrics.summaryRun({ users: 1, built: 3, current: 0, removed: 0 } as never, 120);
    const written = await call(app, 'POST', '/activities', {
      key: WRITER,
      body: {
        activities: [1, 2, 3, 4].map((i) => ({
          start: Date.parse('2026-11-20T09:00:00Z') + i * 60_000,
          headline: `w${i}`,
        })),
      },
    });
    assert.equal(written.status, 200, written.body);
    const text = await scrape();
    assert.match(text, /^daybook_http_requests_total\{route="\/user",method="GET",status="200"\} [2-9]/m);
    // The route's pattern, never the id in the path.
    assert.match(text, /^daybook_http_requests_total\{route="\/projects\/:id",method="GET",status="200"\} 1$/m);
    assert.doesNotMatch(text, /p_api/);
    assert.match(text, /^daybook_rejected_requests_total\{reason="unauthenticated"\} 1$/m);
    assert.match(text, /^daybook_rejected_requests_total\{reason="rate_limited"\} [1-9]/m);
    assert.match(text, /^daybook_http_request_duration_seconds_bucket\{le="0\.1",route="\/user",method="GET"\} /m);
    assert.match(text, /^daybook_summary_runs_total\{outcome="done"\} 1$/m);
    assert.match(text, /^daybook_summaries_built_total 3$/m);
    assert.match(text, /^daybook_records_written_total\{kind="activity"\} 4$/m);
    assert.match(text, /^daybook_nodejs_eventloop_lag_seconds /m);
    if (dialect === 'postgres') assert.match(text, /^daybook_db_pool_connections\{state="idle"\} \d+$/m);
    else assert.doesNotMatch(text, /daybook_db_pool_connections/);
  });

  test('a wrong or missing token is answered as if there were no /metrics', async () => {
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, TOKEN]) {
      const res = await app.inject({
        method: 'GET',
        url: '/metrics',
        headers: authorization ? { authorization } : {},
      });
      assert.equal(res.statusCode, 404, String(authorization));
    }
  });

  test('DAYBOOK_METRICS_PORT serves them without a token on a port of their own', async () => {
    const server = await serveMetrics(metrics, 0, '127.0.0.1');
    try {
      const { port } = server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      assert.equal(res.status, 200);
      assert.match(await res.text(), /daybook_http_requests_total/);
      assert.equal((await fetch(`http://127.0.0.1:${port}/other`)).status, 404);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
