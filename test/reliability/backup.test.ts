/**
 * `daybook backup` while a server takes writes, then `daybook restore` into a new database, on
 * both databases: every write acknowledged before the backup began is in the restored copy.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../../src/cli/run.ts';
import { importDataset } from '../../src/dataset/import.ts';
import { openStorage } from '../../src/storage/database.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import {
  DEFAULT_NOW,
  type TestDatabase,
  createPostgresDatabase,
  createSharedTestDatabase,
  forEachDialect,
  until,
} from '../helper.ts';
import { ALICE, BOB, world } from '../recording/world.ts';
import { killHard, serve } from './processes.ts';

async function cli(args: string[], databaseUrl: string): Promise<{ code: number; output: string }> {
  let output = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      output += String(chunk);
      done();
    },
  });
  const code = await runCli(args, {
    stdout: sink,
    stderr: sink,
    env: { ...process.env, DAYBOOK_DATABASE_URL: databaseUrl },
  });
  return { code, output };
}

forEachDialect('backup and restore', (dialect) => {
  let database: TestDatabase;
  const files = tempFiles();
  before(async () => {
    database = await createSharedTestDatabase(dialect);
    await importDataset(database.storage, files.write(`backup-${dialect}.json`, world), { now: () => DEFAULT_NOW });
  });
  after(async () => {
    await database.drop();
    files.remove();
  });

  test('a backup taken under write load holds every write acknowledged before it began', async () => {
    const { child, url } = await serve(database.url);
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let n = 0; !stop; n++) {
        const id = `a_backup_${w}_${n}`;
        const res = await fetch(`${url}/activities`, {
          method: 'POST',
          headers: { 'x-api-key': w % 2 ? ALICE : BOB, 'content-type': 'application/json' },
          body: JSON.stringify({
            activities: [
              { id, start: Date.parse('2026-11-02T08:00:00Z') + n * 60_000, durationMinutes: 1, headline: id },
            ],
          }),
        });
        if (res.status === 200) acknowledged.push(id);
        await res.arrayBuffer();
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    const archive = join(files.dir, dialect === 'sqlite' ? 'backup.db' : 'backup.dump');
    let restoredUrl = '';
    let dropRestored = async () => {};
    try {
      // Writes under way, however busy the machine (a fixed wait saw a single one in a loaded run).
      await until('writes acknowledged before the backup', 60_000, () => acknowledged.length > 5);
      const beforeBackup = [...acknowledged];
      const backup = await cli(['backup', '--out', archive], database.url);
      assert.equal(backup.code, 0, backup.output);
      assert.match(backup.output, /backed up .* to /);
      await new Promise((resolve) => setTimeout(resolve, 300));
      stop = true;
      await Promise.all(writers);
      // Again into the same file: refused rather than overwritten.
      assert.equal((await cli(['backup', '--out', archive], database.url)).code, 2);

      if (dialect === 'sqlite') {
        restoredUrl = `sqlite:${join(files.dir, 'restored.db')}`;
      } else {
        const restored = await createPostgresDatabase('daybook_restore');
        restoredUrl = restored.url;
        dropRestored = restored.drop;
      }
      const restore = await cli(['restore', '--from', archive], restoredUrl);
      assert.equal(restore.code, 0, restore.output);
      const storage = openStorage(restoredUrl);
      try {
        const stored = new Set(
          (await storage.db.selectFrom('activities').select('id').where('id', 'like', 'a_backup_%').execute()).map(
            (r) => r.id,
          ),
        );
        for (const id of beforeBackup) assert.ok(stored.has(id), `${id} was acknowledged before the backup`);
        const users = await storage.db.selectFrom('users').select('id').execute();
        assert.equal(users.length, world.users.length);
      } finally {
        await storage.close();
      }
    } finally {
      stop = true;
      await killHard(child);
      await dropRestored();
    }
  });
});
