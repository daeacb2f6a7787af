/**
 * Writes outside an import, as the write API makes them (storage/writes.ts): a batch of one
 * user's activities, tasks and day comments, or deletes, in one session. Reports, search, a
 * project's usedAt and the days marked for the summaries follow at once, on both databases.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ActivityWrite, deleteActivities, upsertActivities } from '../../src/storage/activities.ts';
import { upsertDayComments } from '../../src/storage/day-comments.ts';
import { deleteTasks, upsertTasks } from '../../src/storage/tasks.ts';
import { type WriteSession, writeRecords } from '../../src/storage/writes.ts';
import { KEYS, type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';

const WEEK = { from: Date.parse('2026-11-15T00:00:00Z'), to: Date.parse('2026-11-22T00:00:00Z') };

/** An activity of Alice (Europe/Berlin) with the example's project p_api, `minutes` long. */
function aliceActivity(
  id: string,
  startIso: string,
  minutes: number,
  headline: string,
  fields: Partial<ActivityWrite> = {},
): ActivityWrite {
  const start = Date.parse(startIso);
  return {
    id,
    user_id: 'u_alice',
    start,
    duration_minutes: minutes,
    headline,
    description: null,
    task_id: null,
    project_id: 'p_api',
    effective_project_id: 'p_api',
    category_id: null,
    local_date: new Date(start + 3_600_000).toISOString().slice(0, 10),
    ...fields,
  };
}

forEachDialect('writes through a write session', (dialect) => {
  let t: TestApp;
  let clock = Date.parse('2026-11-22T12:00:00Z');
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  const write = <T>(work: (session: WriteSession) => Promise<T>) =>
    writeRecords(t.storage, { clock: () => clock }, work);

  const dayRows = async () => {
    const res = await call(t.app, 'POST', '/report', {
      key: KEYS.aliceAll,
      body: { dateRange: WEEK, aggregationLevel: 'day' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    return new Map<string, { duration: number; comment: string; projects: { name: string; minutes: number }[] }>(
      res.json.rows.map((r: { date: string }) => [r.date, r]),
    );
  };
  const minutesOn = async (date: string) => (await dayRows()).get(date)?.duration ?? 0;
  const found = async (query: string, source: 'tasks' | 'activity') => {
    const res = await call(t.app, 'POST', '/search', { key: KEYS.aliceAll, body: { query, sources: [source] } });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    return res.json.results as { id: string; timestamp: string }[];
  };
  const usedAt = async (projectId: string) => {
    const res = await call(t.app, 'GET', '/projects?includeArchived=true', { key: KEYS.aliceAll });
    return res.json.projects.find((p: { id: string }) => p.id === projectId).usedAt as string | null;
  };
  /** Alice's days marked changed at the current clock. */
  const changedNow = async () =>
    (
      await t.storage.db
        .selectFrom('changed_days')
        .select('local_date')
        .where('user_id', '=', 'u_alice')
        .where('changed_at', '=', clock)
        .execute()
    )
      .map((r) => r.local_date)
      .sort();

  test('a batch of activities is one upsert: the day report, search, usedAt and the changed day follow', async () => {
    clock += 60_000;
    await write((s) =>
      upsertActivities(s, [
        aliceActivity('w_1', '2026-11-19T09:00:00Z', 20, 'Zephyr rollout one'),
        aliceActivity('w_2', '2026-11-19T09:20:00Z', 20, 'Zephyr rollout two'),
        aliceActivity('w_3', '2026-11-19T09:40:00Z', 20, 'Zephyr rollout three'),
      ]),
    );
    assert.equal(await minutesOn('2026-11-19'), 60);
    assert.deepEqual((await found('zephyr', 'activity')).map((r) => r.id).sort(), ['w_1', 'w_2', 'w_3']);
    assert.equal(await usedAt('p_api'), '2026-11-19T09:40:00.000Z');
    assert.deepEqual(await changedNow(), ['2026-11-19']);
  });

  test('a replaced activity leaves its old day and its old words; both days are changed', async () => {
    clock += 60_000;
    await write((s) => upsertActivities(s, [aliceActivity('w_3', '2026-11-20T10:00:00Z', 30, 'Quokka census')]));
    assert.equal(await minutesOn('2026-11-19'), 40);
    assert.equal(await minutesOn('2026-11-20'), 30);
    assert.deepEqual((await found('zephyr', 'activity')).map((r) => r.id).sort(), ['w_1', 'w_2']);
    assert.deepEqual(
      (await found('quokka', 'activity')).map((r) => r.id),
      ['w_3'],
    );
    assert.equal(await usedAt('p_api'), '2026-11-20T10:00:00.000Z');
    assert.deepEqual(await changedNow(), ['2026-11-19', '2026-11-20']);
  });

  test("deleteActivities deletes only the user's own; reports, search and usedAt lose them", async () => {
    clock += 60_000;
    const deleted = await write((s) => deleteActivities(s, 'u_alice', ['w_3', 'a_bob_0_0_0', 'w_none']));
    assert.deepEqual(deleted, ['w_3']);
    assert.equal(await minutesOn('2026-11-20'), 0);
    assert.deepEqual(await found('quokka', 'activity'), []);
    assert.equal(await usedAt('p_api'), '2026-11-19T09:20:00.000Z');
    assert.deepEqual(await changedNow(), ['2026-11-20']);
    const bob = await t.storage.db.selectFrom('activities').select('id').where('id', '=', 'a_bob_0_0_0').execute();
    assert.equal(bob.length, 1);
  });

  test("an earlier first activity moves a task's derived createdAt, as search shows it", async () => {
    const task = async () => (await found('design rate limiter', 'tasks')).find((r) => r.id === 'k_alice_0_0')!;
    assert.equal((await task()).timestamp, '2026-11-16T08:00:00.000Z');
    clock += 60_000;
    await write((s) =>
      upsertActivities(s, [
        aliceActivity('w_4', '2026-11-15T20:00:00Z', 10, 'Rate limiter sketch', {
          task_id: 'k_alice_0_0',
          project_id: null,
        }),
      ]),
    );
    assert.equal((await task()).timestamp, '2026-11-15T20:00:00.000Z');
    clock += 60_000;
    await write((s) => deleteActivities(s, 'u_alice', ['w_4']));
    assert.equal((await task()).timestamp, '2026-11-16T08:00:00.000Z');
  });

  test("upsertTasks: a task's new project carries its activities without a project of their own; its days are changed", async () => {
    const before = (await dayRows()).get('2026-11-16')!.projects;
    const minutesOf = (projects: { name: string; minutes: number }[], name: string) =>
      projects.find((p) => p.name === name)?.minutes ?? 0;
    clock += 60_000;
    const moved = await write((s) =>
      upsertTasks(s, [
        {
          id: 'k_alice_0_0',
          user_id: 'u_alice',
          date: '2026-11-16',
          title: 'Design rate limiter',
          description: null,
          project_id: 'p_garden',
          visible: 1,
          created_at: Date.parse('2026-11-16T08:00:00Z'),
          created_at_auto: 1,
        },
      ]),
    );
    assert.deepEqual(moved, { moved: [], kept: [] });
    const after = (await dayRows()).get('2026-11-16')!.projects;
    assert.equal(minutesOf(after, 'Public API'), minutesOf(before, 'Public API') - 15);
    assert.equal(minutesOf(after, 'Garden'), minutesOf(before, 'Garden') + 15);
    assert.deepEqual(await changedNow(), ['2026-11-16']);
  });

  test("deleteTasks deletes the user's task with its activities; another user's task stays", async () => {
    const before = await minutesOn('2026-11-16');
    clock += 60_000;
    const deleted = await write((s) => deleteTasks(s, 'u_alice', ['k_alice_0_0', 'k_bob_0_0']));
    assert.deepEqual(deleted, ['k_alice_0_0']);
    assert.equal(await minutesOn('2026-11-16'), before - 15);
    assert.ok(!(await found('design rate limiter', 'tasks')).some((r) => r.id === 'k_alice_0_0'));
    assert.ok(!(await found('design rate limiter step', 'activity')).some((r) => r.id.startsWith('a_alice_0_0_')));
    assert.deepEqual(await changedNow(), ['2026-11-16']);
    const bob = await t.storage.db.selectFrom('tasks').select('id').where('id', '=', 'k_bob_0_0').execute();
    assert.equal(bob.length, 1);
  });

  test('upsertDayComments: the last comment for a day wins and the day is changed', async () => {
    clock += 60_000;
    await write((s) =>
      upsertDayComments(s, [
        { user_id: 'u_alice', date: '2026-11-19', comment: 'first draft' },
        { user_id: 'u_alice', date: '2026-11-19', comment: 'Shipped the zephyr rollout.' },
      ]),
    );
    assert.equal((await dayRows()).get('2026-11-19')!.comment, 'Shipped the zephyr rollout.');
    assert.deepEqual(await changedNow(), ['2026-11-19']);
  });

  test('a failed session changes nothing', async () => {
    clock += 60_000;
    await assert.rejects(
      write(async (s) => {
        await upsertActivities(s, [aliceActivity('w_5', '2026-11-21T09:00:00Z', 30, 'Never kept')]);
        throw new Error('the caller gives up');
      }),
      /the caller gives up/,
    );
    assert.equal(await minutesOn('2026-11-21'), 0);
    assert.deepEqual(await found('never kept', 'activity'), []);
    assert.deepEqual(await changedNow(), []);
  });
});
