/** Generation on a schedule inside `daybook serve`, and on demand from the command line. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { importDataset } from '../../src/dataset/import.ts';
import { startServer } from '../../src/server.ts';
import { type GenerateStats, generateSummaries } from '../../src/services/summaries/generate.ts';
import { startSummaryScheduler } from '../../src/services/summaries/scheduler.ts';
import { migrate, openStorage } from '../../src/storage/database.ts';
import { runDaybook } from '../cli/daybook-cli.ts';
import { type TestApp, createTestApp, forEachDialect } from '../helper.ts';
import { AFTER_2026, SUMMARIES_FIXTURE, ZOE } from './support.ts';

/** In the past of the machine's clock, which `serve` and the command line run on. */
const importedAt = () => Date.parse('2026-11-01T00:00:00Z');

async function summaryCount(t: TestApp): Promise<number> {
  const row = await t.storage.db
    .selectFrom('summaries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

forEachDialect('the summary scheduler', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { dataset: SUMMARIES_FIXTURE, now: AFTER_2026 });
  });
  after(() => t.close());

  test('an interval of 0 disables it', async () => {
    const runs: GenerateStats[] = [];
    const scheduler = startSummaryScheduler({
      storage: t.storage,
      intervalSeconds: 0,
      now: () => AFTER_2026,
      onRun: (s) => runs.push(s),
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await scheduler.stop();
    assert.deepEqual(runs, []);
    assert.equal(await summaryCount(t), 0);
  });

  test('it runs at start; stopping ends the run after the summary in progress, and the rest stays due', async () => {
    const runs: GenerateStats[] = [];
    const scheduler = startSummaryScheduler({
      storage: t.storage,
      intervalSeconds: 3600,
      now: () => AFTER_2026,
      onRun: (s) => runs.push(s),
    });
    await scheduler.stop();
    assert.equal(runs.length, 1);
    // A shutdown does not wait for the whole run: what was built is whole, the rest is due.
    assert.ok(runs[0]!.built < 21, JSON.stringify(runs[0]));
    assert.equal(await summaryCount(t), runs[0]!.built);
    const next = await generateSummaries(t.storage, { now: AFTER_2026 });
    assert.equal(next.built, 21 - runs[0]!.built);
    assert.equal(await summaryCount(t), 21);
  });

  test('it runs again after the interval', async () => {
    const runs: GenerateStats[] = [];
    const errors: unknown[] = [];
    const scheduler = startSummaryScheduler({
      storage: t.storage,
      intervalSeconds: 0.05,
      now: () => AFTER_2026,
      onRun: (s) => runs.push(s),
      onError: (err) => errors.push(err),
    });
    while (runs.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    await scheduler.stop();
    assert.deepEqual(errors, []);
    assert.equal(runs[1]!.built, 0);
    assert.equal(runs[1]!.current, 21);
  });
});

describe('daybook serve and daybook summaries generate', () => {
  let dir: string;
  let databaseUrl: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'daybook-serve-'));
    databaseUrl = `sqlite:${join(dir, 'daybook.db')}`;
    const storage = openStorage(databaseUrl);
    await migrate(storage);
    await importDataset(storage, SUMMARIES_FIXTURE, { now: importedAt });
    await storage.close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the command line rejects a bad --until or an unknown --user', async () => {
    const env = { DAYBOOK_DATABASE_URL: databaseUrl };
    const until = await runDaybook(['summaries', 'generate', '--until', '2026-13-01'], env);
    assert.equal(until.code, 2);
    assert.match(until.stderr, /--until must be a date in the form YYYY-MM-DD \(got "2026-13-01"\)/);
    const user = await runDaybook(['summaries', 'generate', '--user', 'u_nobody'], env);
    assert.equal(user.code, 2);
    assert.match(user.stderr, /no user with id "u_nobody"/);
  });

  test('the command line builds what is due, and a second run nothing', async () => {
    const env = { DAYBOOK_DATABASE_URL: databaseUrl };
    const args = ['summaries', 'generate', '--user', 'u_zoe', '--until', '2026-10-31'];
    const first = await runDaybook(args, env);
    assert.equal(first.code, 0, first.stderr);
    assert.match(
      first.stdout,
      /^built 12 summaries for 1 user in [\d.]+ s \(0 already current, 0 removed, 0 built by another process\)$/m,
    );
    const second = await runDaybook(args, env);
    assert.equal(second.code, 0, second.stderr);
    assert.match(
      second.stdout,
      /^built 0 summaries for 1 user in [\d.]+ s \(12 already current, 0 removed, 0 built by another process\)$/m,
    );
  });

  test('daybook serve generates on its schedule, and /message finds the summary', async () => {
    // The command line above stopped at October, so only the server's scheduler builds Nov 18.
    const server = await startServer({
      ...loadConfig({}),
      databaseUrl,
      port: 0,
      logLevel: 'silent',
      summaryIntervalSeconds: 1,
    });
    try {
      let res: Response | undefined;
      for (let attempt = 0; attempt < 100; attempt++) {
        res = await fetch(`${server.url}/message?date=2026-11-18&format=text`, {
          headers: { 'x-api-key': ZOE.summaries },
        });
        if (res.status !== 404) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(res!.status, 200);
      const body = (await res!.json()) as { metadata: { subject: string } };
      assert.equal(body.metadata.subject, "Zoë's daily summary: Nov 18");
    } finally {
      await server.close();
    }
  });
});
