/**
 * Summaries at their edges. docs/api.md, "GET / POST /message" around a change of timezone and an import racing a
 * summary run:
 * - a summary exists once its period has ended locally: after its owner moves to a zone that is
 *   behind, summaries of periods that have not ended there are not served, and the next run
 *   removes them;
 * - days changed by an import (activities moved to other local days included) are stamped when
 *   the import finishes and again once it has committed, so a run that read the data before the
 *   commit is rebuilt by the next one.
 * And fractional minutes (summed, then listed as reports list them): sums without binary noise, the same
 * on both databases, ties by name, and a change line that agrees with the durations it compares.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import { summaryStamps } from '../../src/storage/summaries.ts';
import { type TestApp, createTestApp, forEachDialect } from '../helper.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import { fetchMessage, generate } from './support.ts';

const KEY = 'dbk_test_tz_moves_0123456789abcdef';
const SECOND = 1000;

forEachDialect('summaries when a timezone changes', (dialect) => {
  let files: ReturnType<typeof tempFiles>;
  before(() => {
    files = tempFiles();
  });
  after(() => files.remove());

  const apiKeys = [{ userId: 'u_tz', name: 'k', key: KEY, scopes: ['summaries:read'] }];

  test('a move to a zone that is behind: periods not ended there are 404 and removed by the next run', async () => {
    // Noon UTC on the 22nd: already the 23rd in Kiritimati (UTC+14), still the 22nd in Honolulu (UTC-10).
    const now = Date.parse('2026-11-22T12:00:00Z');
    const user = { id: 'u_tz', email: 'tz@example.com', plan: 'core', timezone: 'Pacific/Kiritimati' };
    const activities = [
      { id: 'a1', userId: 'u_tz', start: '2026-11-20T20:00:00Z', durationMinutes: 40, headline: 'one' },
      { id: 'a2', userId: 'u_tz', start: '2026-11-21T12:00:00Z', durationMinutes: 30, headline: 'two' },
      { id: 'a3', userId: 'u_tz', start: '2026-11-22T09:00:00Z', durationMinutes: 50, headline: 'three' },
    ];
    const t: TestApp = await createTestApp(dialect, {
      dataset: files.write(`tz-${dialect}.json`, { version: 1, users: [user], activities, apiKeys }),
      now,
    });
    try {
      await generate(t.storage, now);
      const day = await fetchMessage(t.app, KEY, { date: '2026-11-22', format: 'text' });
      assert.equal(day.status, 200, 'the 22nd has ended in Kiritimati');

      await importDataset(
        t.storage,
        files.write(`tz-move-${dialect}.json`, { version: 1, users: [{ ...user, timezone: 'Pacific/Honolulu' }] }),
        { now: () => now + 60 * SECOND },
      );
      t.setNow(now + 60 * SECOND);
      const after = await fetchMessage(t.app, KEY, { date: '2026-11-22', format: 'text' });
      assert.deepEqual(
        [after.status, after.json.error],
        [404, 'No summary exists for this date and level yet.'],
        'the 22nd has not ended in Honolulu',
      );

      await generate(t.storage, now + 120 * SECOND);
      const stored = (await summaryStamps(t.storage.db, 'u_tz')).map(
        (s) => `${s.level} ${s.periodStart}..${s.periodEnd}`,
      );
      assert.ok(
        stored.every((s) => s.split('..')[1]! <= '2026-11-21'),
        `nothing that ends after the 21st is kept: ${stored.join(', ')}`,
      );
      // In Honolulu the 22nd's activity (09:00Z) is on the 21st, with the 21st's (12:00Z).
      const day21 = await fetchMessage(t.app, KEY, { date: '2026-11-21', format: 'text' });
      assert.equal(day21.status, 200, day21.body);
      assert.match(day21.json.content, /1 h 20 min/);
    } finally {
      await t.close();
    }
  });

  test('a run that read the data while an import was finishing is rebuilt by the next run', async () => {
    // Wednesday the 25th: the weeks of the 9th and the 16th have ended.
    const t0 = Date.parse('2026-11-25T12:00:00Z');
    const user = { id: 'u_tz', email: 'tz@example.com', plan: 'core', timezone: 'UTC' };
    const activities = [
      { id: 'b1', userId: 'u_tz', start: '2026-11-15T23:30:00Z', durationMinutes: 30, headline: 'late' },
      { id: 'b2', userId: 'u_tz', start: '2026-11-12T12:00:00Z', durationMinutes: 20, headline: 'week one' },
      { id: 'b3', userId: 'u_tz', start: '2026-11-18T12:00:00Z', durationMinutes: 10, headline: 'week two' },
    ];
    const t: TestApp = await createTestApp(dialect, {
      dataset: files.write(`race-${dialect}.json`, { version: 1, users: [user], activities, apiKeys }),
      now: t0 - 60 * SECOND,
    });
    try {
      // The import's clock: its start, the moment it finishes (stamps the changed days) and
      // after its commit. A summary run whose clock fell between the last two read the data as
      // it was before the commit: it runs here first, on the old data, stamped t0 + 7 s.
      await generate(t.storage, t0 + 7 * SECOND);
      const week = async () =>
        (await fetchMessage(t.app, KEY, { date: '2026-11-16', level: 'week', format: 'text' })).json.content as string;
      t.setNow(t0 + 60 * SECOND);
      assert.match(await week(), /^10 min tracked/m, 'the week of the 16th before the move');

      const clock = [t0, t0 + 5 * SECOND, t0 + 10 * SECOND];
      // Berlin: 23:30Z on Sunday the 15th is Monday the 16th there.
      await importDataset(
        t.storage,
        files.write(`race-move-${dialect}.json`, { version: 1, users: [{ ...user, timezone: 'Europe/Berlin' }] }),
        {
          now: () => clock.shift() ?? t0 + 10 * SECOND,
        },
      );
      await generate(t.storage, t0 + 60 * SECOND);
      assert.match(await week(), /^40 min tracked/m, 'rebuilt with the activity that moved into the week');
    } finally {
      await t.close();
    }
  });
});

forEachDialect('summaries of fractional minutes', (dialect) => {
  let files: ReturnType<typeof tempFiles>;
  let t: TestApp;
  // Friday the 20th at noon UTC: the days below have ended.
  const now = Date.parse('2026-11-20T12:00:00Z');
  const at = (date: string, hour: number) => `${date}T${String(hour).padStart(2, '0')}:00:00Z`;
  before(async () => {
    files = tempFiles();
    const activities = [
      // The 10th: 0.7 + 1.4 + 1.4 = 3.5 minutes exactly, which a double sums to 3.4999999999999996.
      { id: 'f1', userId: 'u_tz', start: at('2026-11-10', 9), durationMinutes: 0.7, headline: 'x', taskId: 'k_zeta' },
      { id: 'f2', userId: 'u_tz', start: at('2026-11-10', 10), durationMinutes: 1.4, headline: 'x', taskId: 'k_zeta' },
      { id: 'f3', userId: 'u_tz', start: at('2026-11-10', 11), durationMinutes: 1.4, headline: 'x', taskId: 'k_yak' },
      // The 11th: "Zeta" 4.2 + 0.9 and "Yak" 5.1: a tie, so by name.
      { id: 'f4', userId: 'u_tz', start: at('2026-11-11', 9), durationMinutes: 4.2, headline: 'x', taskId: 'k_zeta' },
      { id: 'f5', userId: 'u_tz', start: at('2026-11-11', 10), durationMinutes: 0.9, headline: 'x', taskId: 'k_zeta' },
      { id: 'f6', userId: 'u_tz', start: at('2026-11-11', 11), durationMinutes: 5.1, headline: 'x', taskId: 'k_yak' },
      // The 12th and 13th: 10.5 then 10 minutes.
      { id: 'f7', userId: 'u_tz', start: at('2026-11-12', 9), durationMinutes: 10.5, headline: 'x' },
      { id: 'f8', userId: 'u_tz', start: at('2026-11-13', 9), durationMinutes: 10, headline: 'x' },
    ];
    const tasks = [
      { id: 'k_zeta', userId: 'u_tz', date: '2026-11-10', title: 'Zeta' },
      { id: 'k_yak', userId: 'u_tz', date: '2026-11-10', title: 'Yak' },
    ];
    const users = [{ id: 'u_tz', email: 'tz@example.com', plan: 'core' }];
    const apiKeys = [{ userId: 'u_tz', name: 'k', key: KEY, scopes: ['summaries:read'] }];
    t = await createTestApp(dialect, {
      dataset: files.write(`fractions-${dialect}.json`, { version: 1, users, tasks, activities, apiKeys }),
      now,
    });
    await generate(t.storage, now);
  });
  after(async () => {
    await t.close();
    files.remove();
  });
  const text = async (date: string) => {
    const res = await fetchMessage(t.app, KEY, { date, format: 'text' });
    assert.equal(res.status, 200, res.body);
    return res.json.content as string;
  };

  test('3.5 minutes summed from fractions read 4 min on both databases', async () => {
    assert.match(await text('2026-11-10'), /^4 min tracked/m);
  });

  test('tasks of equal time (summed from fractions) are listed by name', async () => {
    const content = await text('2026-11-11');
    assert.ok(content.indexOf('Yak') < content.indexOf('Zeta'), content);
  });

  test('the change line agrees with the two durations it compares', async () => {
    assert.match(await text('2026-11-13'), /^-1 min compared with the previous day \(11 min\)$/m);
    assert.match(await text('2026-11-12'), /^11 min tracked/m);
  });
});
