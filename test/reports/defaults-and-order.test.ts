/** The empty-body default, row order, optional fields and stable ids (docs/api.md, "POST /report"). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DEFAULT_NOW, KEYS, type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';

const DAY = 86_400_000;
const WEEK_OF_NOV_16 = { from: Date.parse('2026-11-16T00:00:00Z'), to: Date.parse('2026-11-21T00:00:00Z') };

forEachDialect('POST /report defaults and order', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  const post = async (body: unknown, key: string = KEYS.aliceAll) => {
    const res = await call(t.app, 'POST', '/report', { key, body });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.equal(res.json.rowCount, res.json.rows.length);
    return res.json;
  };
  const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

  test('no body and {} both mean the last 7 × 24 h of day rows, newest first', async () => {
    const explicit = await post({
      dateRange: { from: DEFAULT_NOW - 7 * DAY, to: DEFAULT_NOW },
      aggregationLevel: 'day',
      sort: 'desc',
    });
    assert.deepEqual(ids(explicit.rows), ['day:2026-11-18', 'day:2026-11-17', 'day:2026-11-16']);
    assert.deepEqual(await post({}), explicit);
    const noBody = await t.app.inject({ method: 'POST', url: '/report', headers: { 'x-api-key': KEYS.aliceAll } });
    assert.equal(noBody.statusCode, 200);
    assert.deepEqual(noBody.json(), explicit);
  });

  test('the default range follows the clock to the millisecond', async () => {
    // Alice's first 15 minutes on 2026-11-16 start at 08:00Z; from 08:05Z on, 10 remain.
    t.setNow(Date.parse('2026-11-23T08:05:00Z'));
    try {
      const { rows } = await post({});
      assert.deepEqual(
        rows.map((r: { date: string; duration: number }) => [r.date, r.duration]),
        [
          ['2026-11-18', 90],
          ['2026-11-17', 75],
          ['2026-11-16', 55],
        ],
      );
    } finally {
      t.setNow(DEFAULT_NOW);
    }
  });

  test('without sort, rows are in plain id order; asc and desc order by time, ties by id', async () => {
    const body = { dateRange: WEEK_OF_NOV_16, aggregationLevel: 'day', teamIds: ['t_eng'] };
    assert.deepEqual(ids((await post(body)).rows), [
      'day:2026-11-16:u_alice',
      'day:2026-11-16:u_bob',
      'day:2026-11-17:u_alice',
      'day:2026-11-17:u_bob',
      'day:2026-11-18:u_alice',
      'day:2026-11-18:u_bob',
    ]);
    assert.deepEqual(ids((await post({ ...body, sort: 'desc' })).rows), [
      'day:2026-11-18:u_alice',
      'day:2026-11-18:u_bob',
      'day:2026-11-17:u_alice',
      'day:2026-11-17:u_bob',
      'day:2026-11-16:u_alice',
      'day:2026-11-16:u_bob',
    ]);
    const activity = (await post({ dateRange: WEEK_OF_NOV_16, aggregationLevel: 'activity', sort: 'desc' })).rows;
    const stamps = activity.map((r: { timestamp: number }) => r.timestamp);
    assert.deepEqual(
      stamps,
      [...stamps].sort((a, b) => b - a),
    );
    // Without sort, activity rows are in plain id order.
    const byId = ids((await post({ dateRange: WEEK_OF_NOV_16, aggregationLevel: 'activity' })).rows);
    assert.deepEqual(byId, [...byId].sort());
    assert.equal(byId[0], 'activity:a_alice_0_0_0');
  });

  test('task rows sort by task date with sort, by id without', async () => {
    const body = { dateRange: WEEK_OF_NOV_16, aggregationLevel: 'task' };
    assert.deepEqual(ids((await post(body)).rows), [
      'task:k_alice_0_0',
      'task:k_alice_0_1',
      'task:k_alice_0_2',
      'task:k_alice_1_0',
      'task:k_alice_1_1',
      'task:k_alice_1_2',
      'task:k_alice_2_0',
      'task:k_alice_2_1',
      'task:k_alice_2_2',
    ]);
    const desc = (await post({ ...body, sort: 'desc' })).rows;
    assert.deepEqual(
      desc.map((r: { date: string }) => r.date),
      [
        '2026-11-18',
        '2026-11-18',
        '2026-11-18',
        '2026-11-17',
        '2026-11-17',
        '2026-11-17',
        '2026-11-16',
        '2026-11-16',
        '2026-11-16',
      ],
    );
    assert.equal(desc[0].id, 'task:k_alice_2_0');
  });

  test('includeProjects and includeCategories false drop those fields at every level', async () => {
    const off = { includeProjects: false, includeCategories: false };
    const day = (await post({ dateRange: WEEK_OF_NOV_16, aggregationLevel: 'day', ...off })).rows[0];
    assert.deepEqual(Object.keys(day).sort(), ['comment', 'date', 'duration', 'duration_relative', 'id', 'tasks']);
    const week = (
      await post({
        dateRange: { from: Date.parse('2026-11-15T23:00:00Z'), to: Date.parse('2026-11-22T23:00:00Z') },
        aggregationLevel: 'week',
        ...off,
      })
    ).rows;
    assert.equal(week.length, 1);
    assert.deepEqual(Object.keys(week[0]).sort(), ['duration', 'duration_relative', 'id', 'tasks', 'week', 'week_end']);
    const task = (await post({ dateRange: WEEK_OF_NOV_16, aggregationLevel: 'task', ...off })).rows[0];
    assert.deepEqual(Object.keys(task).sort(), ['date', 'duration', 'id', 'task', 'task_id']);
    const activity = (await post({ dateRange: WEEK_OF_NOV_16, aggregationLevel: 'activity', ...off })).rows[0];
    assert.deepEqual(Object.keys(activity).sort(), [
      'description',
      'duration',
      'headline',
      'id',
      'task',
      'task_id',
      'time',
      'timestamp',
      'timestampIso',
    ]);
    const onlyProjects = (
      await post({ dateRange: WEEK_OF_NOV_16, aggregationLevel: 'activity', includeCategories: false })
    ).rows[0];
    assert.equal(onlyProjects.project, 'Public API');
    assert.ok(!('category' in onlyProjects) && !('category_emoji' in onlyProjects));
  });

  test('projectIds keeps only time of those projects and drops comment-only days', async () => {
    const rows = (
      await post({ dateRange: WEEK_OF_NOV_16, aggregationLevel: 'day', projectIds: ['p_garden'], sort: 'asc' })
    ).rows;
    assert.deepEqual(
      rows.map((r: { date: string; duration: number; projects: unknown }) => [r.date, r.duration, r.projects]),
      [
        ['2026-11-16', 25, [{ name: 'Garden', minutes: 25 }]],
        ['2026-11-17', 30, [{ name: 'Garden', minutes: 30 }]],
        ['2026-11-18', 35, [{ name: 'Garden', minutes: 35 }]],
      ],
    );
    const activities = (
      await post({ dateRange: WEEK_OF_NOV_16, aggregationLevel: 'activity', projectIds: ['p_api', 'p_onb'] })
    ).rows;
    assert.equal(activities.length, 3 + 4 + 4 + 5 + 5 + 6);
    assert.ok(activities.every((r: { project_id: string }) => r.project_id === 'p_api' || r.project_id === 'p_onb'));
  });

  test("a key sees only its owner's time in a personal report", async () => {
    const bob = (await post({ dateRange: WEEK_OF_NOV_16, aggregationLevel: 'activity' }, KEYS.bob)).rows;
    assert.equal(bob.length, 45);
    assert.ok(bob.every((r: { id: string }) => r.id.startsWith('activity:a_bob_')));
    // Bob sees his own invisible tasks by title.
    assert.ok(bob.some((r: { task: string }) => r.task === 'Due diligence review'));
  });

  test('the same request gives the same rows and ids every time', async () => {
    for (const aggregationLevel of ['activity', 'day', 'task', 'week']) {
      const body = { dateRange: { from: Date.parse('2026-11-01T00:00:00Z'), to: DEFAULT_NOW }, aggregationLevel };
      const first = await post(body);
      assert.deepEqual(await post(body), first);
      assert.equal(new Set(ids(first.rows)).size, first.rows.length, aggregationLevel);
    }
  });
});
