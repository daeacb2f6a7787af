/**
 * The serving process's SQLite write-ahead log is checkpointed from a thread of its own
 * (storage/wal-checkpointer.ts): pages written by the server's connection reach the database
 * file without that connection checkpointing, whose own automatic checkpoint waits for a much
 * longer log; a thread that cannot run hands the job back; stopping ends the thread.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openStorage, type Storage } from '../../src/storage/database.ts';
import { startWalCheckpointer } from '../../src/storage/wal-checkpointer.ts';
import { until } from '../helper.ts';

async function scratch(): Promise<{ file: string; storage: Storage; done(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'daybook-wal-'));
  const file = join(dir, 'daybook.db');
  const storage = openStorage(`sqlite:${file}`);
  await sql`create table filler (n integer primary key, text text not null)`.execute(storage.db);
  return {
    file,
    storage,
    done: async () => {
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** About 500 pages of rows: under SQLite's default automatic checkpoint of 1,000 pages. */
async function fill(storage: Storage, from: number): Promise<void> {
  await sql`insert into filler (n, text)
    select ${from} + value, hex(randomblob(1000)) from generate_series(1, 1000)`
    .execute(storage.db)
    .catch(async () => {
      // SQLite builds without generate_series: a recursive count instead.
      await sql`with recursive c(i) as (select 1 union all select i + 1 from c where i < 1000)
        insert into filler (n, text) select ${from} + i, hex(randomblob(1000)) from c`.execute(storage.db);
    });
}

const autoCheckpoint = (storage: Storage) => Number(storage.sqlite!.prepare('pragma wal_autocheckpoint').pluck().get());

test('the thread copies the log into the database file; without it nothing does until the log is long', async () => {
  const db = await scratch();
  try {
    // Without the thread: 2 MB of log stays in the log.
    const empty = (await stat(db.file)).size;
    await fill(db.storage, 0);
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal((await stat(db.file)).size, empty, 'something checkpointed without the thread');

    const checkpointer = startWalCheckpointer(db.storage);
    assert.ok(checkpointer);
    assert.equal(autoCheckpoint(db.storage), 16_384, 'the connection checkpoints itself only as a safety net');
    await until(
      'the thread did not checkpoint the log',
      3000,
      async () => (await stat(db.file)).size > empty + 1_000_000,
    );
    // And again for what is written while it runs.
    const before = (await stat(db.file)).size;
    await fill(db.storage, 10_000);
    await until(
      'the thread did not checkpoint a later write',
      3000,
      async () => (await stat(db.file)).size > before + 1_000_000,
    );
    await checkpointer.stop();
    const count = await sql<{ n: number }>`select count(*) as n from filler`.execute(db.storage.db);
    assert.equal(Number(count.rows[0]!.n), 2000);
  } finally {
    await db.done();
  }
});

test('a thread that cannot open the database hands checkpoints back to the connection', async () => {
  const db = await scratch();
  try {
    const sqlite = db.storage.sqlite!;
    // The same storage, but naming a file that is not there: the thread fails at once.
    const missing = { ...db.storage, sqlite: { ...sqlite, file: join(tmpdir(), 'daybook-no-such-dir', 'x.db') } };
    const checkpointer = startWalCheckpointer(missing as Storage);
    assert.ok(checkpointer);
    await until(
      'the connection kept the long safety net with no thread checkpointing',
      3000,
      async () => autoCheckpoint(db.storage) === 1000,
    );
    await checkpointer.stop();
  } finally {
    await db.done();
  }
});

test('an in-memory database has no log to checkpoint: no thread', async () => {
  const storage = openStorage('sqlite::memory:');
  try {
    assert.equal(startWalCheckpointer(storage), null);
  } finally {
    await storage.close();
  }
});
