/**
 * Hand-computed rows of every level for test/fixtures/reports-three-zones.json: members in
 * New York (a 23-hour day on 2026-03-08, weeks from sunday), Berlin (a 25-hour day on
 * 2026-10-25) and Kolkata (+05:30), each bucketed in their own zone.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';
import { ZONES, ZONE_KEYS } from './zones.ts';

const ms = (iso: string) => Date.parse(iso);
// New York local days 2026-03-07 00:00 EST up to 2026-03-15 00:00 EDT.
const NY_MARCH = { from: ms('2026-03-07T05:00:00Z'), to: ms('2026-03-15T04:00:00Z') };
// Berlin's 25-hour day: 2026-10-25 00:00 CEST up to 2026-10-26 00:00 CET.
const BERLIN_LONG_DAY = { from: ms('2026-10-24T22:00:00Z'), to: ms('2026-10-25T23:00:00Z') };
const OCTOBER = { from: ms('2026-10-24T00:00:00Z'), to: ms('2026-10-27T00:00:00Z') };

const BERLIN = { user: 'Berlin member', user_email: 'berlin@example.com' };
const KOLKATA = { user: 'kolkata', user_email: 'kolkata@example.com' };
const NEW_YORK = { user: 'New York member', user_email: 'ny@example.com' };

forEachDialect('report rows in three timezones', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { dataset: ZONES });
  });
  after(() => t.close());

  const report = async (key: string, body: unknown) => {
    const res = await call(t.app, 'POST', '/report', { key, body });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal(res.json.success, true);
    assert.equal(res.json.rowCount, res.json.rows.length);
    return res.json.rows;
  };

  test('day rows across the 23-hour New York day, with a comment-only day', async () => {
    const rows = await report(ZONE_KEYS.ny, { dateRange: NY_MARCH, aggregationLevel: 'day', sort: 'asc' });
    assert.deepEqual(rows, [
      {
        id: 'day:2026-03-07',
        date: '2026-03-07',
        duration: 30,
        duration_relative: 7.5,
        projects: [{ name: 'Shared roadmap', minutes: 30 }],
        categories: [{ name: 'Coding', minutes: 30 }],
        tasks: [{ title: 'Plan sprint', duration: 30 }],
        comment: '',
      },
      {
        id: 'day:2026-03-08',
        date: '2026-03-08',
        duration: 70,
        duration_relative: 17.5,
        projects: [
          { name: 'Shared roadmap', minutes: 55 },
          { name: 'Home office', minutes: 15 },
        ],
        categories: [
          { name: 'Coding', minutes: 45 },
          { name: 'Talking', minutes: 25 },
        ],
        tasks: [{ title: 'Plan sprint', duration: 55 }],
        comment: 'Clocks jumped',
      },
      {
        id: 'day:2026-03-09',
        date: '2026-03-09',
        duration: 20,
        duration_relative: 5,
        projects: [{ name: 'Home office', minutes: 20 }],
        categories: [{ name: 'Coding', minutes: 20 }],
        tasks: [{ title: 'Review budget', duration: 20 }],
        comment: '',
      },
      {
        id: 'day:2026-03-10',
        date: '2026-03-10',
        duration: 0,
        duration_relative: 0,
        projects: [],
        categories: [],
        tasks: [],
        comment: 'Quiet day',
      },
      {
        // 100 × 25 ÷ 400 = 6.25, rounded half up.
        id: 'day:2026-03-14',
        date: '2026-03-14',
        duration: 25,
        duration_relative: 6.3,
        projects: [],
        categories: [],
        tasks: [],
        comment: '',
      },
    ]);
  });

  test('the week of the 23-hour day is reported when the range touches all its dates (sunday weeks)', async () => {
    const rows = await report(ZONE_KEYS.ny, { dateRange: NY_MARCH, aggregationLevel: 'week' });
    // The week of 2026-03-01 starts before the range and is dropped.
    const week = [
      {
        id: 'week:2026-03-08',
        week: '2026-03-08',
        week_end: '2026-03-14',
        duration: 115,
        // 100 × 115 ÷ (5 × 400) = 5.75
        duration_relative: 5.8,
        projects: [
          { name: 'Shared roadmap', minutes: 55 },
          { name: 'Home office', minutes: 35 },
        ],
        categories: [
          { name: 'Coding', minutes: 65 },
          { name: 'Talking', minutes: 25 },
        ],
        tasks: [
          { title: 'Plan sprint', duration: 55 },
          { title: 'Review budget', duration: 20 },
        ],
      },
    ];
    assert.deepEqual(rows, week);
    // 7 × 24 h from its start ends at 23:00 on its last day, which the range still touches.
    const sevenTimes24h = await report(ZONE_KEYS.ny, {
      dateRange: { from: ms('2026-03-08T05:00:00Z'), to: ms('2026-03-15T03:00:00Z') },
      aggregationLevel: 'week',
    });
    assert.deepEqual(sevenTimes24h, week);
    // Ending at the local midnight that begins its last day cuts the week.
    const short = await report(ZONE_KEYS.ny, {
      dateRange: { from: ms('2026-03-08T05:00:00Z'), to: ms('2026-03-14T04:00:00Z') },
      aggregationLevel: 'week',
    });
    assert.deepEqual(short, []);
  });

  test('task rows carry the task date and leave out time without a task', async () => {
    const rows = await report(ZONE_KEYS.ny, { dateRange: NY_MARCH, aggregationLevel: 'task' });
    assert.deepEqual(rows, [
      {
        id: 'task:k_ny_plan',
        task_id: 'k_ny_plan',
        task: 'Plan sprint',
        date: '2026-03-07',
        duration: 85,
        project: 'Shared roadmap',
        project_id: 'p_shared',
        categories: [
          { name: 'Coding', minutes: 75 },
          { name: 'Talking', minutes: 10 },
        ],
      },
      {
        id: 'task:k_ny_review',
        task_id: 'k_ny_review',
        task: 'Review budget',
        date: '2026-03-09',
        duration: 20,
        project: 'Home office',
        project_id: 'p_ny_home',
        categories: [{ name: 'Coding', minutes: 20 }],
      },
    ]);
  });

  test('activity rows show local wall-clock time on both sides of the jump', async () => {
    const rows = await report(ZONE_KEYS.ny, { dateRange: NY_MARCH, aggregationLevel: 'activity', sort: 'asc' });
    assert.deepEqual(
      rows.map((r: { id: string; time: string }) => [r.id, r.time]),
      [
        ['activity:a_ny_01', '23:30'],
        ['activity:a_ny_02', '00:00'],
        ['activity:a_ny_03', '03:30'],
        ['activity:a_ny_04', '23:59'],
        ['activity:a_ny_05', '00:00'],
        ['activity:a_ny_06', '08:00'],
      ],
    );
    assert.deepEqual(rows[0], {
      id: 'activity:a_ny_01',
      timestamp: ms('2026-03-08T04:30:00Z'),
      timestampIso: '2026-03-08T04:30:00.000Z',
      time: '23:30',
      duration: 30,
      headline: 'Sprint planning notes',
      description: 'Late evening before the clocks change',
      task: 'Plan sprint',
      task_id: 'k_ny_plan',
      project: 'Shared roadmap',
      project_id: 'p_shared',
      category: 'Coding',
      category_emoji: '💻',
    });
    assert.deepEqual(rows[3], {
      id: 'activity:a_ny_04',
      timestamp: ms('2026-03-09T03:59:00Z'),
      timestampIso: '2026-03-09T03:59:00.000Z',
      time: '23:59',
      duration: 15,
      headline: 'Desk tidy',
      description: null,
      task: null,
      task_id: null,
      project: 'Home office',
      project_id: 'p_ny_home',
      category: 'Talking',
      category_emoji: null,
    });
    assert.deepEqual(rows[5], {
      id: 'activity:a_ny_06',
      timestamp: ms('2026-03-14T12:00:00Z'),
      timestampIso: '2026-03-14T12:00:00.000Z',
      time: '08:00',
      duration: 25,
      headline: 'Reading',
      description: null,
      task: null,
      task_id: null,
      project: null,
      project_id: null,
      category: null,
      category_emoji: null,
    });
  });

  test('the 25-hour Berlin day is one day row holding all 25 hours, and nothing either side', async () => {
    const rows = await report(ZONE_KEYS.berlin, { dateRange: BERLIN_LONG_DAY, aggregationLevel: 'day' });
    assert.deepEqual(rows, [
      {
        id: 'day:2026-10-25',
        date: '2026-10-25',
        duration: 80,
        // 100 × 80 ÷ 480 = 16.67
        duration_relative: 16.7,
        projects: [
          { name: 'Shared roadmap', minutes: 45 },
          { name: 'Berlin garden', minutes: 20 },
          { name: 'Merger', minutes: 15 },
        ],
        categories: [
          { name: 'Coding', minutes: 45 },
          { name: 'Talking', minutes: 35 },
        ],
        // The owner sees its own invisible and confidential tasks by name.
        tasks: [
          { title: 'Write spec', duration: 30 },
          { title: 'Deal memo', duration: 15 },
          { title: 'Quiet task', duration: 15 },
        ],
        comment: 'Long day',
      },
    ]);
  });

  test('activity rows in the hour that repeats read 02:30 twice', async () => {
    const rows = await report(ZONE_KEYS.berlin, {
      dateRange: BERLIN_LONG_DAY,
      aggregationLevel: 'minute',
      sort: 'desc',
      includeProjects: false,
      includeCategories: false,
    });
    assert.deepEqual(
      rows.map((r: { id: string; time: string; timestampIso: string }) => [r.id, r.time, r.timestampIso]),
      [
        ['minute:a_ber_05', '23:59', '2026-10-25T22:59:00.000Z'],
        ['minute:a_ber_04', '02:30', '2026-10-25T01:30:00.000Z'],
        ['minute:a_ber_03', '02:30', '2026-10-25T00:30:00.000Z'],
        ['minute:a_ber_02', '00:00', '2026-10-24T22:00:00.000Z'],
      ],
    );
    assert.deepEqual(rows[1], {
      id: 'minute:a_ber_04',
      timestamp: ms('2026-10-25T01:30:00Z'),
      timestampIso: '2026-10-25T01:30:00.000Z',
      time: '02:30',
      duration: 15,
      headline: 'Quiet work',
      description: null,
      task: 'Quiet task',
      task_id: 'k_ber_secret',
    });
  });

  test('a monday week holding the 25-hour day: whole in 7 days + 1 hour, its last hour left out in 7 × 24 h', async () => {
    const week = { from: ms('2026-10-18T22:00:00Z'), to: ms('2026-10-25T23:00:00Z') };
    const rows = await report(ZONE_KEYS.berlin, { dateRange: week, aggregationLevel: 'week' });
    assert.deepEqual(rows, [
      {
        id: 'week:2026-10-19',
        week: '2026-10-19',
        week_end: '2026-10-25',
        duration: 140,
        // 100 × 140 ÷ 2400 = 5.83
        duration_relative: 5.8,
        projects: [
          { name: 'Shared roadmap', minutes: 105 },
          { name: 'Berlin garden', minutes: 20 },
          { name: 'Merger', minutes: 15 },
        ],
        categories: [
          { name: 'Coding', minutes: 105 },
          { name: 'Talking', minutes: 35 },
        ],
        tasks: [
          { title: 'Write spec', duration: 90 },
          { title: 'Deal memo', duration: 15 },
          { title: 'Quiet task', duration: 15 },
        ],
      },
    ]);
    // 7 × 24 h ends at 23:00 on Sunday: the range touches every date of the week, and the row
    // sums its time up to then, without the 20 minutes at 23:59.
    const sevenTimes24h = await report(ZONE_KEYS.berlin, {
      dateRange: { from: week.from, to: week.from + 7 * 86_400_000 },
      aggregationLevel: 'week',
    });
    assert.deepEqual(sevenTimes24h, [
      {
        id: 'week:2026-10-19',
        week: '2026-10-19',
        week_end: '2026-10-25',
        duration: 120,
        duration_relative: 5,
        projects: [
          { name: 'Shared roadmap', minutes: 105 },
          { name: 'Merger', minutes: 15 },
        ],
        categories: [
          { name: 'Coding', minutes: 105 },
          { name: 'Talking', minutes: 15 },
        ],
        tasks: [
          { title: 'Write spec', duration: 90 },
          { title: 'Deal memo', duration: 15 },
          { title: 'Quiet task', duration: 15 },
        ],
      },
    ]);
    // Ending at Sunday's local midnight cuts the week.
    const toSunday = await report(ZONE_KEYS.berlin, {
      dateRange: { from: week.from, to: ms('2026-10-24T22:00:00Z') },
      aggregationLevel: 'week',
    });
    assert.deepEqual(toSunday, []);
  });

  test('team day rows: each member in their own zone, others masked, inactive members absent', async () => {
    const rows = await report(ZONE_KEYS.ny, {
      dateRange: OCTOBER,
      aggregationLevel: 'day',
      teamIds: ['t_world'],
      sort: 'asc',
    });
    assert.deepEqual(rows, [
      {
        id: 'day:2026-10-24:u_ber',
        date: '2026-10-24',
        ...BERLIN,
        duration: 60,
        duration_relative: 12.5,
        projects: [{ name: 'Shared roadmap', minutes: 60 }],
        categories: [{ name: 'Coding', minutes: 60 }],
        tasks: [{ title: 'Write spec', duration: 60 }],
        comment: '',
      },
      {
        // A private project reads Other; its task is neither hidden nor confidential.
        id: 'day:2026-10-24:u_kol',
        date: '2026-10-24',
        ...KOLKATA,
        duration: 40,
        duration_relative: 8.9,
        projects: [{ name: 'Other', minutes: 40 }],
        categories: [{ name: 'Coding', minutes: 40 }],
        tasks: [{ title: 'Journal', duration: 40 }],
        comment: '',
      },
      {
        id: 'day:2026-10-24:u_ny',
        date: '2026-10-24',
        ...NEW_YORK,
        duration: 35,
        duration_relative: 8.8,
        projects: [{ name: 'Shared roadmap', minutes: 35 }],
        categories: [{ name: 'Talking', minutes: 35 }],
        tasks: [{ title: 'October sync', duration: 35 }],
        comment: '',
      },
      {
        // Another member's personal project reads Other; the invisible task and the task of the
        // confidential project merge into one Hidden task entry.
        id: 'day:2026-10-25:u_ber',
        date: '2026-10-25',
        ...BERLIN,
        duration: 80,
        duration_relative: 16.7,
        projects: [
          { name: 'Shared roadmap', minutes: 45 },
          { name: 'Other', minutes: 20 },
          { name: 'Merger', minutes: 15 },
        ],
        categories: [
          { name: 'Coding', minutes: 45 },
          { name: 'Talking', minutes: 35 },
        ],
        tasks: [
          { title: 'Hidden task', duration: 30 },
          { title: 'Write spec', duration: 30 },
        ],
        comment: 'Long day',
      },
      {
        id: 'day:2026-10-25:u_kol',
        date: '2026-10-25',
        ...KOLKATA,
        duration: 35,
        duration_relative: 7.8,
        projects: [
          { name: 'Shared roadmap', minutes: 23 },
          { name: 'Other', minutes: 12 },
        ],
        categories: [{ name: 'Talking', minutes: 35 }],
        tasks: [{ title: 'Journal', duration: 12 }],
        comment: '',
      },
      {
        id: 'day:2026-10-25:u_ny',
        date: '2026-10-25',
        ...NEW_YORK,
        duration: 23,
        duration_relative: 5.8,
        projects: [{ name: 'Shared roadmap', minutes: 23 }],
        categories: [{ name: 'Coding', minutes: 23 }],
        tasks: [{ title: 'October sync', duration: 23 }],
        comment: '',
      },
      {
        id: 'day:2026-10-26:u_ber',
        date: '2026-10-26',
        ...BERLIN,
        duration: 25,
        duration_relative: 5.2,
        projects: [{ name: 'Other', minutes: 25 }],
        categories: [{ name: 'Coding', minutes: 25 }],
        tasks: [{ title: 'Plant bulbs', duration: 25 }],
        comment: '',
      },
      {
        // Local midnight of 2026-10-26 in Kolkata is 2026-10-25T18:30Z, inside the range.
        id: 'day:2026-10-26:u_kol',
        date: '2026-10-26',
        ...KOLKATA,
        duration: 0,
        duration_relative: 0,
        projects: [],
        categories: [],
        tasks: [],
        comment: 'Holiday',
      },
    ]);
  });

  test('team week rows: each member by their own week start, newest first, ties by id', async () => {
    const rows = await report(ZONE_KEYS.ny, {
      dateRange: { from: ms('2026-10-18T00:00:00Z'), to: ms('2026-11-02T00:00:00Z') },
      aggregationLevel: 'week',
      teamIds: ['t_world'],
      sort: 'desc',
    });
    assert.deepEqual(rows, [
      {
        id: 'week:2026-10-26:u_ber',
        week: '2026-10-26',
        week_end: '2026-11-01',
        ...BERLIN,
        duration: 25,
        duration_relative: 1,
        projects: [{ name: 'Other', minutes: 25 }],
        categories: [{ name: 'Coding', minutes: 25 }],
        tasks: [{ title: 'Plant bulbs', duration: 25 }],
      },
      {
        // 100 × 23 ÷ 2000 = 1.15 exactly; a float would round it down to 1.1.
        id: 'week:2026-10-25:u_ny',
        week: '2026-10-25',
        week_end: '2026-10-31',
        ...NEW_YORK,
        duration: 23,
        duration_relative: 1.2,
        projects: [{ name: 'Shared roadmap', minutes: 23 }],
        categories: [{ name: 'Coding', minutes: 23 }],
        tasks: [{ title: 'October sync', duration: 23 }],
      },
      {
        id: 'week:2026-10-19:u_ber',
        week: '2026-10-19',
        week_end: '2026-10-25',
        ...BERLIN,
        duration: 140,
        duration_relative: 5.8,
        projects: [
          { name: 'Shared roadmap', minutes: 105 },
          { name: 'Other', minutes: 20 },
          { name: 'Merger', minutes: 15 },
        ],
        categories: [
          { name: 'Coding', minutes: 105 },
          { name: 'Talking', minutes: 35 },
        ],
        tasks: [
          { title: 'Write spec', duration: 90 },
          { title: 'Hidden task', duration: 30 },
        ],
      },
      {
        id: 'week:2026-10-19:u_kol',
        week: '2026-10-19',
        week_end: '2026-10-25',
        ...KOLKATA,
        duration: 75,
        duration_relative: 3.3,
        projects: [
          { name: 'Other', minutes: 52 },
          { name: 'Shared roadmap', minutes: 23 },
        ],
        categories: [
          { name: 'Coding', minutes: 40 },
          { name: 'Talking', minutes: 35 },
        ],
        tasks: [{ title: 'Journal', duration: 52 }],
      },
      {
        id: 'week:2026-10-18:u_ny',
        week: '2026-10-18',
        week_end: '2026-10-24',
        ...NEW_YORK,
        duration: 35,
        duration_relative: 1.8,
        projects: [{ name: 'Shared roadmap', minutes: 35 }],
        categories: [{ name: 'Talking', minutes: 35 }],
        tasks: [{ title: 'October sync', duration: 35 }],
      },
    ]);
  });

  test('team task rows: hidden tasks merge per member and date, masked ids are null', async () => {
    const rows = await report(ZONE_KEYS.ny, { dateRange: OCTOBER, aggregationLevel: 'task', teamIds: ['t_world'] });
    assert.deepEqual(rows, [
      {
        // The two hidden tasks are in different projects, so the merged row names none.
        id: 'task:hidden:2026-10-25:u_ber',
        task_id: null,
        task: 'Hidden task',
        date: '2026-10-25',
        ...BERLIN,
        duration: 30,
        project: null,
        project_id: null,
        categories: [
          { name: 'Coding', minutes: 15 },
          { name: 'Talking', minutes: 15 },
        ],
      },
      {
        id: 'task:k_ber_garden',
        task_id: 'k_ber_garden',
        task: 'Plant bulbs',
        date: '2026-10-26',
        ...BERLIN,
        duration: 25,
        project: 'Other',
        project_id: null,
        categories: [{ name: 'Coding', minutes: 25 }],
      },
      {
        id: 'task:k_ber_write',
        task_id: 'k_ber_write',
        task: 'Write spec',
        date: '2026-10-24',
        ...BERLIN,
        duration: 90,
        project: 'Shared roadmap',
        project_id: 'p_shared',
        categories: [{ name: 'Coding', minutes: 90 }],
      },
      {
        // The task's own date, although part of its time fell on the day before.
        id: 'task:k_kol_notes',
        task_id: 'k_kol_notes',
        task: 'Journal',
        date: '2026-10-25',
        ...KOLKATA,
        duration: 52,
        project: 'Other',
        project_id: null,
        categories: [
          { name: 'Coding', minutes: 40 },
          { name: 'Talking', minutes: 12 },
        ],
      },
      {
        id: 'task:k_ny_oct',
        task_id: 'k_ny_oct',
        task: 'October sync',
        date: '2026-10-24',
        ...NEW_YORK,
        duration: 58,
        project: 'Shared roadmap',
        project_id: 'p_shared',
        categories: [
          { name: 'Talking', minutes: 35 },
          { name: 'Coding', minutes: 23 },
        ],
      },
    ]);
  });

  test("the same team seen by its Berlin member unmasks only Berlin's own rows", async () => {
    const rows = await report(ZONE_KEYS.berlin, { dateRange: OCTOBER, aggregationLevel: 'task', teamIds: ['t_world'] });
    assert.deepEqual(
      rows.map((r: { id: string; task: string; project: string | null }) => [r.id, r.task, r.project]),
      [
        ['task:k_ber_deal', 'Deal memo', 'Merger'],
        ['task:k_ber_garden', 'Plant bulbs', 'Berlin garden'],
        ['task:k_ber_secret', 'Quiet task', 'Shared roadmap'],
        ['task:k_ber_write', 'Write spec', 'Shared roadmap'],
        ['task:k_kol_notes', 'Journal', 'Other'],
        ['task:k_ny_oct', 'October sync', 'Shared roadmap'],
      ],
    );
  });

  test('projectIds filters team rows and drops comment-only days', async () => {
    const rows = await report(ZONE_KEYS.ny, {
      dateRange: OCTOBER,
      aggregationLevel: 'day',
      teamIds: ['t_world'],
      projectIds: ['p_shared'],
      includeCategories: false,
    });
    assert.deepEqual(rows, [
      {
        id: 'day:2026-10-24:u_ber',
        date: '2026-10-24',
        ...BERLIN,
        duration: 60,
        duration_relative: 12.5,
        projects: [{ name: 'Shared roadmap', minutes: 60 }],
        tasks: [{ title: 'Write spec', duration: 60 }],
        comment: '',
      },
      {
        id: 'day:2026-10-24:u_ny',
        date: '2026-10-24',
        ...NEW_YORK,
        duration: 35,
        duration_relative: 8.8,
        projects: [{ name: 'Shared roadmap', minutes: 35 }],
        tasks: [{ title: 'October sync', duration: 35 }],
        comment: '',
      },
      {
        id: 'day:2026-10-25:u_ber',
        date: '2026-10-25',
        ...BERLIN,
        duration: 45,
        duration_relative: 9.4,
        projects: [{ name: 'Shared roadmap', minutes: 45 }],
        tasks: [
          { title: 'Write spec', duration: 30 },
          { title: 'Hidden task', duration: 15 },
        ],
        comment: 'Long day',
      },
      {
        id: 'day:2026-10-25:u_kol',
        date: '2026-10-25',
        ...KOLKATA,
        duration: 23,
        duration_relative: 5.1,
        projects: [{ name: 'Shared roadmap', minutes: 23 }],
        tasks: [],
        comment: '',
      },
      {
        id: 'day:2026-10-25:u_ny',
        date: '2026-10-25',
        ...NEW_YORK,
        duration: 23,
        duration_relative: 5.8,
        projects: [{ name: 'Shared roadmap', minutes: 23 }],
        tasks: [{ title: 'October sync', duration: 23 }],
        comment: '',
      },
    ]);
  });

  test('team rows never contain time of inactive members or of people outside the teams', async () => {
    for (const level of ['day', 'week', 'task']) {
      const rows = await report(ZONE_KEYS.ny, {
        dateRange: { from: ms('2026-10-01T00:00:00Z'), to: ms('2026-11-30T00:00:00Z') },
        aggregationLevel: level,
        teamIds: ['t_world'],
      });
      const text = JSON.stringify(rows);
      for (const stranger of [
        'gone@example.com',
        'outsider@example.com',
        'u_gone',
        'u_out',
        'Gone task',
        'Outside task',
      ]) {
        assert.ok(!text.includes(stranger), `${level} rows mention ${stranger}`);
      }
      const members = new Set(rows.map((r: { user_email: string }) => r.user_email));
      assert.deepEqual([...members].sort(), ['berlin@example.com', 'kolkata@example.com', 'ny@example.com']);
    }
  });
});
