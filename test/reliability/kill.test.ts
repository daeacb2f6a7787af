/**
 * `kill -9`, on both databases: of a server under concurrent writes, every write it answered 2xx
 * is found after a restart and every batch is whole or absent; of an import, the database is as
 * it was before the import began.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { writeActivityDataset } from '../../bench/lib/activity-stream.ts';
import { importDataset } from '../../src/dataset/import.ts';
import { openStorage, type Storage } from '../../src/storage/database.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import { DEFAULT_NOW, type TestDatabase, createSharedTestDatabase, forEachDialect, until } from '../helper.ts';
import { ALICE, BOB, world } from '../recording/world.ts';
import { daybook, killHard, serve } from './processes.ts';

async function count(storage: Storage, table: 'activities' | 'tasks' | 'users'): Promise<number> {
  const row = await storage.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

forEachDialect('kill -9', (dialect) => {
  let database: TestDatabase;
  const files = tempFiles();
  before(async () => {
    database = await createSharedTestDatabase(dialect);
    await importDataset(database.storage, files.write(`kill-${dialect}.json`, world), { now: () => DEFAULT_NOW });
  });
  after(async () => {
    await database.drop();
    files.remove();
  });

  test('of a server under concurrent writes: every 2xx write is there after a restart, every batch whole or absent', async () => {
    const { child, url } = await serve(database.url);
    const acknowledged: string[][] = [];
    const sent: string[][] = [];
    let stop = false;
    const writer = async (w: number, key: string) => {
      for (let n = 0; !stop; n++) {
        const ids = Array.from({ length: 10 }, (_, i) => `a_kill_${w}_${n}_${i}`);
        sent.push(ids);
        try {
          const res = await fetch(`${url}/activities`, {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body: JSON.stringify({
              activities: ids.map((id, i) => ({
                id,
                start: Date.parse('2026-11-01T08:00:00Z') + (n * 10 + i) * 60_000,
                durationMinutes: 1,
                headline: `Write ${w}/${n}/${i}`,
              })),
            }),
          });
          if (res.status === 200) acknowledged.push(ids);
          await res.arrayBuffer();
        } catch {
          return; // the server is gone
        }
      }
    };
    const writers = Array.from({ length: 8 }, (_, w) => writer(w, w % 2 === 0 ? ALICE : BOB));
    // Killed once writes are acknowledged, with the eight writers' next batches in flight (a
    // fixed wait saw too few in a loaded run).
    await until('batches acknowledged before the kill', 60_000, () => acknowledged.length > 10);
    await killHard(child);
    stop = true;
    await Promise.all(writers);

    // A restart on the same database finds every acknowledged write.
    const again = await serve(database.url);
    await killHard(again.child);
    const storage = openStorage(database.url);
    try {
      const stored = new Set(
        (await storage.db.selectFrom('activities').select('id').where('id', 'like', 'a_kill_%').execute()).map(
          (r) => r.id,
        ),
      );
      for (const ids of acknowledged) for (const id of ids) assert.ok(stored.has(id), `${id} was acknowledged`);
      for (const ids of sent) {
        const present = ids.filter((id) => stored.has(id)).length;
        assert.ok(present === 0 || present === ids.length, `batch ${ids[0]}: ${present} of ${ids.length}`);
      }
    } finally {
      await storage.close();
    }
  });

  test('of an import: the database is as it was before', async () => {
    const file = join(files.dir, `kill-import-${dialect}.ndjson`);
    await writeActivityDataset(file, 400_000);
    const storage = openStorage(database.url);
    try {
      const before = await Promise.all([
        count(storage, 'users'),
        count(storage, 'tasks'),
        count(storage, 'activities'),
      ]);
      const child = daybook(['import', file], database.url);
      let output = '';
      child.stdout?.on('data', (d) => {
        output += d;
      });
      child.stderr?.on('data', (d) => {
        output += d;
      });
      // Killed while it writes: it has begun (its transaction is open) and not finished.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      assert.equal(child.exitCode, null, `the import ended before it could be killed: ${output}`);
      await killHard(child);
      const afterKill = await Promise.all([
        count(storage, 'users'),
        count(storage, 'tasks'),
        count(storage, 'activities'),
      ]);
      assert.deepEqual(afterKill, before);
    } finally {
      await storage.close();
    }
  });
});
