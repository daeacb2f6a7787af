/**
 * Several generators on one PostgreSQL database build each summary once: they coordinate
 * through the database (docs/api.md, "GET / POST /message"), in one process or in several.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { importDataset } from '../../src/dataset/import.ts';
import { summaryClaimKey } from '../../src/services/summaries/generate.ts';
import { openStorage, type Storage } from '../../src/storage/database.ts';
import { withBuildClaim } from '../../src/storage/summaries.ts';
import { DIALECTS, EXAMPLE, type TestDatabase, createTestDatabase } from '../helper.ts';
import { AFTER_2026, SUMMARIES_FIXTURE, generate } from './support.ts';

const run = promisify(execFile);
const cli = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'cli.ts');

/** u_zoe's 21 summaries plus 7 each for Alice and Bob. */
const ALL_SUMMARIES = 35;

async function summaryCount(storage: Storage): Promise<number> {
  const row = await storage.db
    .selectFrom('summaries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('generators sharing one PostgreSQL database', { skip: !DIALECTS.includes('postgres') }, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase('postgres');
    // Imported in the past of the machine's clock, which the command-line processes run on.
    const importedAt = () => Date.parse('2026-11-01T00:00:00Z');
    await importDataset(database.storage, SUMMARIES_FIXTURE, { now: importedAt });
    await importDataset(database.storage, EXAMPLE, { now: importedAt });
  });
  beforeEach(async () => {
    await database.storage.db.deleteFrom('summaries').execute();
  });
  after(() => database.drop());

  test('a summary claimed by another generator is left to it', async () => {
    const other = openStorage(database.url);
    try {
      const claimed = await withBuildClaim(
        database.storage,
        summaryClaimKey('u_zoe', { level: 'day', start: '2026-11-18' }),
        async () => generate(other, AFTER_2026),
      );
      assert.ok(claimed.claimed);
      assert.equal(claimed.result.claimedElsewhere, 1);
      assert.equal(claimed.result.built, ALL_SUMMARIES - 1);
      const day = await other.db
        .selectFrom('summaries')
        .select('level')
        .where('period_start', '=', '2026-11-18')
        .where('user_id', '=', 'u_zoe')
        .execute();
      assert.deepEqual(
        day.map((d) => d.level),
        [],
      );
      // The next run finds it due and builds it.
      assert.equal((await generate(other, AFTER_2026)).built, 1);
    } finally {
      await other.close();
    }
  });

  test('three generators in one process build each summary exactly once', async () => {
    const pools = [openStorage(database.url), openStorage(database.url), openStorage(database.url)];
    try {
      const runs = await Promise.all(pools.map((storage) => generate(storage, AFTER_2026)));
      assert.equal(
        runs.reduce((n, r) => n + r.built, 0),
        ALL_SUMMARIES,
      );
      for (const r of runs) assert.equal(r.built + r.current + r.claimedElsewhere, ALL_SUMMARIES);
      assert.equal(await summaryCount(database.storage), ALL_SUMMARIES);
    } finally {
      for (const storage of pools) await storage.close();
    }
  });

  test('two `daybook summaries generate` processes build each summary exactly once', async () => {
    // --until keeps the run independent of the machine's clock: these periods have all ended.
    const env = { ...process.env, DAYBOOK_DATABASE_URL: database.url };
    const args = [cli, 'summaries', 'generate', '--until', '2026-10-31'];
    const outputs = await Promise.all([run(process.execPath, args, { env }), run(process.execPath, args, { env })]);
    const built = outputs.map(({ stdout }) => {
      const match =
        /^built (\d+) summar(?:y|ies) for 5 users in [\d.]+ s \(\d+ already current, 0 removed, \d+ built by another process\)$/m.exec(
          stdout,
        );
      assert.ok(match, stdout);
      return Number(match[1]);
    });
    // u_zoe's periods ending by October 2026; Alice's and Bob's are all in November.
    assert.equal(built[0]! + built[1]!, 12);
    assert.equal(await summaryCount(database.storage), 12);
  });
});
