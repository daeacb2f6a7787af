/**
 * SQLite's write-ahead log synced from libuv's threads (storage/wal-sync.ts): a write is
 * answered only once its commit is on disk, the server answers other requests while the disk
 * works, commits made during a sync share the next one, and a sync that fails fails the write
 * that waited for it. SQLite only: on PostgreSQL the server syncs its own log.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, mock, test } from 'node:test';
import { migrate, openStorage } from '../../src/storage/database.ts';
import { WalSync } from '../../src/storage/wal-sync.ts';
import { importDataset } from '../../src/dataset/import.ts';
import { call, createTestApp, DEFAULT_NOW, type TestApp, until } from '../helper.ts';
import { ALICE, world } from '../recording/world.ts';

/** FileHandle's prototype, whose datasync() every sync goes through. */
async function fileHandlePrototype(file: string): Promise<{ datasync(): Promise<void> }> {
  const handle = await open(file, 'w');
  const proto = Object.getPrototypeOf(handle);
  await handle.close();
  return proto;
}

/** A datasync held until the test lets it through, recording which file each call synced. */
function heldSyncs(proto: { datasync(): Promise<void> }) {
  const original = proto.datasync;
  const calls: { file: string; done: boolean; release(): void }[] = [];
  const tracked = mock.method(proto, 'datasync', async function (this: { fd: number }) {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const call = { file: readlinkSync(`/proc/self/fd/${this.fd}`), done: false, release };
    calls.push(call);
    await gate;
    await original.call(this);
    call.done = true;
  });
  return {
    calls,
    /** Lets every held sync through. */
    releaseAll: () => {
      for (const c of calls) c.release();
    },
    restore: () => tracked.mock.restore(),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'daybook-wal-sync-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('WalSync: a sync asked for while one runs waits for the next, and every one asked meanwhile shares it', async () => {
  const file = join(dir, 'plain-wal');
  writeFileSync(file, 'log');
  const syncs = heldSyncs(await fileHandlePrototype(join(dir, 'probe')));
  const walSync = new WalSync(file);
  try {
    const settled: string[] = [];
    const first = walSync.sync().then(() => settled.push('first'));
    await until('the first sync began', 2000, () => syncs.calls.length === 1);
    // Asked while the first runs: their data may have come after it began.
    const later = [1, 2, 3].map((n) => walSync.sync().then(() => settled.push(`later ${n}`)));
    syncs.calls[0]!.release();
    await first;
    await until('the second sync began', 2000, () => syncs.calls.length === 2);
    assert.deepEqual(settled, ['first'], 'the later callers wait for the second sync, not the first');
    syncs.calls[1]!.release();
    await Promise.all(later);
    assert.deepEqual(settled, ['first', 'later 1', 'later 2', 'later 3']);
    assert.equal(syncs.calls.length, 2, 'three callers, one sync');
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
  const proto = await fileHandlePrototype(join(dir, 'probe'));
  const walSync = new WalSync(file);
  let fail = true;
  let count = 0;
  const original = proto.datasync;
  const tracked = mock.method(proto, 'datasync', async function (this: unknown) {
    count++;
    if (fail) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    return original.call(this);
  });
  try {
    await assert.rejects(walSync.sync(), /EIO/);
    fail = false;
    await walSync.sync();
    assert.equal(count, 2);
  } finally {
    tracked.mock.restore();
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
  const syncs = heldSyncs(await fileHandlePrototype(join(dir, 'probe')));
  try {
    t = await createTestApp('sqlite', { database: { url, storage, drop: () => storage.close() }, dataset: null });
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
    assert.equal(syncs.calls[0]!.file, `${join(dir, 'daybook.db')}-wal`, 'the log is what is synced');
    // The disk holds the write's sync; the server's thread is free for other requests.
    const user = await call(app, 'GET', '/user', { key: ALICE });
    assert.equal(user.status, 200);
    assert.equal(answered, false, 'no answer before the log is on disk');
    syncs.releaseAll();
    const res = await write;
    assert.equal(res.status, 200, res.body);
    assert.ok(syncs.calls.some((c) => c.done));
    // SQLite is back to syncing at commit for every other writer of the connection.
    assert.equal(Number(storage.sqlite!.prepare('pragma synchronous').pluck().get()), 2);
    syncs.restore();

    // A sync that fails: the write is not confirmed (500, nothing else said), and the next one is.
    const proto = await fileHandlePrototype(join(dir, 'probe'));
    let failing = true;
    const original = proto.datasync;
    const broken = mock.method(proto, 'datasync', async function (this: unknown) {
      if (failing) throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
      return original.call(this);
    });
    try {
      const failed = await call(app, 'POST', '/activities', { key: ALICE, body: activity('a_synced_2') });
      assert.deepEqual([failed.status, failed.json.message], [500, 'Internal Server Error']);
      failing = false;
      const next = await call(app, 'POST', '/activities', { key: ALICE, body: activity('a_synced_3') });
      assert.equal(next.status, 200, next.body);
    } finally {
      broken.mock.restore();
    }
  } finally {
    syncs.releaseAll();
    syncs.restore();
    await t?.close();
    await storage.close();
  }
});
