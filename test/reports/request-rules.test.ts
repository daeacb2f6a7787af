/** Every 400 of POST /report (api.md, docs/api.md, "POST /report") and the checks before it. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { KEYS, type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';
import { ZONES, ZONE_KEYS } from './zones.ts';

const DAY = 86_400_000;
const FROM = Date.parse('2026-08-01T00:00:00Z');
const range = (days: number, extraMs = 0) => ({ from: FROM, to: FROM + days * DAY + extraMs });

forEachDialect('POST /report request rules', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  const post = (body: unknown, key: string = KEYS.aliceAll) => call(t.app, 'POST', '/report', { key, body });
  const expect400 = async (body: unknown, error: string, key: string = KEYS.aliceAll) => {
    const res = await post(body, key);
    assert.deepEqual([res.status, res.json], [400, { success: false, error, message: error }], JSON.stringify(body));
  };

  test('a non-empty body needs dateRange and aggregationLevel', async () => {
    await expect400({ aggregationLevel: 'day' }, 'dateRange is required');
    await expect400({ sort: 'asc' }, 'dateRange is required');
    await expect400({ dateRange: range(1) }, 'aggregationLevel is required');
    await expect400({ dateRange: { to: FROM }, aggregationLevel: 'day' }, 'dateRange.from is required');
    await expect400({ dateRange: { from: FROM }, aggregationLevel: 'day' }, 'dateRange.to is required');
  });

  test('field types and allowed values name the field', async () => {
    await expect400(
      { dateRange: { from: 'yesterday', to: FROM }, aggregationLevel: 'day' },
      'dateRange.from must be of type number',
    );
    await expect400(
      { dateRange: { from: -1, to: FROM }, aggregationLevel: 'day' },
      'dateRange.from must be at least 0',
    );
    await expect400(
      { dateRange: range(1), aggregationLevel: 'month' },
      'aggregationLevel must be one of: activity, day, task, week, minute',
    );
    await expect400({ dateRange: range(1), aggregationLevel: 'day', sort: 'newest' }, 'sort must be one of: asc, desc');
    await expect400(
      { dateRange: range(1), aggregationLevel: 'day', includeProjects: 'yes' },
      'includeProjects must be of type boolean',
    );
    await expect400(
      { dateRange: range(1), aggregationLevel: 'day', projectIds: { id: 'p_api' } },
      'projectIds must be of type array',
    );
    await expect400([1, 2], 'body must be of type object');
  });

  test('to must be greater than from', async () => {
    await expect400(
      { dateRange: { from: FROM, to: FROM }, aggregationLevel: 'day' },
      'dateRange.to must be greater than dateRange.from',
    );
    await expect400(
      { dateRange: { from: FROM, to: FROM - 1 }, aggregationLevel: 'task' },
      'dateRange.to must be greater than dateRange.from',
    );
    assert.equal((await post({ dateRange: { from: FROM, to: FROM + 1 }, aggregationLevel: 'day' })).status, 200);
  });

  test('activity ranges go up to 90 days, the legacy minute level too', async () => {
    assert.equal((await post({ dateRange: range(90), aggregationLevel: 'activity' })).status, 200);
    assert.equal((await post({ dateRange: range(90), aggregationLevel: 'minute' })).status, 200);
    await expect400(
      { dateRange: range(90, 1), aggregationLevel: 'activity' },
      'dateRange must span at most 90 days for aggregationLevel "activity"',
    );
    await expect400(
      { dateRange: range(91), aggregationLevel: 'minute' },
      'dateRange must span at most 90 days for aggregationLevel "minute"',
    );
  });

  test('day, task and week ranges go up to 365 days', async () => {
    for (const level of ['day', 'task', 'week']) {
      assert.equal((await post({ dateRange: range(365), aggregationLevel: level })).status, 200, level);
      await expect400(
        { dateRange: range(365, 1), aggregationLevel: level },
        `dateRange must span at most 365 days for aggregationLevel "${level}"`,
      );
    }
  });

  test('teamIds are refused at activity level', async () => {
    await expect400(
      { dateRange: range(1), aggregationLevel: 'activity', teamIds: ['t_eng'] },
      'teamIds cannot be used with aggregationLevel "activity"',
    );
    await expect400(
      { dateRange: range(1), aggregationLevel: 'minute', teamIds: ['t_eng'] },
      'teamIds cannot be used with aggregationLevel "minute"',
    );
  });

  test("teamIds must be teams with the caller's active membership", async () => {
    await expect400({ dateRange: range(1), aggregationLevel: 'day', teamIds: ['t_nope'] }, 'Unknown team id: "t_nope"');
    // t_ops exists, but Alice is not in it.
    await expect400(
      { dateRange: range(1), aggregationLevel: 'day', teamIds: ['t_eng', 't_ops'] },
      'Unknown team id: "t_ops"',
    );
    assert.equal((await post({ dateRange: range(1), aggregationLevel: 'day', teamIds: ['t_eng'] })).status, 200);
  });

  test('projectIds must be visible to the caller', async () => {
    await expect400(
      { dateRange: range(1), aggregationLevel: 'day', projectIds: ['p_nope'] },
      'Unknown project id: "p_nope"',
    );
    // Another team's project, and another user's personal project.
    await expect400(
      { dateRange: range(1), aggregationLevel: 'day', projectIds: ['p_api', 'p_ops'] },
      'Unknown project id: "p_ops"',
    );
    await expect400(
      { dateRange: range(1), aggregationLevel: 'activity', projectIds: ['p_garden'] },
      'Unknown project id: "p_garden"',
      KEYS.bob,
    );
    // Alice's own personal (archived) project and a confidential project of her team are fine.
    const ok = await post({
      dateRange: range(1),
      aggregationLevel: 'day',
      projectIds: ['p_old', 'p_secret', 'p_garden'],
    });
    assert.equal(ok.status, 200);
  });

  test('checks before validation: 401, then 403 scope, then 403 plan', async () => {
    const noKey = await call(t.app, 'POST', '/report', { body: { aggregationLevel: 'bad' } });
    assert.deepEqual(
      [noKey.status, noKey.json],
      [401, { success: false, error: 'Missing API key', message: 'Missing API key' }],
    );
    const scope = await post({ aggregationLevel: 'bad' }, KEYS.aliceReadOnly);
    assert.deepEqual(
      [scope.status, scope.json],
      [
        403,
        {
          success: false,
          error: 'API key missing required scope: reports:read',
          message: 'API key missing required scope: reports:read',
        },
      ],
    );
    const plan = await post({ aggregationLevel: 'bad' }, KEYS.carolFree);
    assert.deepEqual(
      [plan.status, plan.json],
      [
        403,
        {
          success: false,
          error: 'This endpoint requires the Core plan or higher.',
          message: 'This endpoint requires the Core plan or higher.',
        },
      ],
    );
  });

  test('other methods on /report are 405', async () => {
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await call(t.app, method, '/report', { key: KEYS.aliceAll });
      assert.deepEqual(
        [res.status, res.json],
        [405, { success: false, error: 'Method Not Allowed', message: 'Method Not Allowed' }],
        method,
      );
    }
  });
});

forEachDialect('POST /report membership rules', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { dataset: ZONES });
  });
  after(() => t.close());

  test('an inactive member cannot report on its former team', async () => {
    const res = await call(t.app, 'POST', '/report', {
      key: ZONE_KEYS.gone,
      body: { dateRange: range(1), aggregationLevel: 'day', teamIds: ['t_world'] },
    });
    assert.deepEqual(
      [res.status, res.json],
      [400, { success: false, error: 'Unknown team id: "t_world"', message: 'Unknown team id: "t_world"' }],
    );
  });

  test('a project of a team the caller left is unknown to it', async () => {
    const res = await call(t.app, 'POST', '/report', {
      key: ZONE_KEYS.gone,
      body: { dateRange: range(1), aggregationLevel: 'day', projectIds: ['p_shared'] },
    });
    assert.deepEqual(
      [res.status, res.json],
      [400, { success: false, error: 'Unknown project id: "p_shared"', message: 'Unknown project id: "p_shared"' }],
    );
  });
});
