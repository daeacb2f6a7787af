/**
 * Large reports built on worker threads (services/reports/workers.ts) answer exactly what the
 * server's own thread answers — the same bytes, the same errors — on a database file or
 * PostgreSQL, and a worker that cannot build a report costs that request a 500, not the server.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import type { ReportBody } from '../../src/schemas/report.ts';
import { parseReportRequest } from '../../src/services/reports/request.ts';
import { isLargeReport } from '../../src/services/reports/workers.ts';
import {
  DEFAULT_NOW,
  EXAMPLE,
  KEYS,
  type TestApp,
  type TestDatabase,
  createSharedTestDatabase,
  createTestApp,
  forEachDialect,
} from '../helper.ts';

const DAY = 86_400_000;
const year = { from: DEFAULT_NOW - 365 * DAY, to: DEFAULT_NOW };
const quarter = { from: DEFAULT_NOW - 90 * DAY, to: DEFAULT_NOW };

/** Bodies the pool builds, and the key that asks. */
const LARGE: [string, object, string][] = [
  ['a year of day rows', { dateRange: year, aggregationLevel: 'day' }, KEYS.aliceAll],
  ['a year of week rows, asc', { dateRange: year, aggregationLevel: 'week', sort: 'asc' }, KEYS.aliceAll],
  [
    'a quarter of task rows without categories',
    { dateRange: quarter, aggregationLevel: 'task', includeCategories: false },
    KEYS.aliceAll,
  ],
  [
    'a team report (masked names of other members)',
    { dateRange: quarter, aggregationLevel: 'day', teamIds: ['t_eng'] },
    KEYS.aliceAll,
  ],
  [
    'a team report of task rows, desc',
    { dateRange: quarter, aggregationLevel: 'task', teamIds: ['t_eng'], sort: 'desc' },
    KEYS.bob,
  ],
  ['a project filter', { dateRange: year, aggregationLevel: 'day', projectIds: ['p_api'] }, KEYS.aliceAll],
  ['an unknown team', { dateRange: quarter, aggregationLevel: 'day', teamIds: ['t_nope'] }, KEYS.aliceAll],
  ['an unknown project', { dateRange: year, aggregationLevel: 'week', projectIds: ['p_nope'] }, KEYS.aliceAll],
];

test('the pool takes team reports and ranges over a month, never activity rows', () => {
  const now = DEFAULT_NOW;
  const body = (days: number, extra: object = {}) =>
    ({ dateRange: { from: now - days * DAY, to: now }, aggregationLevel: 'day', ...extra }) as ReportBody;
  const large = (b: ReportBody) => isLargeReport(parseReportRequest(b, now));
  assert.equal(large(body(7)), false);
  assert.equal(large(body(31)), false);
  assert.equal(large(body(32)), true);
  assert.equal(large(body(1, { teamIds: ['t_eng'] })), true);
  assert.equal(large(body(90, { aggregationLevel: 'activity' })), false);
  assert.equal(large({}), false);
  assert.throws(() => large({ aggregationLevel: 'day' }), /dateRange is required/);
});

forEachDialect('large reports on worker threads', (dialect) => {
  let database: TestDatabase;
  let pooled: TestApp;
  let inline: TestApp;
  before(async () => {
    database = await createSharedTestDatabase(dialect);
    await importDataset(database.storage, EXAMPLE, { now: () => DEFAULT_NOW });
    pooled = await createTestApp(dialect, { database, dataset: null, config: { reportWorkers: 2 } });
    inline = await createTestApp(dialect, { database, dataset: null, config: { reportWorkers: 0 } });
  });
  after(async () => {
    await pooled.close();
    await inline.close();
    await database.drop();
  });

  const post = (t: TestApp, body: object, key: string) =>
    t.app.inject({ method: 'POST', url: '/report', headers: { 'x-api-key': key }, payload: body });

  for (const [name, body, key] of LARGE) {
    test(`the same status, headers and bytes as on the server's thread: ${name}`, async () => {
      const [fromPool, fromThread] = await Promise.all([post(pooled, body, key), post(inline, body, key)]);
      assert.equal(fromPool.statusCode, fromThread.statusCode, fromPool.body);
      assert.equal(fromPool.headers['content-type'], fromThread.headers['content-type']);
      assert.equal(fromPool.headers['content-length'], String(fromThread.rawPayload.length));
      assert.ok(
        fromPool.rawPayload.equals(fromThread.rawPayload),
        `${fromPool.body.slice(0, 300)}\n${fromThread.body.slice(0, 300)}`,
      );
    });
  }

  test('the cases are not trivial: rows, masked names and both error messages', async () => {
    const team = JSON.parse((await post(inline, LARGE[3]![1], KEYS.aliceAll)).body);
    assert.ok(team.rowCount > 3 && JSON.stringify(team).includes('"user_email"'), JSON.stringify(team).slice(0, 200));
    assert.equal(JSON.parse((await post(pooled, LARGE[6]![1], KEYS.aliceAll)).body).error, 'Unknown team id: "t_nope"');
    assert.equal(
      JSON.parse((await post(pooled, LARGE[7]![1], KEYS.aliceAll)).body).error,
      'Unknown project id: "p_nope"',
    );
  });

  test('many large reports at once are all answered, each with its own bytes', async () => {
    const bodies = Array.from({ length: 12 }, (_, i) => ({
      dateRange: { from: quarter.from + i * DAY, to: quarter.to },
      aggregationLevel: 'day',
    }));
    const answers = await Promise.all(bodies.map((b) => post(pooled, b, KEYS.aliceAll)));
    const expected = await Promise.all(bodies.map((b) => post(inline, b, KEYS.aliceAll)));
    for (const [i, a] of answers.entries()) assert.ok(a.rawPayload.equals(expected[i]!.rawPayload), `report ${i}`);
  });
});

forEachDialect('a report worker that cannot build', (dialect) => {
  let database: TestDatabase;
  let t: TestApp;
  let dir: string;
  before(async () => {
    database = await createSharedTestDatabase(dialect);
    dir = await mkdtemp(join(tmpdir(), 'daybook-workers-broken-'));
    // The workers open a database without Daybook's tables; the server's own thread has them.
    const broken =
      dialect === 'postgres'
        ? 'postgres://postgres@127.0.0.1:5432/daybook_no_such_database'
        : `sqlite:${join(dir, 'empty.db')}`;
    t = await createTestApp(dialect, { database, config: { reportWorkers: 1, databaseUrl: broken } });
  });
  after(async () => {
    await t.close();
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  });

  test('answers that request 500 with the envelope and no detail, and the server goes on', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/report',
      headers: { 'x-api-key': KEYS.aliceAll },
      payload: { dateRange: year, aggregationLevel: 'day' },
    });
    assert.deepEqual(
      [res.statusCode, res.json()],
      [500, { success: false, error: 'Internal Server Error', message: 'Internal Server Error' }],
    );
    const small = await t.app.inject({
      method: 'POST',
      url: '/report',
      headers: { 'x-api-key': KEYS.aliceAll },
      payload: {},
    });
    assert.equal(small.statusCode, 200);
  });
});
