/**
 * A local day that begins twice: in Havana the clocks go back from 01:00 to midnight on
 * 2026-11-01, so that day begins at 04:00Z (-04:00) and its midnight comes again at 05:00Z
 * (-05:00). Day rows, week rows and summaries all cut it at its first midnight, through HTTP on
 * both databases.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';
import { generate } from '../summaries/support.ts';

const KEY = 'dbk_test_havana_0123456789abcdef';
/** Tuesday 2026-11-10, noon in Havana: every period below has ended. */
const NOW = Date.parse('2026-11-10T17:00:00Z');

const dataset = {
  version: 1,
  users: [
    {
      id: 'u_hal',
      email: 'hal@example.com',
      name: 'Hal',
      timezone: 'America/Havana',
      plan: 'core',
      weekStart: 'sunday',
    },
  ],
  activities: [
    { id: 'a_oct27', userId: 'u_hal', start: '2026-10-27T15:00:00Z', durationMinutes: 30, headline: 'tuesday' },
    { id: 'a_oct31', userId: 'u_hal', start: '2026-10-31T15:00:00Z', durationMinutes: 20, headline: 'saturday' },
    // 00:30 local, before the clocks go back: the first hour of Sunday Nov 1.
    { id: 'a_nov1', userId: 'u_hal', start: '2026-11-01T04:30:00Z', durationMinutes: 15, headline: 'first hour' },
    { id: 'a_nov3', userId: 'u_hal', start: '2026-11-03T15:00:00Z', durationMinutes: 25, headline: 'tuesday after' },
  ],
  apiKeys: [{ userId: 'u_hal', name: 'k', key: KEY, scopes: ['reports:read', 'summaries:read'] }],
};

const at = (iso: string) => Date.parse(iso);

forEachDialect('a day that begins twice', (dialect) => {
  let t: TestApp;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'daybook-havana-'));
    const file = join(dir, 'havana.json');
    writeFileSync(file, JSON.stringify(dataset));
    t = await createTestApp(dialect, { dataset: file, now: NOW });
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const report = (from: string, to: string, aggregationLevel: string) =>
    call(t.app, 'POST', '/report', {
      key: KEY,
      body: { dateRange: { from: at(from), to: at(to) }, aggregationLevel, sort: 'asc' },
    });

  test('day rows put the first hour in Nov 1', async () => {
    const res = await report('2026-10-31T04:00:00Z', '2026-11-02T05:00:00Z', 'day');
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(
      res.json.rows.map((r: { id: string; duration: number }) => [r.id, r.duration]),
      [
        ['day:2026-10-31', 20],
        ['day:2026-11-01', 15],
      ],
    );
  });

  test('the week that ends where Nov 1 first begins is a whole week', async () => {
    const res = await report('2026-10-25T04:00:00Z', '2026-11-01T04:00:00Z', 'week');
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(
      res.json.rows.map((r: { id: string; duration: number }) => [r.id, r.duration]),
      [['week:2026-10-25', 50]],
    );
  });

  test('a range that starts at the second midnight still touches Nov 1: its week counts only the time in range', async () => {
    const partial = await report('2026-11-01T05:00:00Z', '2026-11-08T05:00:00Z', 'week');
    assert.deepEqual(
      partial.json.rows.map((r: { id: string; duration: number }) => [r.id, r.duration]),
      [['week:2026-11-01', 25]],
    );
    const cut = await report('2026-11-02T05:00:00Z', '2026-11-08T05:00:00Z', 'week');
    assert.deepEqual(cut.json.rows, []);
    const whole = await report('2026-11-01T04:00:00Z', '2026-11-08T05:00:00Z', 'week');
    assert.deepEqual(
      whole.json.rows.map((r: { id: string; duration: number }) => [r.id, r.duration]),
      [['week:2026-11-01', 40]],
    );
  });

  test('summaries cut the day and the week at the first midnight', async () => {
    await generate(t.storage, NOW);
    const text = async (query: string) => {
      const res = await call(t.app, 'GET', `/message?format=text&${query}`, { key: KEY });
      assert.equal(res.status, 200, `${query}: ${res.body}`);
      return res.json.content as string;
    };
    assert.match(await text('date=2026-10-31'), /20 min tracked/);
    assert.match(await text('date=2026-11-01'), /15 min tracked/);
    assert.match(await text('date=2026-10-25&level=week'), /50 min tracked on 2 of 7 days/);
    assert.match(await text('date=2026-11-01&level=week'), /40 min tracked on 2 of 7 days/);
  });

  test('/message for a date in the last year there is: 404 at every level, not a 500', async () => {
    for (const level of ['day', 'week', 'month', 'quarter', 'year']) {
      const res = await call(t.app, 'GET', `/message?date=9999-12-31&level=${level}`, { key: KEY });
      assert.deepEqual(
        [res.status, res.json],
        [
          404,
          {
            success: false,
            error: 'No summary exists for this date and level yet.',
            message: 'No summary exists for this date and level yet.',
          },
        ],
        level,
      );
    }
  });
});
