/**
 * The search index follows every write (docs/api.md, "POST /search"), and a user only ever finds their own
 * records: re-imports (multi-row upserts), direct inserts, updates, deletes and changed times.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import { DEFAULT_NOW, type TestApp, call, createTestApp, fixturesDir, forEachDialect } from '../helper.ts';
import { DAY_MS } from '../../src/lib/time.ts';

const RANKING = join(fixturesDir, 'search-ranking.json');
const REIMPORT = join(fixturesDir, 'search-reimport.ndjson');
const RITA = 'dbk_search_rank_0123456789abcdef0';
const TOM = 'dbk_search_twin_0123456789abcdef0';

async function ids(t: TestApp, body: Record<string, unknown>, key = RITA): Promise<string[]> {
  const res = await call(t.app, 'POST', '/search', { key, body });
  assert.equal(res.status, 200, res.body);
  assert.equal(res.json.totalMatches, res.json.results.length);
  return res.json.results.map((r: { id: string }) => r.id).sort();
}

forEachDialect('search isolation', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { dataset: RANKING });
  });
  after(() => t.close());

  for (const query of ['kubernetes', 'rate limiter', 'invoice acme', 'standup', 'café müller', 'release notes']) {
    test(`"${query}": each user finds only their own records, though the text is identical`, async () => {
      const rita = await ids(t, { query, days: 30 });
      const tom = await ids(t, { query, days: 30 }, TOM);
      assert.ok(rita.length > 0 && tom.length > 0);
      assert.ok(
        rita.every((id) => !id.startsWith('twin_')),
        rita.join(),
      );
      assert.ok(
        tom.every((id) => id.startsWith('twin_')),
        tom.join(),
      );
    });
  }
});

forEachDialect('search index upkeep', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { dataset: RANKING });
  });
  after(() => t.close());

  test('a re-import that updates records replaces their words, without duplicates', async () => {
    await importDataset(t.storage, REIMPORT, { now: () => DEFAULT_NOW });
    assert.deepEqual(await ids(t, { query: 'rollout' }), ['t_kube']);
    assert.deepEqual(await ids(t, { query: 'upgrade' }), ['a_kube_work_2']);
    assert.deepEqual(await ids(t, { query: 'throttle' }), ['a_rl_adjacent']);
    assert.deepEqual(await ids(t, { query: 'rate limiter' }), ['a_rl_desc', 'a_rl_scattered']);
    assert.deepEqual(await ids(t, { query: 'quokka' }), ['a_quokka']);
    assert.deepEqual(await ids(t, { query: 'kubernetes' }), ['a_kube_notes', 't_kube', 't_sync']);

    await importDataset(t.storage, REIMPORT, { now: () => DEFAULT_NOW });
    assert.deepEqual(await ids(t, { query: 'kubernetes' }), ['a_kube_notes', 't_kube', 't_sync']);
    assert.deepEqual(await ids(t, { query: 'quokka' }), ['a_quokka']);
  });

  test("a task without createdAt is found at its first activity's start", async () => {
    const res = await call(t.app, 'POST', '/search', { key: RITA, body: { query: 'platypus' } });
    assert.deepEqual(
      res.json.results.map((r: { id: string; timestamp: string }) => [r.id, r.timestamp]),
      [['t_auto', '2026-11-21T07:00:00.000Z']],
    );
  });

  test('a direct insert is searchable at once', async () => {
    await t.storage.db
      .insertInto('activities')
      .values({
        id: 'a_inserted',
        user_id: 'u_rank',
        start: DEFAULT_NOW - 3_600_000,
        duration_minutes: 5,
        headline: 'Narwhal documentary',
        description: null,
        task_id: null,
        project_id: null,
        effective_project_id: null,
        category_id: null,
        local_date: '2026-11-22',
      })
      .execute();
    assert.deepEqual(await ids(t, { query: 'narwhal' }), ['a_inserted']);
  });

  test('an updated headline or description is found by its new words only', async () => {
    await t.storage.db
      .updateTable('activities')
      .set({ headline: 'Wombat feeding' })
      .where('id', '=', 'a_lunch')
      .execute();
    assert.deepEqual(await ids(t, { query: 'wombat' }), ['a_lunch']);
    assert.deepEqual(await ids(t, { query: 'lunch' }), []);
    await t.storage.db
      .updateTable('tasks')
      .set({ description: 'Ask about the echidna' })
      .where('id', '=', 't_hiring')
      .execute();
    assert.deepEqual(await ids(t, { query: 'echidna' }), ['t_hiring']);
    assert.deepEqual(await ids(t, { query: 'backend candidates' }), []);
  });

  test('a deleted record is no longer found', async () => {
    await t.storage.db.deleteFrom('activities').where('id', '=', 'a_mail_1').execute();
    assert.deepEqual(await ids(t, { query: 'triage' }), ['a_mail_2']);
  });

  test('a record moved in time leaves or enters the window', async () => {
    await t.storage.db
      .updateTable('activities')
      .set({ start: DEFAULT_NOW - 20 * DAY_MS })
      .where('id', '=', 'a_standup_1')
      .execute();
    assert.deepEqual(await ids(t, { query: 'standup' }), ['a_standup_2', 'a_standup_3']);
    assert.deepEqual(await ids(t, { query: 'standup', days: 30 }), ['a_standup_1', 'a_standup_2', 'a_standup_3']);
    await t.storage.db
      .updateTable('tasks')
      .set({ created_at: DEFAULT_NOW - DAY_MS })
      .where('id', '=', 't_cafe')
      .execute();
    const res = await call(t.app, 'POST', '/search', { key: RITA, body: { query: 'offsite', days: 2 } });
    assert.deepEqual(
      res.json.results.map((r: { timestamp: string }) => r.timestamp),
      ['2026-11-21T12:00:00.000Z'],
    );
  });

  test('a record handed to another user moves with it', async () => {
    await t.storage.db.updateTable('activities').set({ user_id: 'u_twin' }).where('id', '=', 'a_greek').execute();
    assert.deepEqual(await ids(t, { query: 'athens' }), []);
    assert.deepEqual(await ids(t, { query: 'athens' }, TOM), ['a_greek']);
  });
});
