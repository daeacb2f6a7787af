/**
 * The recording routes' writes on a thread of their own (services/recording/recorder.ts): on a
 * SQLite file by default, and answered exactly as on the server's thread: seen at once by the
 * reads that follow, the rules' messages, the app's clock, a busy database's 503, the server
 * thread's own writes going on beside a stream of batches (storage/thread-write-lock.ts), and a
 * write under way when the server closes is finished, not lost. (Every rule of §7 through the thread:
 * the property test in agreement.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { importDataset } from '../../src/dataset/import.ts';
import { createRecorder } from '../../src/services/recording/recorder.ts';
import { openStorage, type Storage } from '../../src/storage/database.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import {
  DEFAULT_NOW,
  type TestApp,
  type TestDatabase,
  call,
  createSharedTestDatabase,
  createTestApp,
  createTestDatabase,
  forEachDialect,
} from '../helper.ts';
import { ALICE, BOB, world } from './world.ts';

const files = tempFiles();
after(() => files.remove());

forEachDialect('where the recording writes run', (dialect) => {
  test('on a thread of their own on a SQLite file (unless DAYBOOK_WRITE_THREAD=false), else on the server thread', async () => {
    const databases = await Promise.all([createSharedTestDatabase(dialect), createTestDatabase(dialect)]);
    try {
      const threaded = (storage: Storage, writeThread: boolean) => {
        const recorder = createRecorder(storage, { ...loadConfig({}), writeThread }, Date.now);
        void recorder.close();
        return recorder.threaded;
      };
      const [file, other] = databases.map((d) => d.storage) as [Storage, Storage];
      assert.equal(loadConfig({}).writeThread, true);
      assert.equal(loadConfig({ DAYBOOK_WRITE_THREAD: 'false' }).writeThread, false);
      // PostgreSQL's statements run in the database's processes; an in-memory SQLite database
      // exists only on the server thread's connection.
      assert.equal(threaded(file, true), dialect === 'sqlite');
      assert.equal(threaded(other, true), false);
      assert.equal(threaded(file, false), false);
    } finally {
      await Promise.all(databases.map((d) => d.drop()));
    }
  });
});

describe('recording writes on the write thread [sqlite]', () => {
  let database: TestDatabase;
  let t: TestApp;
  before(async () => {
    database = await createSharedTestDatabase('sqlite');
    await importDataset(database.storage, files.write('world.json', world), { now: () => DEFAULT_NOW });
    t = await createTestApp('sqlite', { database, dataset: null, config: { writeThread: true } });
  });
  after(async () => {
    await t.close();
    await database.drop();
  });

  const post = (body: unknown, key = ALICE) => call(t.app, 'POST', '/activities', { key, body });

  test('a write is seen at once by the reads that follow; the rules answer as on the server thread', async () => {
    const written = await post({
      activities: [{ id: 'a_thread_1', start: '2026-11-21T09:00:00Z', durationMinutes: 25, headline: 'Quokka survey' }],
    });
    assert.equal(written.status, 200, written.body);
    assert.deepEqual(written.json, { success: true, created: 1, updated: 0, ids: ['a_thread_1'] });
    const report = await call(t.app, 'POST', '/report', {
      key: ALICE,
      body: {
        dateRange: { from: Date.parse('2026-11-21T00:00:00Z'), to: Date.parse('2026-11-22T00:00:00Z') },
        aggregationLevel: 'activity',
      },
    });
    assert.equal(report.status, 200, report.body);
    assert.ok(
      report.json.rows.some((r: { id: string; duration: number }) => r.id === 'activity:a_thread_1'),
      report.body,
    );
    const found = await call(t.app, 'POST', '/search', { key: ALICE, body: { query: 'quokka', days: 30 } });
    assert.deepEqual(
      found.json.results.map((r: { id: string }) => r.id),
      ['a_thread_1'],
    );
    // Another user's id: the ApiError crosses from the thread with its status and message.
    const taken = await post(
      { activities: [{ id: 'a_thread_1', start: '2026-11-21T10:00:00Z', headline: 'Mine' }] },
      BOB,
    );
    assert.equal(taken.status, 409);
    assert.equal(taken.json.error, 'Activity id already in use: "a_thread_1"');
    const task = await call(t.app, 'POST', '/tasks/k_none', { key: ALICE, body: { title: 'Renamed' } });
    assert.equal(task.status, 404);
    assert.equal(task.json.error, 'Task not found');
  });

  test('WakaTime heartbeats are recorded on the thread, and the status bar sees them at once', async () => {
    const at = (iso: string) => Date.parse(iso) / 1000;
    const beat = (time: number) => ({
      entity: '/home/dev/daybook/src/server.ts',
      type: 'file',
      category: 'coding',
      time,
      project: 'Team project',
      language: 'TypeScript',
    });
    const sent = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users/current/heartbeats.bulk',
      headers: { 'x-api-key': ALICE, 'content-type': 'application/json', 'x-machine-name': 'build-box' },
      payload: JSON.stringify([
        beat(at('2026-11-22T10:00:00Z')),
        beat(at('2026-11-22T10:06:00Z')),
        beat(at('2026-11-22T10:12:00Z')),
      ]),
    });
    assert.equal(sent.statusCode, 201, sent.body);
    assert.deepEqual(
      sent.json().responses.map(([, status]: [unknown, number]) => status),
      [201, 201, 201],
    );
    const bar = await t.app.inject({
      method: 'GET',
      url: '/api/v1/users/current/statusbar/today',
      headers: { 'x-api-key': ALICE },
    });
    assert.equal(bar.statusCode, 200, bar.body);
    assert.equal(bar.json().data.grand_total.total_seconds, 12 * 60);
    // One heartbeat that is not an object: refused by itself, as on the server thread.
    const mixed = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users/current/heartbeats.bulk',
      headers: { 'x-api-key': ALICE, 'content-type': 'application/json' },
      payload: JSON.stringify([beat(at('2026-11-22T10:18:00Z')), 'not a heartbeat']),
    });
    assert.deepEqual(
      mixed.json().responses.map(([, status]: [unknown, number]) => status),
      [201, 400],
    );
  });

  test("the app's clock decides what lies in the future, as on the server thread", async () => {
    // Days after the pinned clock (2026-11-22T12:00Z) are in the past of the thread's own clock.
    const pinned = DEFAULT_NOW;
    const late = await post({
      activities: [{ start: new Date(pinned + 10 * 60_000).toISOString(), durationMinutes: 1, headline: 'Too soon' }],
    });
    assert.equal(late.status, 400, late.body);
    assert.equal(
      late.json.error,
      'activities[0].start must not make the activity end more than 5 minutes in the future',
    );
    const near = await post({
      activities: [{ start: new Date(pinned - 30 * 60_000).toISOString(), durationMinutes: 30, headline: 'Just now' }],
    });
    assert.equal(near.status, 200, near.body);
  });

  test("the server thread's own writes are not refused while the write thread writes batch after batch", async () => {
    let batches = 0;
    const batch = (n: number) => ({
      activities: Array.from({ length: 1000 }, (_, i) => ({
        id: `a_stream_${n}_${i}`,
        start: new Date(Date.parse('2026-11-02T06:00:00Z') + (n % 15) * 86_400_000 + i * 40_000).toISOString(),
        durationMinutes: 1,
        headline: `Streamed ${i}`,
      })),
    });
    let streaming = true;
    const stream = async () => {
      const statuses: number[] = [];
      while (streaming) statuses.push((await post(batch(batches++))).status);
      return statuses;
    };
    const streams = [stream(), stream(), stream()];
    const own: string[] = [];
    try {
      // A new project (one statement) and a rename (a transaction that reads, then writes).
      const created = await call(t.app, 'POST', '/projects', { key: ALICE, body: { name: 'Streamed project 0' } });
      assert.equal(created.status, 201, created.body);
      const id = created.json.project.id as string;
      for (let i = 1; i <= 30; i++) {
        const made = await call(t.app, 'POST', '/projects', { key: ALICE, body: { name: `Streamed project ${i}` } });
        const renamed = await call(t.app, 'POST', `/projects/${id}`, { key: ALICE, body: { name: `Renamed ${i}` } });
        own.push(`${made.status} ${renamed.status}`);
      }
    } finally {
      streaming = false;
    }
    const written = (await Promise.all(streams)).flat();
    assert.ok(batches >= 6, `${batches} batches written meanwhile`);
    assert.deepEqual(new Set(written), new Set([200]));
    assert.deepEqual(new Set(own), new Set(['201 200']), own.join(', '));
  });

  test('a write waiting for another connection ends in 503 with Retry-After, and reads go on meanwhile', async () => {
    const other = openStorage(database.url);
    try {
      other.sqlite!.prepare('begin immediate').run();
      try {
        const write = post({ activities: [{ start: '2026-11-20T09:00:00Z', headline: 'Blocked' }] });
        const read = await call(t.app, 'GET', '/user', { key: ALICE });
        assert.equal(read.status, 200);
        const refused = await write;
        assert.equal(refused.status, 503, refused.body);
        assert.equal(
          refused.json.error,
          'Service Unavailable: the database is busy with another writer; retry shortly',
        );
        assert.equal(refused.headers['retry-after'], '5');
      } finally {
        other.sqlite!.prepare('rollback').run();
      }
    } finally {
      await other.close();
    }
  });
});

test('a write under way when the server closes is finished and answered, not lost [sqlite]', async () => {
  const database = await createSharedTestDatabase('sqlite');
  const other = openStorage(database.url);
  try {
    await importDataset(database.storage, files.write('world-close.json', world), { now: () => DEFAULT_NOW });
    const t = await createTestApp('sqlite', { database, dataset: null, config: { writeThread: true } });
    // Held by another connection, so that the write is still waiting when the close begins.
    other.sqlite!.prepare('begin immediate').run();
    const write = call(t.app, 'POST', '/activities', {
      key: ALICE,
      body: { activities: [{ id: 'a_at_close', start: '2026-11-20T09:00:00Z', headline: 'Last words' }] },
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = t.close();
    setTimeout(() => other.sqlite!.prepare('rollback').run(), 300);
    const answer = await write;
    await closed;
    assert.equal(answer.status, 200, answer.body);
    const stored = await database.storage.db
      .selectFrom('activities')
      .select(['id', 'headline'])
      .where('id', '=', 'a_at_close')
      .execute();
    assert.deepEqual(stored, [{ id: 'a_at_close', headline: 'Last words' }]);
  } finally {
    await other.close();
    await database.drop();
  }
});

test("a batch refused for its own items' rules is answered by the server's thread, never queued for the write thread [sqlite]", async () => {
  const database = await createSharedTestDatabase('sqlite');
  try {
    await importDataset(database.storage, files.write('world-refused.json', world), { now: () => DEFAULT_NOW });
    // The write thread is pointed at a database it cannot open: whatever reaches it fails.
    const t = await createTestApp('sqlite', {
      database,
      dataset: null,
      config: { writeThread: true, databaseUrl: 'sqlite:/dev/null/daybook.db' },
    });
    try {
      const post = (activities: unknown[]) => call(t.app, 'POST', '/activities', { key: ALICE, body: { activities } });
      const ok = { start: '2026-11-20T09:00:00Z', headline: 'Fine' };
      const cases: [unknown[], string][] = [
        [[ok, { ...ok, headline: '  ' }], 'activities[1].headline must be 1 to 300 characters, not blank'],
        [
          [ok, { ...ok, start: '2026-02-30T09:00:00Z' }],
          'activities[1].start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds',
        ],
        [
          [{ ...ok, start: '2026-11-22T12:30:00Z' }],
          'activities[0].start must not make the activity end more than 5 minutes in the future',
        ],
        [[{ ...ok, id: 'a_twice' }, ok, { ...ok, id: 'a_twice' }], 'activities[2].id repeats activities[0].id'],
      ];
      for (const [activities, message] of cases) {
        const refused = await post(activities);
        assert.equal(refused.status, 400, refused.body);
        assert.equal(refused.json.error, message);
      }
      // A batch that passes its own rules does go to the thread, which cannot write it.
      const handed = await post([ok]);
      assert.ok(handed.status >= 500, `${handed.status} ${handed.body}`);
      const stored = await database.storage.db
        .selectFrom('activities')
        .select('id')
        .where('headline', '=', 'Fine')
        .execute();
      assert.deepEqual(stored, []);
    } finally {
      await t.close();
    }
  } finally {
    await database.drop();
  }
});
