/**
 * The generator (docs/api.md, "GET / POST /message"): builds ended periods with tracked time, is idempotent,
 * rebuilds what late data changed, removes what lost its tracked time. Observed through the
 * stored rows, the run's counts and /message.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import type { Storage } from '../../src/storage/database.ts';
import { findUser } from '../../src/storage/accounts.ts';
import { EXAMPLE, type TestApp, createTestApp, forEachDialect } from '../helper.ts';
import { AFTER_2026, SUMMARIES_FIXTURE, ZOE, fetchMessage, generate } from './support.ts';

/** u_zoe's summaries after 2026: 7 days, 5 weeks, 4 months, 3 quarters, 2 years. */
const ZOE_SUMMARIES = 21;

async function stored(storage: Storage) {
  const rows = await storage.db
    .selectFrom('summaries')
    .select(['user_id', 'level', 'period_start', 'period_end', 'built_at', 'content'])
    .orderBy('user_id')
    .orderBy('level')
    .orderBy('period_start')
    .execute();
  return rows.map((r) => ({ ...r, built_at: Number(r.built_at) }));
}

const keysOf = (rows: { level: string; period_start: string }[]) => rows.map((r) => `${r.level}:${r.period_start}`);

forEachDialect('summary generation', (dialect) => {
  let t: TestApp;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'daybook-generation-'));
    t = await createTestApp(dialect, { dataset: SUMMARIES_FIXTURE, now: AFTER_2026 });
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('builds every ended period with tracked time, each level', async () => {
    const stats = await generate(t.storage, AFTER_2026);
    assert.deepEqual(stats, {
      users: 1,
      built: ZOE_SUMMARIES,
      current: 0,
      removed: 0,
      claimedElsewhere: 0,
      deliveriesQueued: 0,
    });
    assert.deepEqual(keysOf(await stored(t.storage)), [
      'day:2025-12-30',
      'day:2026-08-12',
      'day:2026-10-05',
      'day:2026-11-10',
      'day:2026-11-16',
      'day:2026-11-17',
      'day:2026-11-18',
      'month:2025-12-01',
      'month:2026-08-01',
      'month:2026-10-01',
      'month:2026-11-01',
      'quarter:2025-10-01',
      'quarter:2026-07-01',
      'quarter:2026-10-01',
      'week:2025-12-29',
      'week:2026-08-10',
      'week:2026-10-05',
      'week:2026-11-09',
      'week:2026-11-16',
      'year:2025-01-01',
      'year:2026-01-01',
    ]);
    const week = (await stored(t.storage)).find((r) => r.level === 'week' && r.period_start === '2026-11-16')!;
    assert.equal(week.period_end, '2026-11-22');
  });

  test('a rerun changes nothing', async () => {
    const before = await stored(t.storage);
    const later = AFTER_2026 + 3_600_000;
    const stats = await generate(t.storage, later);
    assert.deepEqual(stats, {
      users: 1,
      built: 0,
      current: ZOE_SUMMARIES,
      removed: 0,
      claimedElsewhere: 0,
      deliveriesQueued: 0,
    });
    assert.deepEqual(await stored(t.storage), before);
  });

  test('late data rebuilds its periods and the periods compared with them, nothing else', async () => {
    const before = await stored(t.storage);
    const importedAt = AFTER_2026 + 86_400_000;
    const file = join(dir, 'late.ndjson');
    writeFileSync(
      file,
      `${JSON.stringify({
        type: 'activity',
        id: 'a_zoe_late_import',
        userId: 'u_zoe',
        start: '2026-11-17T22:00:00Z',
        durationMinutes: 50,
        headline: 'Forgotten work',
        taskId: 'k_zoe_ship_2',
        categoryId: 'c_deep',
      })}\n`,
    );
    await importDataset(t.storage, file, { now: () => importedAt });

    const stale = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-17', format: 'text' });
    assert.match(stale.json.content, /^2 h tracked$/m, 'served from the stored summary until the next run');

    const stats = await generate(t.storage, importedAt + 60_000);
    assert.equal(stats.built, 6);
    const after = await stored(t.storage);
    const rebuilt = after.filter((row, i) => row.built_at !== before[i]!.built_at);
    assert.deepEqual(keysOf(rebuilt), [
      'day:2026-11-17',
      'day:2026-11-18',
      'month:2026-11-01',
      'quarter:2026-10-01',
      'week:2026-11-16',
      'year:2026-01-01',
    ]);

    const day = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-17', format: 'text' });
    assert.match(day.json.content, /^2 h 50 min tracked$/m);
    const next = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18', format: 'text' });
    assert.match(next.json.content, /^-1 h 15 min compared with the previous day \(2 h 50 min\)$/m);
    assert.deepEqual(await generate(t.storage, importedAt + 120_000), {
      users: 1,
      built: 0,
      current: ZOE_SUMMARIES,
      removed: 0,
      claimedElsewhere: 0,
      deliveriesQueued: 0,
    });
  });

  test('a late import into a past day without a summary builds it', async () => {
    const importedAt = AFTER_2026 + 2 * 86_400_000;
    const file = join(dir, 'new-day.ndjson');
    writeFileSync(
      file,
      `${JSON.stringify({ type: 'activity', id: 'a_zoe_sept', userId: 'u_zoe', start: '2026-09-15T17:00:00Z', durationMinutes: 30, headline: 'September' })}\n`,
    );
    assert.equal((await fetchMessage(t.app, ZOE.summaries, { date: '2026-09-15' })).status, 404);
    await importDataset(t.storage, file, { now: () => importedAt });
    const stats = await generate(t.storage, importedAt + 60_000);
    // New: its day, week and month. Rebuilt: its quarter and year, and October and Q4, which
    // are compared with September and Q3 (the next day and week have no time, so no summary).
    assert.equal(stats.built, 3 + 2 + 2);
    const res = await fetchMessage(t.app, ZOE.summaries, { date: '2026-09-15', format: 'text' });
    assert.equal(res.status, 200, res.body);
    assert.match(res.json.content, /^30 min tracked$/m);
    const october = await fetchMessage(t.app, ZOE.summaries, { date: '2026-10-05', level: 'month', format: 'text' });
    assert.match(october.json.content, /^\+3 h 30 min compared with the previous month \(30 min\)$/m);
  });

  test('a period whose tracked time is gone loses its summary', async () => {
    const changedAt = AFTER_2026 + 3 * 86_400_000;
    await t.storage.db.deleteFrom('activities').where('task_id', '=', 'k_zoe_plan').execute();
    await t.storage.db
      .insertInto('changed_days')
      .values({ user_id: 'u_zoe', local_date: '2026-11-10', changed_at: changedAt })
      .onConflict((oc) => oc.columns(['user_id', 'local_date']).doUpdateSet({ changed_at: changedAt }))
      .execute();
    const stats = await generate(t.storage, changedAt + 60_000);
    assert.equal(stats.removed, 2);
    // Month, quarter and year lose the time; the next week loses its comparison.
    assert.equal(stats.built, 4);
    for (const level of ['day', 'week']) {
      const res = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-10', level });
      assert.equal(res.status, 404, level);
    }
    const week = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18', level: 'week', format: 'text' });
    assert.match(week.json.content, /^No tracked time in the previous week$/m);
  });
});

forEachDialect('summary generation options', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { dataset: SUMMARIES_FIXTURE, now: AFTER_2026 });
    await importDataset(t.storage, EXAMPLE, { now: () => AFTER_2026 });
  });
  after(() => t.close());

  test('--until builds only periods that end on or before that day', async () => {
    const zoe = await findUser(t.storage.db, 'u_zoe');
    const stats = await generate(t.storage, AFTER_2026, { user: zoe, until: '2026-10-31' });
    assert.deepEqual(stats, { users: 1, built: 12, current: 0, removed: 0, claimedElsewhere: 0, deliveriesQueued: 0 });
    assert.equal((await fetchMessage(t.app, ZOE.summaries, { date: '2026-10-05' })).status, 200);
    assert.equal((await fetchMessage(t.app, ZOE.summaries, { date: '2026-10-05', level: 'quarter' })).status, 404);
    assert.equal((await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18' })).status, 404);
  });

  test('--user builds that user only', async () => {
    const users = (await stored(t.storage)).map((r) => r.user_id);
    assert.deepEqual([...new Set(users)], ['u_zoe']);
    const progress: { usersDone: number; usersTotal: number }[] = [];
    const stats = await generate(t.storage, AFTER_2026, { onProgress: (p) => progress.push(p) });
    assert.equal(stats.users, 5);
    // A progress bar knows its total from the start, then counts every user.
    assert.deepEqual(
      progress.map((p) => [p.usersDone, p.usersTotal]),
      [0, 1, 2, 3, 4, 5].map((done) => [done, 5]),
    );
    // Alice and Bob: 3 days, 1 week, month, quarter and year each; u_zoe: the rest of hers.
    assert.equal(stats.built, 7 + 7 + (ZOE_SUMMARIES - 12));
  });
});
