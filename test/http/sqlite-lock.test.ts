/**
 * SQLite, another process holding the write lock (an import): reads are answered at once, and a
 * write waits for the lock without freezing the server, then gives up with 503 and Retry-After.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import { openStorage, SERVING_BUSY_TIMEOUT_MS, type Storage } from '../../src/storage/database.ts';
import {
  DEFAULT_NOW,
  EXAMPLE,
  KEYS,
  type TestApp,
  type TestDatabase,
  call,
  createSharedTestDatabase,
  createTestApp,
} from '../helper.ts';

const WRITER = 'dbk_test_sqlite_lock_writer_0123456789ab';
const files = tempFiles();

describe('SQLite while another process writes [sqlite]', () => {
  let database: TestDatabase;
  let t: TestApp;
  let other: Storage;
  before(async () => {
    database = await createSharedTestDatabase('sqlite');
    await importDataset(database.storage, EXAMPLE, { now: () => DEFAULT_NOW });
    await importDataset(
      database.storage,
      files.write('writer.json', {
        version: 1,
        apiKeys: [{ userId: 'u_alice', name: 'w', key: WRITER, scopes: ['activity:write'] }],
      }),
      { now: () => DEFAULT_NOW },
    );
    t = await createTestApp('sqlite', { database, dataset: null });
    // As `daybook serve` sets it once started (src/server.ts).
    database.storage.sqlite!.setBusyTimeout(SERVING_BUSY_TIMEOUT_MS);
    other = openStorage(database.url);
  });
  after(async () => {
    await other.close();
    await t.close();
    await database.drop();
    files.remove();
  });

  test('reads go on, a write fails fast with 503, and the server never freezes', async () => {
    other.sqlite!.prepare('begin immediate').run();
    try {
      const started = Date.now();
      const write = call(t.app, 'POST', '/activities', {
        key: WRITER,
        body: { activities: [{ start: '2026-11-20T09:00:00Z', headline: 'Blocked' }] },
      });
      // A write outside a transaction of its own (a new project) fails as fast.
      const project = await call(t.app, 'POST', '/projects', { key: KEYS.aliceAll, body: { name: 'Blocked' } });
      assert.equal(project.status, 503, project.body);
      // While the write waits for the lock, other requests are answered.
      const reads: number[] = [];
      for (let i = 0; i < 5; i++) {
        const at = Date.now();
        const res = await call(t.app, 'GET', '/user', { key: KEYS.aliceAll });
        assert.equal(res.status, 200);
        reads.push(Date.now() - at);
      }
      assert.ok(Math.max(...reads) < 500, reads.join(', '));
      const refused = await write;
      assert.equal(refused.status, 503, refused.body);
      assert.equal(refused.json.success, false);
      assert.ok(Number(refused.headers['retry-after']) > 0);
      assert.ok(Date.now() - started < 4_000, `${Date.now() - started} ms`);
    } finally {
      other.sqlite!.prepare('rollback').run();
    }
    const after = await call(t.app, 'POST', '/activities', {
      key: WRITER,
      body: { activities: [{ start: '2026-11-20T09:00:00Z', headline: 'Now free' }] },
    });
    assert.equal(after.status, 200, after.body);
  });
});
