/**
 * Large reports built on worker threads (services/read-workers.ts) answer exactly what the
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
import { ReadWorkers, isLargeReport, reportPlace, smallReadThreads } from '../../src/services/read-workers.ts';
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
const week = { from: DEFAULT_NOW - 7 * DAY, to: DEFAULT_NOW };
const month = { from: DEFAULT_NOW - 31 * DAY, to: DEFAULT_NOW };

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

/** Bodies the pool builds when a thread has room, and the key that asks. */
const SMALL: [string, object, string][] = [
  ['the empty body (a week of day rows)', {}, KEYS.aliceAll],
  ['a week of day rows, desc', { dateRange: week, aggregationLevel: 'day', sort: 'desc' }, KEYS.aliceAll],
  ['a week of activity rows', { dateRange: week, aggregationLevel: 'activity' }, KEYS.aliceAll],
  ['a week of minute rows, asc', { dateRange: week, aggregationLevel: 'minute', sort: 'asc' }, KEYS.bob],
  ['a month of task rows', { dateRange: month, aggregationLevel: 'task' }, KEYS.aliceAll],
  [
    'a month of week rows without projects',
    { dateRange: month, aggregationLevel: 'week', includeProjects: false },
    KEYS.bob,
  ],
  ['an unknown project', { dateRange: week, aggregationLevel: 'day', projectIds: ['p_nope'] }, KEYS.aliceAll],
  ['teamIds at activity level', { dateRange: week, aggregationLevel: 'activity', teamIds: ['t_eng'] }, KEYS.aliceAll],
];

/** Searches the pool runs when a thread has room. */
const SEARCHES: [string, object, string][] = [
  ['a word', { query: 'limiter' }, KEYS.aliceAll],
  [
    'a phrase in tasks, with context',
    { query: '"rate limiter"', context: 'design', sources: ['tasks'], days: 30 },
    KEYS.aliceAll,
  ],
  ['prefixes in activity, a limit', { query: 'onboard acm', sources: ['activity'], limit: 2, days: 30 }, KEYS.aliceAll],
  ["another user's words", { query: 'seeds', days: 30 }, KEYS.bob],
  ['nothing found', { query: 'platypus' }, KEYS.aliceAll],
  ['a query of white space', { query: ' \u00a0 ' }, KEYS.aliceAll],
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

test('small reports go to the pool when it has room; activity rows over a week never', () => {
  const place = (days: number, level: string, extra: object = {}) =>
    reportPlace(
      parseReportRequest(
        {
          dateRange: { from: DEFAULT_NOW - days * DAY, to: DEFAULT_NOW },
          aggregationLevel: level,
          ...extra,
        } as ReportBody,
        DEFAULT_NOW,
      ),
    );
  assert.equal(place(7, 'day'), 'pool-if-room');
  assert.equal(place(31, 'task'), 'pool-if-room');
  assert.equal(place(32, 'task'), 'pool');
  assert.equal(place(1, 'week', { teamIds: ['t_eng'] }), 'pool');
  assert.equal(place(7, 'activity'), 'pool-if-room');
  assert.equal(place(8, 'activity'), 'here');
  assert.equal(place(90, 'minute'), 'here');
  assert.equal(reportPlace(parseReportRequest({}, DEFAULT_NOW)), 'pool-if-room');
});

test('small reads go to one thread fewer than the cores, at least one, at most the pool', () => {
  assert.equal(smallReadThreads(2, 2), 1);
  assert.equal(smallReadThreads(1, 1), 1);
  assert.equal(smallReadThreads(4, 4), 3);
  assert.equal(smallReadThreads(4, 16), 4);
  assert.equal(smallReadThreads(2, 8), 2);
});

forEachDialect('reports and searches on the read workers', (dialect) => {
  let database: TestDatabase;
  let pooled: TestApp;
  let inline: TestApp;
  before(async () => {
    database = await createSharedTestDatabase(dialect);
    await importDataset(database.storage, EXAMPLE, { now: () => DEFAULT_NOW });
    // Small reads go to the pool on SQLite only (services/read-workers.ts); the threads build
    // them alike on both databases. The app starts the threads before it serves.
    const readers = new ReadWorkers({ databaseUrl: database.url, statementTimeoutMs: 30_000 }, 2, { smallThreads: 2 });
    pooled = await createTestApp(dialect, { database, dataset: null, readers });
    inline = await createTestApp(dialect, { database, dataset: null, config: { reportWorkers: 0 } });
  });
  after(async () => {
    await pooled.close();
    await inline.close();
    await database.drop();
  });

  const post = (t: TestApp, body: object, key: string) =>
    t.app.inject({ method: 'POST', url: '/report', headers: { 'x-api-key': key }, payload: body });
  const send = (t: TestApp, url: string, body: object, key: string) =>
    t.app.inject({ method: 'POST', url, headers: { 'x-api-key': key }, payload: body });

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

  for (const [url, cases] of [
    ['/report', SMALL],
    ['/search', SEARCHES],
  ] as const) {
    for (const [name, body, key] of cases) {
      test(`${url}: the same status, headers and bytes as on the server's thread: ${name}`, async () => {
        const fromPool = await send(pooled, url, body, key);
        const fromThread = await send(inline, url, body, key);
        assert.equal(fromPool.statusCode, fromThread.statusCode, fromPool.body);
        assert.equal(fromPool.headers['content-type'], fromThread.headers['content-type']);
        assert.equal(fromPool.headers['content-length'], String(fromThread.rawPayload.length));
        assert.equal(fromPool.body, fromThread.body);
      });
    }
  }

  test('the cases are not trivial: rows, results, and the messages of both routes', async () => {
    const rows = JSON.parse((await send(pooled, '/report', SMALL[2]![1], KEYS.aliceAll)).body);
    assert.ok(rows.rowCount > 10, JSON.stringify(rows).slice(0, 200));
    const found = JSON.parse((await send(pooled, '/search', SEARCHES[0]![1], KEYS.aliceAll)).body);
    assert.ok(found.totalMatches > 3, JSON.stringify(found).slice(0, 200));
    const errors = await Promise.all(
      [
        ['/report', SMALL[6]![1]],
        ['/report', SMALL[7]![1]],
        ['/search', SEARCHES[5]![1]],
      ].map(
        async ([url, body]) =>
          JSON.parse((await send(pooled, url as string, body as object, KEYS.aliceAll)).body).error,
      ),
    );
    assert.deepEqual(errors, [
      'Unknown project id: "p_nope"',
      'teamIds cannot be used with aggregationLevel "activity"',
      'query must not be empty.',
    ]);
  });

  test('many at once are all answered, each with its own bytes, in place once the pool is full', async () => {
    const bodies = Array.from({ length: 24 }, (_, i) => ({
      dateRange: { from: week.from + i * 3_600_000, to: week.to },
      aggregationLevel: i % 2 ? 'day' : 'activity',
    }));
    const answers = await Promise.all(bodies.map((b) => send(pooled, '/report', b, KEYS.aliceAll)));
    for (const [i, a] of answers.entries()) {
      const expected = await send(inline, '/report', bodies[i]!, KEYS.aliceAll);
      assert.equal(a.statusCode, 200);
      assert.ok(a.rawPayload.equals(expected.rawPayload), `report ${i}`);
    }
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
    // The thread serves: on SQLite a small report or a search goes to it now, and fails the
    // same way; on PostgreSQL they are built on the server's thread.
    for (const [url, payload] of [
      ['/report', {}],
      ['/search', { query: 'limiter' }],
    ] as const) {
      const answer = await t.app.inject({ method: 'POST', url, headers: { 'x-api-key': KEYS.aliceAll }, payload });
      assert.equal(answer.statusCode, dialect === 'sqlite' ? 500 : 200, `${url}: ${answer.body}`);
    }
    // Activity rows over a week are built on the server's thread, which goes on serving.
    const inPlace = await t.app.inject({
      method: 'POST',
      url: '/report',
      headers: { 'x-api-key': KEYS.aliceAll },
      payload: { dateRange: quarter, aggregationLevel: 'activity' },
    });
    assert.equal(inPlace.statusCode, 200);
    assert.ok(inPlace.json().rowCount > 10);
  });
});
