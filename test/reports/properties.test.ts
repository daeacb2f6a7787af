/**
 * Property-based: for random activity sets of three people in random timezones and random
 * ranges, the report levels agree with each other and with a model computed here independently
 * (local dates through Intl), no row holds a stranger's data, and every row lies in the range.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { importDataset } from '../../src/dataset/import.ts';
import { DEFAULT_NOW, type TestApp, call, createTestApp, fixturesDir, forEachDialect } from '../helper.ts';

const CALLER_KEY = 'dbk_property_caller_0123456789abcd';
const DAY = 86_400_000;
// 70 days around the 2026 spring changes: New York 03-08, Europe 03-29, Lord Howe (30 min) 04-05.
const WINDOW_START = Date.parse('2026-02-20T00:00:00Z');
const WINDOW_DAYS = 70;
const TIMEZONES = [
  'UTC',
  'America/New_York',
  'Europe/Berlin',
  'Asia/Kolkata',
  'Australia/Lord_Howe',
  'Pacific/Chatham',
  'America/St_Johns',
  'Pacific/Kiritimati',
  'Pacific/Pago_Pago',
];
const PEOPLE = ['u_caller', 'u_mate', 'u_stranger'] as const;
type Person = (typeof PEOPLE)[number];
const PROJECTS_OF: Record<Person, string[]> = {
  u_caller: ['p_team', 'p_caller_own', 'p_team_confidential'],
  u_mate: ['p_team', 'p_team_private', 'p_team_confidential', 'p_mate_own'],
  u_stranger: ['p_stranger_own'],
};
const CONFIDENTIAL = new Set(['p_team_confidential']);

const personArb = fc.record({
  timezone: fc.constantFrom(...TIMEZONES),
  weekStart: fc.constantFrom('monday' as const, 'sunday' as const),
  dailyTargetMinutes: fc.integer({ min: 1, max: 1440 }),
  tasks: fc.array(fc.record({ day: fc.nat(WINDOW_DAYS - 1), project: fc.option(fc.nat(3)), visible: fc.boolean() }), {
    maxLength: 4,
  }),
  activities: fc.array(
    fc.record({
      // Mixed-case prefixes: plain id order differs from locale order and from time order.
      prefix: fc.constantFrom('a', 'B', 'c', 'D'),
      minute: fc.nat(WINDOW_DAYS * 1440 - 1),
      halfMinutes: fc.integer({ min: 1, max: 120 }),
      task: fc.option(fc.nat(3)),
      project: fc.option(fc.nat(3)),
      category: fc.option(fc.constantFrom('c_one', 'c_two')),
    }),
    { maxLength: 25 },
  ),
  commentDays: fc.uniqueArray(fc.nat(WINDOW_DAYS - 1), { maxLength: 3 }),
});
const worldArb = fc.record({ u_caller: personArb, u_mate: personArb, u_stranger: personArb });
const rangeArb = fc.record({
  fromMinute: fc.nat(WINDOW_DAYS * 1440),
  spanMinutes: fc.integer({ min: 1, max: 60 * 1440 }),
  // Ranges on the caller's local midnights hit the edges of days and weeks exactly; ranges on UTC
  // midnights are what the n8n node sends, hours inside local days everywhere but in UTC.
  snap: fc.constantFrom('none' as const, 'localMidnights' as const, 'utcMidnights' as const),
});

type World = typeof worldArb extends fc.Arbitrary<infer W> ? W : never;
type RangeChoice = typeof rangeArb extends fc.Arbitrary<infer R> ? R : never;

function rangeFor(choice: RangeChoice, timezone: string): { from: number; to: number } {
  const from = WINDOW_START + choice.fromMinute * 60_000;
  const to = from + choice.spanMinutes * 60_000;
  if (choice.snap === 'none') return { from, to };
  const zone = choice.snap === 'utcMidnights' ? 'UTC' : timezone;
  const midnight = (ms: number) => DateTime.fromMillis(ms, { zone }).startOf('day').toMillis();
  const snappedFrom = midnight(from);
  const snappedTo = midnight(to);
  return { from: snappedFrom, to: snappedTo > snappedFrom ? snappedTo : midnight(snappedFrom + 36 * 3_600_000) };
}

interface ModelActivity {
  id: string;
  userId: Person;
  start: number;
  minutes: number;
  taskId: string | null;
  date: string;
}

interface ModelTask {
  id: string;
  userId: Person;
  date: string;
  title: string;
  projectId: string | null;
  visible: boolean;
}

const localDate = (ms: number, timezone: string) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    ms,
  );
const shiftDate = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
const weekStartOf = (date: string, weekStart: 'monday' | 'sunday') => {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  return shiftDate(date, -(weekStart === 'sunday' ? weekday : (weekday + 6) % 7));
};

/** The dataset of one generated world, and the model the report must agree with. */
function materialize(world: World) {
  const tasks: ModelTask[] = [];
  const activities: ModelActivity[] = [];
  const records = {
    users: [] as object[],
    tasks: [] as object[],
    activities: [] as object[],
    dayComments: [] as object[],
  };
  const comments = new Map<string, string>();
  for (const userId of PEOPLE) {
    const person = world[userId];
    records.users.push({
      id: userId,
      email: `${userId.slice(2)}@example.com`,
      name: userId.slice(2),
      plan: 'core',
      timezone: person.timezone,
      weekStart: person.weekStart,
      dailyTargetMinutes: person.dailyTargetMinutes,
    });
    const projects = PROJECTS_OF[userId];
    person.tasks.forEach((t, i) => {
      const task: ModelTask = {
        id: `k_${userId}_${i}`,
        userId,
        date: shiftDate('2026-02-20', t.day),
        title: `${userId.slice(2)} task ${i}`,
        projectId: t.project === null ? null : projects[t.project % projects.length]!,
        visible: t.visible,
      };
      tasks.push(task);
      records.tasks.push({
        id: task.id,
        userId,
        date: task.date,
        title: task.title,
        projectId: task.projectId,
        visible: task.visible,
      });
    });
    const own = tasks.filter((t) => t.userId === userId);
    person.activities.forEach((a, i) => {
      const start = WINDOW_START + a.minute * 60_000;
      const task = a.task === null || own.length === 0 ? null : own[a.task % own.length]!;
      const activity: ModelActivity = {
        id: `${a.prefix}_${userId}_${i}`,
        userId,
        start,
        minutes: a.halfMinutes / 2,
        taskId: task?.id ?? null,
        date: localDate(start, person.timezone),
      };
      activities.push(activity);
      records.activities.push({
        id: activity.id,
        userId,
        start: new Date(start).toISOString(),
        durationMinutes: activity.minutes,
        headline: `${userId.slice(2)} activity ${i}`,
        taskId: activity.taskId,
        projectId: a.project === null ? null : projects[a.project % projects.length],
        categoryId: a.category,
      });
    });
    for (const day of person.commentDays) {
      const date = shiftDate('2026-02-20', day);
      comments.set(`${userId} ${date}`, `${userId.slice(2)} comment`);
      records.dayComments.push({ userId, date, comment: `${userId.slice(2)} comment` });
    }
  }
  return { records, tasks, activities, comments };
}

type Model = ReturnType<typeof materialize>;

/** Expected day rows (id → duration) of the people, with comment-only days inside the range. */
function expectedDays(
  world: World,
  model: Model,
  range: { from: number; to: number },
  people: Person[],
  team: boolean,
) {
  const days = new Map<string, number>();
  const idOf = (userId: Person, date: string) => (team ? `day:${date}:${userId}` : `day:${date}`);
  for (const a of model.activities) {
    if (!people.includes(a.userId) || a.start < range.from || a.start >= range.to) continue;
    const id = idOf(a.userId, a.date);
    days.set(id, (days.get(id) ?? 0) + a.minutes);
  }
  for (const key of model.comments.keys()) {
    const [userId, date] = key.split(' ') as [Person, string];
    if (!people.includes(userId)) continue;
    const tz = world[userId].timezone;
    // Local midnight of `date` lies in [from, to) exactly when these hold.
    if (localDate(range.from - 1, tz) < date && date <= localDate(range.to - 1, tz) && !days.has(idOf(userId, date))) {
      days.set(idOf(userId, date), 0);
    }
  }
  return days;
}

/**
 * Expected week rows: sums of each person's time in range per local week all of whose dates
 * the range touches.
 */
function expectedWeeks(
  world: World,
  model: Model,
  range: { from: number; to: number },
  people: Person[],
  team: boolean,
) {
  const weeks = new Map<string, number>();
  for (const a of model.activities) {
    if (!people.includes(a.userId) || a.start < range.from || a.start >= range.to) continue;
    const { timezone, weekStart } = world[a.userId];
    const start = weekStartOf(a.date, weekStart);
    // The week's first day is on or after the local date of `from`, its last day on or before
    // the local date of the range's last instant.
    const touchesEveryDate =
      localDate(range.from, timezone) <= start && shiftDate(start, 6) <= localDate(range.to - 1, timezone);
    if (!touchesEveryDate) continue;
    const id = team ? `week:${start}:${a.userId}` : `week:${start}`;
    weeks.set(id, (weeks.get(id) ?? 0) + a.minutes);
  }
  return weeks;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const durations = (rows: { id: string; duration: number }[]) => new Map(rows.map((r) => [r.id, r.duration]));

forEachDialect('report properties', (dialect) => {
  let t: TestApp;
  let dir: string;
  before(async () => {
    t = await createTestApp(dialect, { dataset: join(fixturesDir, 'reports-property-base.json') });
    dir = await mkdtemp(join(tmpdir(), 'daybook-report-property-'));
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  const load = async (records: Model['records']) => {
    await t.storage.db
      .deleteFrom('activities')
      .where('user_id', 'in', [...PEOPLE])
      .execute();
    await t.storage.db
      .deleteFrom('tasks')
      .where('user_id', 'in', [...PEOPLE])
      .execute();
    await t.storage.db
      .deleteFrom('day_comments')
      .where('user_id', 'in', [...PEOPLE])
      .execute();
    const file = join(dir, 'world.json');
    await writeFile(file, JSON.stringify({ version: 1, ...records }));
    await importDataset(t.storage, file, { now: () => DEFAULT_NOW });
  };
  const report = async (body: object) => {
    const res = await call(t.app, 'POST', '/report', { key: CALLER_KEY, body });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal(res.json.rowCount, res.json.rows.length);
    const ids = res.json.rows.map((r: { id: string }) => r.id);
    assert.equal(new Set(ids).size, ids.length, 'row ids are unique');
    return res.json.rows;
  };

  test("personal rows: levels agree, match the model, stay in range and hold only the caller's time", async () => {
    await fc.assert(
      fc.asyncProperty(worldArb, rangeArb, async (world, rangeChoice) => {
        const range = rangeFor(rangeChoice, world.u_caller.timezone);
        const model = materialize(world);
        await load(model.records);
        const mine = model.activities.filter(
          (a) => a.userId === 'u_caller' && a.start >= range.from && a.start < range.to,
        );
        const total = sum(mine.map((a) => a.minutes));
        const tz = world.u_caller.timezone;

        const activity = await report({ dateRange: range, aggregationLevel: 'activity' });
        const expectedIds = mine.map((a) => `activity:${a.id}`).sort();
        assert.deepEqual(
          activity.map((r: { id: string }) => r.id),
          expectedIds,
          "exactly the caller's activities, in plain id order",
        );
        for (const r of activity) {
          assert.ok(r.timestamp >= range.from && r.timestamp < range.to);
          assert.equal(r.time, DateTime.fromMillis(r.timestamp, { zone: tz }).toFormat('HH:mm'), r.id);
        }
        assert.equal(sum(activity.map((r: { duration: number }) => r.duration)), total);

        const days = await report({ dateRange: range, aggregationLevel: 'day', sort: 'asc' });
        assert.deepEqual(durations(days), expectedDays(world, model, range, ['u_caller'], false));
        assert.equal(sum(days.map((r: { duration: number }) => r.duration)), total);
        const dates = days.map((r: { date: string }) => r.date);
        assert.deepEqual(dates, [...dates].sort());
        for (const date of dates) assert.ok(date >= localDate(range.from, tz) && date <= localDate(range.to - 1, tz));
        // Each day lists every task worked on that day under its title, whatever the task's own date.
        for (const day of days) {
          const worked = mine.filter((a) => a.date === day.date && a.taskId !== null);
          const titles = [...new Set(worked.map((a) => model.tasks.find((k) => k.id === a.taskId)!.title))].sort();
          assert.deepEqual(day.tasks.map((k: { title: string }) => k.title).sort(), titles, day.id);
          assert.equal(
            sum(day.tasks.map((k: { duration: number }) => k.duration)),
            sum(worked.map((a) => a.minutes)),
            day.id,
          );
        }

        const tasks = await report({ dateRange: range, aggregationLevel: 'task' });
        const withoutTask = sum(mine.filter((a) => a.taskId === null).map((a) => a.minutes));
        assert.equal(sum(tasks.map((r: { duration: number }) => r.duration)) + withoutTask, total);
        assert.ok(
          tasks.every(
            (r: { id: string; task_id: string }) => r.id === `task:${r.task_id}` && r.task_id.startsWith('k_u_caller_'),
          ),
        );

        const weeks = await report({ dateRange: range, aggregationLevel: 'week' });
        assert.deepEqual(durations(weeks), expectedWeeks(world, model, range, ['u_caller'], false));
        for (const week of weeks) {
          const inWeek = days.filter((d: { date: string }) => d.date >= week.week && d.date <= week.week_end);
          assert.equal(week.duration, sum(inWeek.map((d: { duration: number }) => d.duration)), week.id);
        }

        const text = JSON.stringify([activity, days, tasks, weeks]);
        assert.ok(!/mate|stranger/.test(text), "another user's data in a personal report");
      }),
      { numRuns: 25 },
    );
  });

  test('team rows: every member in their own zone, strangers absent, masked names never shown', async () => {
    await fc.assert(
      fc.asyncProperty(worldArb, rangeArb, async (world, rangeChoice) => {
        const range = rangeFor(rangeChoice, world.u_caller.timezone);
        const model = materialize(world);
        await load(model.records);
        const members: Person[] = ['u_caller', 'u_mate'];
        const body = { dateRange: range, teamIds: ['t_pair'] };

        const days = await report({ ...body, aggregationLevel: 'day' });
        assert.deepEqual(durations(days), expectedDays(world, model, range, members, true));
        const weeks = await report({ ...body, aggregationLevel: 'week', sort: 'desc' });
        assert.deepEqual(durations(weeks), expectedWeeks(world, model, range, members, true));
        const tasks = await report({ ...body, aggregationLevel: 'task' });

        for (const userId of members) {
          const inRange = model.activities.filter(
            (a) => a.userId === userId && a.start >= range.from && a.start < range.to,
          );
          const theirDays = days.filter((r: { id: string }) => r.id.endsWith(`:${userId}`));
          const theirTasks = tasks.filter(
            (r: { user_email: string }) => r.user_email === `${userId.slice(2)}@example.com`,
          );
          const withoutTask = sum(inRange.filter((a) => a.taskId === null).map((a) => a.minutes));
          assert.equal(sum(theirDays.map((r: { duration: number }) => r.duration)), sum(inRange.map((a) => a.minutes)));
          assert.equal(
            sum(theirTasks.map((r: { duration: number }) => r.duration)) + withoutTask,
            sum(inRange.map((a) => a.minutes)),
          );
          for (const week of weeks.filter((r: { id: string }) => r.id.endsWith(`:${userId}`))) {
            const inWeek = theirDays.filter((d: { date: string }) => d.date >= week.week && d.date <= week.week_end);
            assert.equal(week.duration, sum(inWeek.map((d: { duration: number }) => d.duration)), week.id);
          }
        }

        const mateRows = [...days, ...weeks, ...tasks].filter(
          (r: { user_email: string }) => r.user_email === 'mate@example.com',
        );
        const mateText = JSON.stringify(mateRows);
        assert.ok(!mateText.includes('Mate private project') && !mateText.includes('Mate own project'));
        for (const task of model.tasks.filter((k) => k.userId === 'u_mate')) {
          const hidden = !task.visible || (task.projectId !== null && CONFIDENTIAL.has(task.projectId));
          if (hidden) assert.ok(!mateText.includes(`"${task.title}"`) && !mateText.includes(task.id), task.title);
        }
        assert.ok(!/stranger/.test(JSON.stringify([days, weeks, tasks])), "a non-member's data in a team report");
      }),
      { numRuns: 20 },
    );
  });
});
