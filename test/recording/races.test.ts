/**
 * Writes racing on PostgreSQL, where several server processes share one database: each race
 * ends in a state some serial order of the two writes gives. The "import" here is the
 * importer's own write path (a bulk write session, which takes no id locks) held open at a
 * gate until the API write waits on its rows; the "other process" is a second app on its own
 * connection pool.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { importDataset } from '../../src/dataset/import.ts';
import { type Storage, openStorage } from '../../src/storage/database.ts';
import { upsertActivities } from '../../src/storage/activities.ts';
import { upsertTasks } from '../../src/storage/tasks.ts';
import { writeRecords } from '../../src/storage/writes.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import {
  DEFAULT_NOW,
  DIALECTS,
  type TestApp,
  type TestDatabase,
  call,
  createTestApp,
  createTestDatabase,
} from '../helper.ts';
import { ALICE, BOB, world } from './world.ts';

const BOB_ROW = {
  user_id: 'u_bob',
  start: Date.parse('2026-11-19T09:00:00Z'),
  duration_minutes: 10,
  headline: 'Imported for Bob',
  description: null,
  task_id: null,
  project_id: null,
  effective_project_id: null,
  category_id: null,
  local_date: '2026-11-19',
};

describe('writes racing an import or another process [postgres]', { skip: !DIALECTS.includes('postgres') }, () => {
  let database: TestDatabase;
  let t: TestApp;
  let other: TestApp;
  let importer: Storage;
  let admin: pg.Client;
  const files = tempFiles();
  before(async () => {
    database = await createTestDatabase('postgres');
    await importDataset(database.storage, files.write('races.json', world), { now: () => DEFAULT_NOW });
    t = await createTestApp('postgres', { database, dataset: null });
    other = await createTestApp('postgres', {
      database: { ...database, storage: openStorage(database.url), drop: async () => {} },
      dataset: null,
    });
    importer = openStorage(database.url);
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  after(async () => {
    await admin.end();
    await importer.close();
    await other.close();
    await other.storage.close();
    await t.close();
    await database.drop();
    files.remove();
  });

  /** Until a statement of this database waits for a lock (the API write blocked on the import's rows). */
  async function untilWaiting(): Promise<void> {
    for (let i = 0; i < 250; i++) {
      const { rows } = await admin.query(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
      );
      if (rows[0].n > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.fail('the API write never waited for the import');
  }

  /** Runs `write` in the importer's bulk session, committing only once `api` waits on it; the API's answer. */
  async function importDuring<T>(
    write: (session: Parameters<Parameters<typeof writeRecords>[2]>[0]) => Promise<void>,
    api: () => Promise<T>,
  ): Promise<T> {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => {
      written = resolve;
    });
    const importing = writeRecords(importer, { bulk: true }, async (session) => {
      await write(session);
      written();
      await gate;
    });
    await wrote;
    const answer = api();
    await untilWaiting();
    release();
    await importing;
    return answer;
  }

  test('an activity id an import gives Bob while Alice records it: 409, and it stays Bob’s', async () => {
    const res = await importDuring(
      (session) => upsertActivities(session, [{ ...BOB_ROW, id: 'a_raced' }]),
      () =>
        call(t.app, 'POST', '/activities', {
          key: ALICE,
          body: { activities: [{ id: 'a_raced', start: '2026-11-20T09:00:00Z', headline: 'Alice takes it' }] },
        }),
    );
    assert.deepEqual([res.status, res.json.error], [409, 'Activity id already in use: "a_raced"']);
    const row = await database.storage.db
      .selectFrom('activities')
      .select(['user_id', 'headline'])
      .where('id', '=', 'a_raced')
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { user_id: 'u_bob', headline: 'Imported for Bob' });
  });

  test('a task id an import gives Bob while Alice creates it: 409, and it stays Bob’s', async () => {
    const res = await importDuring(
      async (session) => {
        await upsertTasks(session, [
          {
            id: 'k_raced',
            user_id: 'u_bob',
            date: '2026-11-19',
            title: 'Imported task',
            description: null,
            project_id: null,
            visible: 1,
            created_at: DEFAULT_NOW,
            created_at_auto: 0,
          },
        ]);
      },
      () => call(t.app, 'POST', '/tasks', { key: ALICE, body: { id: 'k_raced', title: 'Alice task' } }),
    );
    assert.deepEqual([res.status, res.json.error], [409, 'Task id already in use: "k_raced"']);
    const row = await database.storage.db
      .selectFrom('tasks')
      .select(['user_id', 'title'])
      .where('id', '=', 'k_raced')
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { user_id: 'u_bob', title: 'Imported task' });
  });

  test('an import giving Alice’s task to Bob while she renames it: 404, the import’s task stands', async () => {
    await call(t.app, 'POST', '/tasks', { key: ALICE, body: { id: 'k_handed', title: 'Alice original' } });
    const res = await importDuring(
      async (session) => {
        await upsertTasks(session, [
          {
            id: 'k_handed',
            user_id: 'u_bob',
            date: '2026-11-19',
            title: 'Now Bob’s',
            description: null,
            project_id: null,
            visible: 1,
            created_at: DEFAULT_NOW,
            created_at_auto: 0,
          },
        ]);
      },
      () => call(t.app, 'POST', '/tasks/k_handed', { key: ALICE, body: { title: 'Alice renamed' } }),
    );
    assert.deepEqual([res.status, res.json.error], [404, 'Task not found']);
    const row = await database.storage.db
      .selectFrom('tasks')
      .select(['user_id', 'title'])
      .where('id', '=', 'k_handed')
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { user_id: 'u_bob', title: 'Now Bob’s' });
  });

  test('two processes recording the same new ids for two users: one records the batch, the other gets 409', async () => {
    for (let round = 0; round < 10; round++) {
      const batch = {
        activities: [0, 1, 2].map((i) => ({ id: `a_two_${round}_${i}`, start: '2026-11-18T09:00:00Z', headline: 'x' })),
      };
      const [alice, bob] = await Promise.all([
        call(t.app, 'POST', '/activities', { key: ALICE, body: batch }),
        call(other.app, 'POST', '/activities', { key: BOB, body: batch }),
      ]);
      assert.deepEqual([alice.status, bob.status].sort(), [200, 409], `round ${round}`);
      const owners = await database.storage.db
        .selectFrom('activities')
        .select('user_id')
        .distinct()
        .where('id', 'like', `a_two_${round}_%`)
        .execute();
      assert.deepEqual(owners, [{ user_id: alice.status === 200 ? 'u_alice' : 'u_bob' }]);
    }
  });
});
