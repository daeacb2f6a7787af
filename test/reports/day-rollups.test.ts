/**
 * Per-day rollups (migration 0003) behind reports and summaries: every write path keeps
 * day_rollups equal to a fresh GROUP BY over activities, and sumMinutes, which reads whole local
 * days from the rollups and only the cut edge days from activities, gives the same groups as the
 * plain aggregation over activities, for random people, timezones (DST and skipped days), ranges,
 * imports, re-imports, timezone and task project changes, and deletes.
 *
 * Minutes are compared to 1e-9: SQL sums of doubles depend on summation order even for the
 * plain query, and rollups add and subtract; what reports show (six decimals) must be equal.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { importDataset } from '../../src/dataset/import.ts';
import { cleanMinutes } from '../../src/services/reports/tally.ts';
import { recomputeLocalDates } from '../../src/storage/activities.ts';
import { type MinuteGroup, sumMinutes } from '../../src/storage/aggregates.ts';
import type { Storage } from '../../src/storage/database.ts';
import { DEFAULT_NOW, type TestDatabase, createTestDatabase, forEachDialect } from '../helper.ts';

// Zones whose days start at odd instants: midnight DST changes (Sao Paulo 2018-11-04, Santiago,
// Havana, Beirut), a 30-minute change (Lord Howe), a skipped day (Apia 2011-12-30).
const TIMEZONES = [
  'UTC',
  'America/Sao_Paulo',
  'America/Santiago',
  'America/Havana',
  'Asia/Beirut',
  'Europe/Berlin',
  'Australia/Lord_Howe',
  'Pacific/Apia',
  'Asia/Kathmandu',
  'America/New_York',
];
const WINDOWS = [
  '2011-12-20T00:00:00Z',
  '2018-10-20T00:00:00Z',
  '2019-03-25T00:00:00Z',
  '2026-03-01T00:00:00Z',
  '2026-10-15T00:00:00Z',
];
const WINDOW_DAYS = 40;
const PROJECTS = ['p_one', 'p_two', 'p_three'];
const CATEGORIES = ['c_one', 'c_two'];

type Key = string;
const keyOf = (g: MinuteGroup): Key =>
  [g.userId, g.date, g.projectId ?? '-', g.categoryId ?? '-', g.taskId ?? '-'].join('|');

function assertSameGroups(actual: MinuteGroup[], expected: MinuteGroup[], what: string): void {
  const byKey = (groups: MinuteGroup[]) => {
    const map = new Map<Key, number>();
    for (const g of groups) {
      assert.ok(!map.has(keyOf(g)), `${what}: group ${keyOf(g)} appears twice`);
      map.set(keyOf(g), g.minutes);
    }
    return map;
  };
  const a = byKey(actual);
  const e = byKey(expected);
  assert.deepEqual([...a.keys()].sort(), [...e.keys()].sort(), `${what}: the same groups`);
  for (const [key, minutes] of e) {
    const got = a.get(key)!;
    assert.ok(Math.abs(got - minutes) < 1e-9, `${what}: ${key} has ${got} minutes, expected ${minutes}`);
    assert.equal(cleanMinutes(got), cleanMinutes(minutes), `${what}: ${key} as reported`);
  }
}

/** The aggregation sumMinutes replaces: a GROUP BY over the activities starting in [from, to). */
async function groupActivities(
  storage: Storage,
  userIds: string[],
  from: number,
  to: number,
  projectIds?: string[],
): Promise<MinuteGroup[]> {
  let query = storage.db
    .selectFrom('activities')
    .select((eb) => [
      'user_id',
      'local_date',
      'effective_project_id',
      'category_id',
      'task_id',
      eb.fn.sum<number>('duration_minutes').as('minutes'),
    ])
    .where('user_id', 'in', userIds)
    .where('start', '>=', from)
    .where('start', '<', to)
    .groupBy(['user_id', 'local_date', 'effective_project_id', 'category_id', 'task_id']);
  if (projectIds) query = query.where('effective_project_id', 'in', projectIds);
  return (await query.execute()).map((r) => ({
    userId: r.user_id,
    date: r.local_date,
    projectId: r.effective_project_id,
    categoryId: r.category_id,
    taskId: r.task_id,
    minutes: Number(r.minutes),
  }));
}

/** day_rollups against a fresh GROUP BY of all activities of the users, counts included. */
async function assertRollupsExact(storage: Storage, userIds: string[], what: string): Promise<void> {
  const rollups = await storage.db.selectFrom('day_rollups').selectAll().where('user_id', 'in', userIds).execute();
  const fresh = await storage.db
    .selectFrom('activities')
    .select((eb) => [
      'user_id',
      'local_date',
      'effective_project_id',
      'category_id',
      'task_id',
      eb.fn.sum<number>('duration_minutes').as('minutes'),
      eb.fn.countAll<number>().as('n'),
    ])
    .where('user_id', 'in', userIds)
    .groupBy(['user_id', 'local_date', 'effective_project_id', 'category_id', 'task_id'])
    .execute();
  const asGroup = (
    r: { user_id: string; local_date: string; minutes: number },
    p: string | null,
    c: string | null,
    t: string | null,
  ) => ({
    userId: r.user_id,
    date: r.local_date,
    projectId: p,
    categoryId: c,
    taskId: t,
    minutes: Number(r.minutes),
  });
  assertSameGroups(
    rollups.map((r) => asGroup(r, r.project_key || null, r.category_key || null, r.task_key || null)),
    fresh.map((r) => asGroup(r, r.effective_project_id, r.category_id, r.task_id)),
    `${what}: rollup minutes`,
  );
  const counts = (rows: { key: Key; n: number }[]) => new Map(rows.map((r) => [r.key, Number(r.n)]));
  assert.deepEqual(
    counts(
      rollups.map((r) => ({
        key: keyOf(asGroup(r, r.project_key || null, r.category_key || null, r.task_key || null)),
        n: r.activities,
      })),
    ),
    counts(fresh.map((r) => ({ key: keyOf(asGroup(r, r.effective_project_id, r.category_id, r.task_id)), n: r.n }))),
    `${what}: rollup counts`,
  );
}

interface Records {
  users?: object[];
  categories?: object[];
  projects?: object[];
  tasks?: object[];
  activities?: object[];
}

const activityArb = fc.record({
  minute: fc.nat(WINDOW_DAYS * 1440 - 1),
  // Hundredths: decimal minutes that binary doubles cannot hold exactly.
  hundredths: fc.integer({ min: 1, max: 6000 }),
  task: fc.option(fc.nat(3)),
  project: fc.option(fc.nat(PROJECTS.length - 1)),
  category: fc.option(fc.nat(CATEGORIES.length - 1)),
});
const personArb = fc.record({
  timezone: fc.constantFrom(...TIMEZONES),
  tasks: fc.array(fc.option(fc.nat(PROJECTS.length - 1)), { minLength: 1, maxLength: 3 }),
  activities: fc.array(activityArb, { maxLength: 30 }),
});
const changeArb = fc.record({
  timezones: fc.array(fc.option(fc.constantFrom(...TIMEZONES)), { minLength: 3, maxLength: 3 }),
  // The first task of each person: kept, moved to no project, or moved to a project.
  taskProjects: fc.array(fc.constantFrom('keep', 'none', ...PROJECTS), { minLength: 3, maxLength: 3 }),
  // Replaced activities: index into the person's list (new ones beyond it), new contents.
  activities: fc.array(fc.record({ person: fc.nat(2), index: fc.nat(40), activity: activityArb }), { maxLength: 15 }),
  deletes: fc.array(fc.record({ person: fc.nat(2), index: fc.nat(30) }), { maxLength: 4 }),
});
const rangeArb = fc.record({
  fromMinute: fc.integer({ min: -1440, max: WINDOW_DAYS * 1440 }),
  spanMinutes: fc.integer({ min: 1, max: (WINDOW_DAYS + 2) * 1440 }),
  // Snapped to a person's local midnights (or not), so whole days start exactly at `from`.
  snapFrom: fc.option(fc.nat(2)),
  snapTo: fc.option(fc.nat(2)),
  projects: fc.option(fc.subarray(PROJECTS, { minLength: 1 })),
  people: fc.subarray([0, 1, 2], { minLength: 1 }),
});

type ActivityChoice = typeof activityArb extends fc.Arbitrary<infer A> ? A : never;

forEachDialect('day rollups', (dialect) => {
  let database: TestDatabase;
  let storage: Storage;
  let dir: string;
  let files = 0;
  before(async () => {
    database = await createTestDatabase(dialect);
    storage = database.storage;
    dir = await mkdtemp(join(tmpdir(), 'daybook-rollups-'));
    await load({
      users: [{ id: 'u_owner', email: 'owner@example.com', timezone: 'UTC' }],
      categories: CATEGORIES.map((id) => ({ id, name: id })),
      projects: PROJECTS.map((id) => ({ id, name: id, createdBy: 'u_owner' })),
    });
  });
  after(async () => {
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  });

  const load = async (records: Records) => {
    const file = join(dir, `part-${files++}.json`);
    await writeFile(file, JSON.stringify({ version: 1, ...records }));
    await importDataset(storage, file, { now: () => DEFAULT_NOW });
  };

  test('every write path keeps day_rollups equal to a GROUP BY of activities', async () => {
    const user = { id: 'u_paths', email: 'paths@example.com', timezone: 'Europe/Berlin' };
    const tasks = [
      { id: 'k_paths_1', userId: 'u_paths', date: '2026-03-28', title: 'one', projectId: 'p_one' },
      { id: 'k_paths_2', userId: 'u_paths', date: '2026-03-29', title: 'two' },
    ];
    const activity = (n: number, start: string, minutes: number, more: object = {}) => ({
      id: `a_paths_${n}`,
      userId: 'u_paths',
      start,
      durationMinutes: minutes,
      headline: `activity ${n}`,
      ...more,
    });
    const activities = [
      activity(1, '2026-03-28T22:30:00Z', 10, { taskId: 'k_paths_1', categoryId: 'c_one' }),
      activity(2, '2026-03-28T23:30:00Z', 0.1, { taskId: 'k_paths_1', categoryId: 'c_one' }),
      activity(3, '2026-03-29T09:00:00Z', 0.2, { taskId: 'k_paths_2' }),
      activity(4, '2026-03-29T22:15:00Z', 7.5, { projectId: 'p_two' }),
      activity(5, '2026-03-29T22:45:00Z', 3),
    ];
    const rollups = () =>
      storage.db
        .selectFrom('day_rollups')
        .select(['local_date', 'project_key', 'task_key', 'minutes', 'activities'])
        .where('user_id', '=', 'u_paths')
        .orderBy('local_date')
        .orderBy('project_key')
        .orderBy('task_key')
        .execute();

    await load({ users: [user], tasks, activities });
    await assertRollupsExact(storage, ['u_paths'], 'import');
    // Berlin: 22:30Z is 23:30 on the 28th; 23:30Z is 01:30 on the 29th (summer time began).
    assert.deepEqual(await rollups(), [
      { local_date: '2026-03-28', project_key: 'p_one', task_key: 'k_paths_1', minutes: 10, activities: 1 },
      { local_date: '2026-03-29', project_key: '', task_key: 'k_paths_2', minutes: 0.2, activities: 1 },
      { local_date: '2026-03-29', project_key: 'p_one', task_key: 'k_paths_1', minutes: 0.1, activities: 1 },
      { local_date: '2026-03-30', project_key: '', task_key: '', minutes: 3, activities: 1 },
      { local_date: '2026-03-30', project_key: 'p_two', task_key: '', minutes: 7.5, activities: 1 },
    ]);

    await load({ users: [user], tasks, activities });
    await assertRollupsExact(storage, ['u_paths'], 'the same file again');

    await load({
      users: [user],
      tasks,
      activities: [
        activity(1, '2026-03-29T08:00:00Z', 12, { taskId: 'k_paths_1', categoryId: 'c_two' }),
        activity(3, '2026-03-29T09:00:00Z', 0.7, { taskId: 'k_paths_2' }),
        activity(5, '2026-03-29T22:45:00Z', 3, { taskId: 'k_paths_2', categoryId: 'c_one' }),
        activity(6, '2026-03-29T12:00:00Z', 1, { taskId: 'k_paths_1' }),
      ],
    });
    await assertRollupsExact(storage, ['u_paths'], 're-import with changes');
    assert.equal(
      (await rollups()).some((r) => r.local_date === '2026-03-28'),
      false,
      'the emptied day is gone',
    );

    // New York: 22:15Z and 22:45Z on the 29th are the 29th there.
    await load({ users: [{ ...user, timezone: 'America/New_York' }] });
    await assertRollupsExact(storage, ['u_paths'], 'timezone change by import');
    assert.equal(
      (await rollups()).some((r) => r.local_date === '2026-03-30'),
      false,
      'late activities moved a day back',
    );

    await storage.db.transaction().execute((trx) => recomputeLocalDates(trx, 'u_paths', 'Asia/Tokyo'));
    await storage.db.updateTable('users').set({ timezone: 'Asia/Tokyo' }).where('id', '=', 'u_paths').execute();
    await assertRollupsExact(storage, ['u_paths'], 'timezone change by account update');

    await load({
      users: [{ ...user, timezone: 'Asia/Tokyo' }],
      tasks: [
        { ...tasks[0], projectId: 'p_three' },
        { ...tasks[1], projectId: 'p_one' },
      ],
    });
    await assertRollupsExact(storage, ['u_paths'], 'task project change');
    const projects = new Set((await rollups()).map((r) => `${r.project_key}/${r.task_key}`));
    assert.ok(projects.has('p_three/k_paths_1') && projects.has('p_one/k_paths_2'), [...projects].join(' '));
    assert.ok(projects.has('p_two/'), 'an activity with its own project keeps it');

    await storage.db.deleteFrom('activities').where('id', 'in', ['a_paths_3', 'a_paths_4']).execute();
    await assertRollupsExact(storage, ['u_paths'], 'direct delete');
    await storage.db.deleteFrom('activities').where('user_id', '=', 'u_paths').execute();
    assert.deepEqual(await rollups(), [], 'no activities, no rollups');
  });

  test('a day that begins twice (Havana 2018-11-04: clocks back from 01:00 to midnight)', async () => {
    const user = { id: 'u_havana', email: 'havana@example.com', timezone: 'America/Havana' };
    const activity = (n: number, start: string) => ({
      id: `a_havana_${n}`,
      userId: 'u_havana',
      start,
      durationMinutes: n,
      headline: 'work',
    });
    // The day's first midnight is 04:00Z (-04:00), its second 05:00Z (-05:00).
    await load({
      users: [user],
      activities: [
        activity(1, '2018-11-03T12:00:00Z'),
        activity(2, '2018-11-04T04:30:00Z'),
        activity(4, '2018-11-04T05:30:00Z'),
        activity(8, '2018-11-05T12:00:00Z'),
        activity(16, '2018-11-06T04:30:00Z'),
      ],
    });
    const dates = await storage.db
      .selectFrom('activities')
      .select(['id', 'local_date'])
      .where('user_id', '=', 'u_havana')
      .orderBy('id')
      .execute();
    assert.deepEqual(Object.fromEntries(dates.map((d) => [d.id, d.local_date])), {
      a_havana_1: '2018-11-03',
      a_havana_2: '2018-11-04',
      a_havana_4: '2018-11-04',
      a_havana_8: '2018-11-05',
      a_havana_16: '2018-11-05',
    });
    for (const [from, to] of [
      ['2018-11-04T04:00:00Z', '2018-11-06T05:00:00Z'],
      ['2018-11-04T05:00:00Z', '2018-11-06T05:00:00Z'],
      ['2018-11-03T04:00:00Z', '2018-11-04T05:00:00Z'],
      ['2018-11-03T04:00:00Z', '2018-11-05T05:00:00Z'],
    ] as const) {
      const q = { userIds: ['u_havana'], from: Date.parse(from), to: Date.parse(to) };
      assertSameGroups(
        await sumMinutes(storage.db, q),
        await groupActivities(storage, q.userIds, q.from, q.to),
        `[${from}, ${to})`,
      );
    }
    const whole = await sumMinutes(storage.db, {
      userIds: ['u_havana'],
      from: Date.parse('2018-11-04T05:00:00Z'),
      to: Date.parse('2018-11-05T05:00:00Z'),
    });
    assert.deepEqual(
      whole.map((g) => g.minutes),
      [4],
      'from the second midnight, the hour before is not in range',
    );
  });

  let run = 0;
  test('sumMinutes equals the GROUP BY over activities after imports, re-imports, changes and deletes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...WINDOWS),
        fc.array(personArb, { minLength: 3, maxLength: 3 }),
        fc.array(changeArb, { maxLength: 2 }),
        fc.array(rangeArb, { minLength: 4, maxLength: 4 }),
        async (window, people, changes, ranges) => {
          run++;
          const windowStart = Date.parse(window);
          const ids = people.map((_, p) => `u_r${run}_${p}`);
          const zones = people.map((p) => p.timezone);
          const taskProjects = people.map((p) => p.tasks.map((t) => (t === null ? null : PROJECTS[t]!)));
          const activityRecord = (p: number, index: number, a: ActivityChoice) => ({
            id: `a_r${run}_${p}_${index}`,
            userId: ids[p],
            start: new Date(windowStart + a.minute * 60_000).toISOString(),
            durationMinutes: a.hundredths / 100,
            headline: 'work',
            taskId: a.task === null ? null : `k_r${run}_${p}_${a.task % taskProjects[p]!.length}`,
            projectId: a.project === null ? null : PROJECTS[a.project],
            categoryId: a.category === null ? null : CATEGORIES[a.category],
          });
          const records = (activities: object[]): Records => ({
            users: ids.map((id, p) => ({ id, email: `${id}@example.com`, timezone: zones[p] })),
            tasks: ids.flatMap((id, p) =>
              taskProjects[p]!.map((projectId, t) => ({
                id: `k_r${run}_${p}_${t}`,
                userId: id,
                date: window.slice(0, 10),
                title: `task ${t}`,
                projectId: projectId ?? undefined,
              })),
            ),
            activities,
          });

          const check = async (stage: string) => {
            await assertRollupsExact(storage, ids, stage);
            for (const r of ranges) {
              const midnight = (ms: number, p: number | null) =>
                p === null ? ms : DateTime.fromMillis(ms, { zone: zones[p]! }).startOf('day').toMillis();
              const from = midnight(windowStart + r.fromMinute * 60_000, r.snapFrom);
              let to = midnight(from + r.spanMinutes * 60_000, r.snapTo);
              if (to <= from) to = from + r.spanMinutes * 60_000;
              const userIds = r.people.map((p) => ids[p]!);
              const q = { userIds, from, to, projectIds: r.projects ?? undefined };
              assertSameGroups(
                await sumMinutes(storage.db, q),
                await groupActivities(storage, userIds, from, to, q.projectIds),
                `${stage}, [${new Date(from).toISOString()}, ${new Date(to).toISOString()}) ${zones.join(' ')}`,
              );
            }
          };

          await load(records(people.flatMap((person, p) => person.activities.map((a, i) => activityRecord(p, i, a)))));
          await check('import');
          for (const [c, change] of changes.entries()) {
            change.timezones.forEach((tz, p) => {
              if (tz !== null) zones[p] = tz;
            });
            change.taskProjects.forEach((project, p) => {
              if (project !== 'keep') taskProjects[p]![0] = project === 'none' ? null : project;
            });
            const replaced = new Map(
              change.activities.map((a) => [`${a.person}/${a.index}`, activityRecord(a.person, a.index, a.activity)]),
            );
            await load(records([...replaced.values()]));
            await check(`re-import ${c}`);
            const gone = change.deletes.map((d) => `a_r${run}_${d.person}_${d.index}`);
            if (gone.length > 0) {
              await storage.db.deleteFrom('activities').where('id', 'in', gone).execute();
              await check(`delete ${c}`);
            }
          }
        },
      ),
      { numRuns: dialect === 'sqlite' ? 60 : 25 },
    );
  });
});
