/** A demo workspace imported into each database answers the API like real data. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { type DemoImport, importDemo } from '../../src/demo/import-demo.ts';
import type { DemoOptions } from '../../src/demo/workspace.ts';
import { addDays, localDateOf } from '../../src/lib/time.ts';
import type { Storage } from '../../src/storage/database.ts';
import { DEFAULT_NOW, type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';

const OPTIONS: DemoOptions = { users: 4, days: 14, seed: '3', now: DEFAULT_NOW };

async function rowCounts(storage: Storage): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['users', 'projects', 'tasks', 'activities', 'day_comments', 'api_keys', 'summaries'] as const) {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(
      storage.db,
    );
    counts[table] = Number(rows[0]!.n);
  }
  return counts;
}

forEachDialect('an imported demo workspace', (dialect) => {
  let t: TestApp;
  let demo: DemoImport;
  const allScopes = () => demo.keys.find((k) => k.name.includes('all scopes'))!;

  before(async () => {
    t = await createTestApp(dialect, { dataset: null });
    demo = await importDemo(t.storage, OPTIONS);
  });
  after(() => t.close());

  test("the first person's demo key reads their profile", async () => {
    const res = await call(t.app, 'GET', '/user', { key: allScopes().key });
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(res.json, { success: true, name: 'Amara Okafor', email: 'amara.okafor@example.com' });
  });

  test('the revoked demo key is refused', async () => {
    const revoked = demo.keys.find((k) => k.revoked)!;
    const res = await call(t.app, 'GET', '/user', { key: revoked.key });
    assert.deepEqual([res.status, res.json.error], [401, 'Invalid API key']);
  });

  test('the last seven days have day rows with projects, categories and tasks', async () => {
    const res = await call(t.app, 'POST', '/report', { key: allScopes().key, body: {} });
    assert.equal(res.status, 200, res.body);
    const worked = res.json.rows.filter((r: { duration: number }) => r.duration > 0);
    assert.ok(worked.length >= 3, JSON.stringify(res.json.rows.map((r: { id: string }) => r.id)));
    for (const row of worked) {
      assert.ok(row.projects.length > 0 && row.categories.length > 0 && row.tasks.length > 0, row.id);
    }
  });

  test('summaries were built: last week has a weekly summary', async () => {
    const res = await call(
      t.app,
      'GET',
      `/message?level=week&format=text&date=${addDays(localDateOf(DEFAULT_NOW, 'Europe/Berlin'), -7)}`,
      {
        key: allScopes().key,
      },
    );
    assert.equal(res.status, 200, res.body);
    assert.match(res.json.metadata.subject, /^Amara's weekly summary: /);
    assert.ok(demo.summaries > 0);
  });

  test('a team report covers the active members of the demo team', async () => {
    const team = await t.storage.db.selectFrom('team_members').select(['team_id', 'user_id', 'status']).execute();
    const teamId = team[0]!.team_id;
    const active = team.filter((m) => m.team_id === teamId && m.status === 'active').map((m) => m.user_id);
    const res = await call(t.app, 'POST', '/report', {
      key: allScopes().key,
      body: {
        dateRange: { from: DEFAULT_NOW - 7 * 86_400_000, to: DEFAULT_NOW },
        aggregationLevel: 'day',
        teamIds: [teamId],
      },
    });
    assert.equal(res.status, 200, res.body);
    const users = new Set(res.json.rows.map((r: { id: string }) => r.id.split(':')[2]));
    assert.deepEqual([...users].sort(), [...active].sort());
  });

  test('importing the same demo again changes nothing', async () => {
    const before = await rowCounts(t.storage);
    await importDemo(t.storage, OPTIONS);
    assert.deepEqual(await rowCounts(t.storage), before);
    assert.equal(before.activities, demo.counts.activity);
  });
});
