/**
 * SQLite's write-ahead log synced from libuv's threads (storage/wal-sync.ts): a write is
 * answered only once its commit is on disk, the server answers other requests while the disk
 * works, a sync asked for during another starts at once (beyond four at a time, the calls share
 * the next one), and a sync that fails fails the write that waited for it. SQLite only: on PostgreSQL the server syncs its own log.
 */
import assert from 'node:assert/strict';
import fs, { mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, mock, test } from 'node:test';
import { migrate, openStorage } from '../../src/storage/database.ts';
import { WalSync } from '../../src/storage/wal-sync.ts';
import { importDataset } from '../../src/dataset/import.ts';
import { call, createTestApp, DEFAULT_NOW, type TestApp, until } from '../helper.ts';
import { ALICE, world } from '../recording/world.ts';

type Done = (err: NodeJS.ErrnoException | null) => void;

/** fs.fdatasync held until the test lets each call through, recording which file each synced. */
function heldSyncs() {
  const original = fs.fdatasync;
  const calls: { file: string; done: boolean; release(): void }[] = [];
  let open = false;
  const tracked = mock.method(fs, 'fdatasync', (fd: number, done: Done) => {
    if (open) return original(fd, done);
    const call = { file: readlinkSync(`/proc/self/fd/${fd}`), done: false, release: () => {} };
    let released = false;
    call.release = () => {
      if (released) return;
      released = true;
      original(fd, (err) => {
        call.done = true;
        done(err);
      });
    };
    calls.push(call);
  });
  return {
    calls,
    /** Lets every held sync through, and those to come. */
    releaseAll: () => {
      open = true;
      for (const c of calls.splice(0)) c.release();
    },
    restore: () => tracked.mock.restore(),
  };
}

/** fs.fdatasync recording which file each call synced, and failing with EIO while `failing()` says so. */
function watchedSyncs(failing: () => boolean = () => false) {
  const original = fs.fdatasync;
  const files: string[] = [];
  const tracked = mock.method(fs, 'fdatasync', (fd: number, done: Done) => {
    files.push(readlinkSync(`/proc/self/fd/${fd}`));
    if (failing()) done(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    else original(fd, done);
  });
  return { files, restore: () => tracked.mock.restore() };
}

const dir = mkdtempSync(join(tmpdir(), 'daybook-wal-sync-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('WalSync: a sync asked for while one runs starts at once and answers for itself; past four at a time, calls share the next', async () => {
  const file = join(dir, 'plain-wal');
  writeFileSync(file, 'log');
  const syncs = heldSyncs();
  const walSync = new WalSync(file);
  try {
    const settled: string[] = [];
    const first = walSync.sync().then(() => settled.push('first'));
    await until('the first sync began', 2000, () => syncs.calls.length === 1);
    // Asked while the first runs: their data may have come after it began, so each starts its
    // own sync at once rather than a turn of the event loop later, when the first one's end is seen.
    const second = walSync.sync().then(() => settled.push('second'));
    assert.equal(syncs.calls.length, 2, 'the second sync began without waiting for the first');
    syncs.calls[0]!.release();
    await first;
    assert.deepEqual(settled, ['first'], 'the second caller waits for its own sync, not the first');
    syncs.calls[1]!.release();
    await second;
    assert.deepEqual(settled, ['first', 'second']);

    // Four under way: the calls that come meanwhile share one sync, begun when one of the four ends.
    const running = [1, 2, 3, 4].map((n) => walSync.sync().then(() => settled.push(`running ${n}`)));
    assert.equal(syncs.calls.length, 6);
    const later = [1, 2, 3].map((n) => walSync.sync().then(() => settled.push(`later ${n}`)));
    assert.equal(syncs.calls.length, 6, 'no fifth sync at once');
    syncs.calls[2]!.release();
    await running[0];
    await until('the shared sync began', 2000, () => syncs.calls.length === 7);
    assert.ok(!settled.some((s) => s.startsWith('later')), 'the later callers wait for the sync begun after them');
    syncs.calls[6]!.release();
    await Promise.all(later);
    assert.equal(syncs.calls.length, 7, 'three callers, one sync');
    for (const c of syncs.calls.slice(3, 6)) c.release();
    await Promise.all(running);
    assert.ok(syncs.calls.every((c) => c.done && c.file === file));
  } finally {
    syncs.releaseAll();
    syncs.restore();
    await walSync.close();
  }
});

test('WalSync: a failed sync fails its callers, and the next call syncs again', async () => {
  const file = join(dir, 'failing-wal');
  writeFileSync(file, 'log');
  const walSync = new WalSync(file);
  let fail = true;
  const syncs = watchedSyncs(() => fail);
  try {
    await assert.rejects(walSync.sync(), /EIO/);
    fail = false;
    await walSync.sync();
    assert.equal(syncs.files.length, 2);
  } finally {
    syncs.restore();
    await walSync.close();
  }
});

test('WalSync: a log made anew at its path is synced too, and from then on', async () => {
  const file = join(dir, 'renewed-wal');
  writeFileSync(file, 'log');
  const walSync = new WalSync(file);
  const syncs = watchedSyncs();
  try {
    await walSync.sync();
    rmSync(file);
    writeFileSync(file, 'new log');
    await walSync.sync();
    await walSync.sync();
    assert.deepEqual(syncs.files, [file, `${file} (deleted)`, file, file]);
  } finally {
    syncs.restore();
    await walSync.close();
  }
});

test('SQLite file: a write is answered once its log is synced; the server answers meanwhile; a failed sync is a 500', async () => {
  const url = `sqlite:${join(dir, 'daybook.db')}`;
  const storage = openStorage(url);
  await migrate(storage);
  const datasetFile = join(dir, 'world.json');
  writeFileSync(datasetFile, JSON.stringify(world));
  await importDataset(storage, datasetFile, { now: () => DEFAULT_NOW });
  let t: TestApp | undefined;
  // Held from the first write on (the import above synced as it went).
  const syncs = heldSyncs();
  try {
    // The writes on the server's thread, where the test holds the syncs (the write thread's
    // connection syncs through the same WalSync, on its own thread).
    t = await createTestApp('sqlite', {
      database: { url, storage, drop: () => storage.close() },
      dataset: null,
      config: { writeThread: false },
    });
    const app = t.app;
    const activity = (id: string) => ({
      activities: [{ id, start: Date.parse('2026-11-21T09:00:00Z'), durationMinutes: 30, headline: 'Synced write' }],
    });
    let answered = false;
    const write = call(app, 'POST', '/activities', { key: ALICE, body: activity('a_synced_1') }).then((res) => {
      answered = true;
      return res;
    });
    await until('the write’s commit is being synced', 5000, () => syncs.calls.length >= 1);
    const held = syncs.calls[0]!;
    assert.equal(held.file, `${join(dir, 'daybook.db')}-wal`, 'the log is what is synced');
    // The disk holds the write's sync; the server's thread is free for other requests.
    const user = await call(app, 'GET', '/user', { key: ALICE });
    assert.equal(user.status, 200);
    assert.equal(answered, false, 'no answer before the log is on disk');
    syncs.releaseAll();
    const res = await write;
    assert.equal(res.status, 200, res.body);
    assert.ok(held.done, 'answered after the sync completed');
    // SQLite is back to syncing at commit for every other writer of the connection.
    assert.equal(Number(storage.sqlite!.prepare('pragma synchronous').pluck().get()), 2);
    syncs.restore();

    // A sync that fails: the write is not confirmed (500, nothing else said), and the next one is.
    let failing = true;
    const broken = watchedSyncs(() => failing);
    try {
      const failed = await call(app, 'POST', '/activities', { key: ALICE, body: activity('a_synced_2') });
      assert.deepEqual([failed.status, failed.json.message], [500, 'Internal Server Error']);
      failing = false;
      const next = await call(app, 'POST', '/activities', { key: ALICE, body: activity('a_synced_3') });
      assert.equal(next.status, 200, next.body);
    } finally {
      broken.restore();
    }
  } finally {
    syncs.releaseAll();
    syncs.restore();
    await t?.close();
    await storage.close();
  }
});
