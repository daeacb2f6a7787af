/**
 * Week rows of ranges that start or end hours inside local days: "last week" as the n8n node
 * sends it, Monday 00:00Z up to the next Monday 00:00Z. Users east of UTC (Berlin, Auckland),
 * west of it (Los Angeles) and with sunday weeks (New York) each get the one week whose every
 * local date the range touches, summing only the time inside the range; a range that misses a
 * date of a week gives that week no row. Team reports bucket each member in their own zone and
 * week start, and the report workers answer the same, on both databases.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import {
  DEFAULT_NOW,
  type TestApp,
  type TestDatabase,
  call,
  createSharedTestDatabase,
  createTestApp,
  fixturesDir,
  forEachDialect,
} from '../helper.ts';

const DATASET = join(fixturesDir, 'reports-n8n-weeks.json');
const KEY = {
  berlin: 'dbk_weeks_berlin_0123456789abcdef',
  auckland: 'dbk_weeks_auckland_0123456789abcd',
  newYork: 'dbk_weeks_newyork_0123456789abcde',
  losAngeles: 'dbk_weeks_losangeles_0123456789ab',
} as const;

const ms = (iso: string) => Date.parse(iso);
/** Monday 2026-11-16 to Sunday 2026-11-22, as UTC midnights. */
const LAST_WEEK = { from: ms('2026-11-16T00:00:00.000Z'), to: ms('2026-11-23T00:00:00.000Z') };

const BERLIN_WEEK = {
  id: 'week:2026-11-16',
  week: '2026-11-16',
  week_end: '2026-11-22',
  // Monday 00:30 local (10 min) is before the range; next Monday 00:30 (20 min) is in the
  // range but in a week the range cuts.
  duration: 90,
  duration_relative: 4.5,
  projects: [{ name: 'Team roadmap', minutes: 60 }],
  categories: [
    { name: 'Coding', minutes: 60 },
    { name: 'Talking', minutes: 30 },
  ],
  tasks: [{ title: 'Berlin task', duration: 60 }],
};
const AUCKLAND_WEEK = {
  id: 'week:2026-11-16',
  week: '2026-11-16',
  week_end: '2026-11-22',
  // Monday 09:00 local (15 min) is before the range, which starts at 13:00; next Monday 09:00
  // (35 min) is in it but in the next week.
  duration: 70,
  duration_relative: 3.5,
  projects: [{ name: 'Team roadmap', minutes: 70 }],
  categories: [
    { name: 'Coding', minutes: 45 },
    { name: 'Talking', minutes: 25 },
  ],
  tasks: [{ title: 'Auckland task', duration: 45 }],
};
const NEW_YORK_WEEK = {
  // The range starts Sunday 19:00 local: the sunday week of Nov 15 to Nov 21. Sunday 17:00
  // (10 min) is before the range; the next Sunday's 30 min are in the next week.
  id: 'week:2026-11-15',
  week: '2026-11-15',
  week_end: '2026-11-21',
  duration: 60,
  duration_relative: 3,
  projects: [{ name: 'Team roadmap', minutes: 60 }],
  categories: [
    { name: 'Coding', minutes: 40 },
    { name: 'Talking', minutes: 20 },
  ],
  tasks: [{ title: 'New York task', duration: 60 }],
};
const LOS_ANGELES_WEEK = {
  // The range runs from Sunday 16:00 to the next Sunday 16:00 local: Sunday Nov 15 (15 min) is
  // in the week before, Sunday Nov 22 at 18:00 (25 min) is after the range.
  id: 'week:2026-11-16',
  week: '2026-11-16',
  week_end: '2026-11-22',
  duration: 60,
  duration_relative: 3,
  projects: [{ name: 'Team roadmap', minutes: 50 }],
  categories: [
    { name: 'Coding', minutes: 50 },
    { name: 'Talking', minutes: 10 },
  ],
  tasks: [{ title: 'Los Angeles task', duration: 50 }],
};

const member = (userId: string, user: string, email: string, row: Record<string, unknown>) => {
  const { id, week, week_end, ...rest } = row;
  return { id: `${id}:${userId}`, week, week_end, user, user_email: email, ...rest };
};
/** The team report of LAST_WEEK, in plain id order. */
const TEAM_WEEKS = [
  member('u_nys', 'New York', 'newyork@example.com', NEW_YORK_WEEK),
  member('u_akl', 'Auckland', 'auckland@example.com', AUCKLAND_WEEK),
  member('u_ber', 'Berlin', 'berlin@example.com', BERLIN_WEEK),
  member('u_la', 'Los Angeles', 'losangeles@example.com', LOS_ANGELES_WEEK),
];

forEachDialect('week rows of ranges that begin and end inside local days', (dialect) => {
  let database: TestDatabase;
  let inline: TestApp;
  let pooled: TestApp;
  before(async () => {
    database = await createSharedTestDatabase(dialect);
    await importDataset(database.storage, DATASET, { now: () => DEFAULT_NOW });
    inline = await createTestApp(dialect, { database, dataset: null, config: { reportWorkers: 0 } });
    pooled = await createTestApp(dialect, { database, dataset: null, config: { reportWorkers: 1 } });
  });
  after(async () => {
    await inline.close();
    await pooled.close();
    await database.drop();
  });

  const weeks = async (key: string, body: object, t: TestApp = inline) => {
    const res = await call(t.app, 'POST', '/report', { key, body: { aggregationLevel: 'week', ...body } });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json.rowCount, res.json.rows.length);
    return res.json.rows;
  };
  const durations = (rows: { id: string; duration: number }[]) => rows.map((r) => [r.id, r.duration]);

  test('last week as UTC midnights gives the Monday week east of UTC, in Berlin and Auckland', async () => {
    assert.deepEqual(await weeks(KEY.berlin, { dateRange: LAST_WEEK }), [BERLIN_WEEK]);
    assert.deepEqual(await weeks(KEY.auckland, { dateRange: LAST_WEEK }), [AUCKLAND_WEEK]);
  });

  test('last week as UTC midnights gives the Monday week west of UTC, in Los Angeles', async () => {
    assert.deepEqual(await weeks(KEY.losAngeles, { dateRange: LAST_WEEK }), [LOS_ANGELES_WEEK]);
  });

  test('a sunday-week user in New York gets the week that begins the Sunday before', async () => {
    assert.deepEqual(await weeks(KEY.newYork, { dateRange: LAST_WEEK }), [NEW_YORK_WEEK]);
  });

  test('a range that misses one local date of a week gives that week no row, though it holds time in range', async () => {
    // Tuesday to Tuesday as UTC midnights: the Berlin week of Nov 16 misses its Monday, the
    // week of Nov 23 all but its Monday; both hold time in the range.
    assert.deepEqual(
      await weeks(KEY.berlin, { dateRange: { from: ms('2026-11-17T00:00:00Z'), to: ms('2026-11-24T00:00:00Z') } }),
      [],
    );
    // New York local midnights Monday to Monday: each sunday week misses a Sunday.
    assert.deepEqual(
      await weeks(KEY.newYork, { dateRange: { from: ms('2026-11-16T05:00:00Z'), to: ms('2026-11-23T05:00:00Z') } }),
      [],
    );
    // Auckland local midnights Monday to Sunday: the range never reaches Sunday Nov 22.
    assert.deepEqual(
      await weeks(KEY.auckland, { dateRange: { from: ms('2026-11-15T11:00:00Z'), to: ms('2026-11-21T11:00:00Z') } }),
      [],
    );
    // Los Angeles, Sunday to Sunday as UTC midnights: Saturday 16:00 to Saturday 16:00 local
    // misses Sunday Nov 22.
    assert.deepEqual(
      await weeks(KEY.losAngeles, { dateRange: { from: ms('2026-11-15T00:00:00Z'), to: ms('2026-11-22T00:00:00Z') } }),
      [],
    );
    // Tuesday to Tuesday as UTC midnights starts Monday 16:00 there: the week is whole again,
    // with its Sunday's time before and after 16:00.
    const tuesdays = { from: ms('2026-11-17T00:00:00Z'), to: ms('2026-11-24T00:00:00Z') };
    assert.deepEqual(durations(await weeks(KEY.losAngeles, { dateRange: tuesdays })), [['week:2026-11-16', 35]]);
  });

  test("the week's first day is the local date of from; its last, the local date of to − 1 ms", async () => {
    // From Berlin's local midnight of Monday Nov 16 (Nov 15 23:00Z).
    const from = ms('2026-11-15T23:00:00.000Z');
    // Up to Sunday's local midnight: the range's last instant is on Saturday.
    assert.deepEqual(await weeks(KEY.berlin, { dateRange: { from, to: ms('2026-11-21T23:00:00.000Z') } }), []);
    // One millisecond more touches Sunday: the week, with Monday's 00:30 and morning.
    assert.deepEqual(durations(await weeks(KEY.berlin, { dateRange: { from, to: ms('2026-11-21T23:00:00.001Z') } })), [
      ['week:2026-11-16', 70],
    ]);
    // The range's last millisecond of Monday still touches it: only Sunday's 30 minutes count.
    const to = LAST_WEEK.to;
    assert.deepEqual(durations(await weeks(KEY.berlin, { dateRange: { from: ms('2026-11-16T22:59:59.999Z'), to } })), [
      ['week:2026-11-16', 30],
    ]);
    assert.deepEqual(await weeks(KEY.berlin, { dateRange: { from: ms('2026-11-16T23:00:00.000Z'), to } }), []);
  });

  test('a team report buckets each member in their own zone and week start', async () => {
    assert.deepEqual(await weeks(KEY.berlin, { dateRange: LAST_WEEK, teamIds: ['t_zones'] }), TEAM_WEEKS);
    const desc = await weeks(KEY.losAngeles, { dateRange: LAST_WEEK, teamIds: ['t_zones'], sort: 'desc' });
    assert.deepEqual(durations(desc), [
      ['week:2026-11-16:u_akl', 70],
      ['week:2026-11-16:u_ber', 90],
      ['week:2026-11-16:u_la', 60],
      ['week:2026-11-15:u_nys', 60],
    ]);
  });

  test('the report workers apply the same rule: a team report, and a range over a month', async () => {
    const body = { aggregationLevel: 'week', dateRange: LAST_WEEK, teamIds: ['t_zones'] };
    assert.deepEqual(await weeks(KEY.berlin, body, pooled), TEAM_WEEKS);
    // Six weeks of Mondays as UTC midnights: 42 days, built on the pool.
    const sixWeeks = { dateRange: { from: ms('2026-10-12T00:00:00Z'), to: LAST_WEEK.to }, sort: 'asc' };
    // Monday Nov 16 00:30 local is in this range.
    assert.deepEqual(durations(await weeks(KEY.berlin, sixWeeks, pooled)), [
      ['week:2026-10-12', 40],
      ['week:2026-11-16', 100],
    ]);
    // New York's range starts on Sunday Oct 11 local, so its sunday weeks from then on are
    // reported; Sunday Nov 15 17:00 local is in this range.
    assert.deepEqual(durations(await weeks(KEY.newYork, sixWeeks, pooled)), [['week:2026-11-15', 70]]);
    for (const [key, b] of [
      [KEY.berlin, body],
      [KEY.berlin, sixWeeks],
      [KEY.auckland, { ...sixWeeks, teamIds: ['t_zones'] }],
    ] as const) {
      const [fromPool, fromThread] = await Promise.all([
        pooled.app.inject({
          method: 'POST',
          url: '/report',
          headers: { 'x-api-key': key },
          payload: { aggregationLevel: 'week', ...b },
        }),
        inline.app.inject({
          method: 'POST',
          url: '/report',
          headers: { 'x-api-key': key },
          payload: { aggregationLevel: 'week', ...b },
        }),
      ]);
      assert.equal(fromPool.statusCode, 200, fromPool.body);
      assert.ok(fromPool.rawPayload.equals(fromThread.rawPayload), `${fromPool.body}\n${fromThread.body}`);
    }
  });
});
