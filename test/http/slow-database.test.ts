/**
 * docs/operations.md, "When the database goes away": on PostgreSQL a statement still running at
 * DAYBOOK_PG_STATEMENT_TIMEOUT_MS is cancelled by the server, and its request is answered 503
 * `Database unavailable` with Retry-After (not a 500 with a stack), on the server's thread and
 * on a report worker alike, with one warning line that names the setting; the database still
 * answers, so no outage is told. Here the statements wait for tables another session holds
 * locked, as behind a long migration or an operator's lock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { App } from '../../src/http/types.ts';
import {
  DEFAULT_NOW,
  DIALECTS,
  KEYS,
  type TestApp,
  type TestDatabase,
  call,
  createTestApp,
  createTestDatabase,
} from '../helper.ts';

const TIMEOUT_MS = 300;
const DAY = 86_400_000;

describe('a statement past the statement timeout [postgres]', { skip: !DIALECTS.includes('postgres') }, () => {
  let t: TestApp;
  let database: TestDatabase;
  let app: App;
  const lines: string[] = [];

  before(async () => {
    database = await createTestDatabase('postgres');
    t = await createTestApp('postgres', {
      database,
      config: { keyCacheMs: 2000, reportWorkers: 1, pgStatementTimeoutMs: TIMEOUT_MS },
      log: { level: 'info', lines },
    });
    // After the import: it runs under no statement timeout, as `daybook import` does.
    database.storage.setStatementTimeout!(TIMEOUT_MS);
    app = t.app;
  });
  after(async () => {
    await t?.close();
    await database?.drop();
  });

  const report = { dateRange: { from: DEFAULT_NOW - 90 * DAY, to: DEFAULT_NOW }, aggregationLevel: 'day' };

  test('is 503 Database unavailable with Retry-After and one warning line; served once the tables are free', async () => {
    const ask = () =>
      Promise.all([
        call(app, 'GET', '/projects', { key: KEYS.aliceAll }),
        // A report over 90 days: built on the worker thread, with a pool of its own.
        call(app, 'POST', '/report', { key: KEYS.aliceAll, body: report }),
      ]);
    assert.deepEqual(
      (await ask()).map((r) => r.status),
      [200, 200],
    );
    const locker = new pg.Client({ connectionString: database.url });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table projects, day_rollups, activities, tasks in access exclusive mode');
      const before = lines.length;
      for (const answer of await ask()) {
        assert.equal(answer.status, 503, answer.body);
        assert.deepEqual(answer.json, {
          success: false,
          error: 'Database unavailable',
          message: 'Database unavailable',
        });
        assert.equal(answer.headers['retry-after'], '2');
      }
      const logged = lines
        .slice(before)
        .map((line) => JSON.parse(line) as { level: number; msg: string; [field: string]: unknown })
        .filter((l) => l.level >= 40 || 'err' in l);
      assert.deepEqual(
        logged.map((l) => [l.level, l.msg]),
        [
          [40, 'database statement cancelled (DAYBOOK_PG_STATEMENT_TIMEOUT_MS)'],
          [40, 'database statement cancelled (DAYBOOK_PG_STATEMENT_TIMEOUT_MS)'],
        ],
      );
      assert.equal(database.storage.health.available, true);
    } finally {
      await locker.query('rollback').catch(() => {});
      await locker.end();
    }
    assert.deepEqual(
      (await ask()).map((r) => r.status),
      [200, 200],
    );
  });
});
