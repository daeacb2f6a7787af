/**
 * docs/operations.md: /readyz answers 503 `Database unavailable` when the database does not
 * answer, also when PostgreSQL keeps its connections open but stops answering (a stalled server
 * or network), instead of holding the probe open.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApp } from '../../src/http/app.ts';
import { MemoryRateLimiter } from '../../src/http/rate-limit.ts';
import { loadConfig } from '../../src/config.ts';
import { migrate, openStorage, type Storage } from '../../src/storage/database.ts';
import { DIALECTS, call, createPostgresDatabase, stallableRelay } from '../helper.ts';

test('/readyz is 503 within seconds when PostgreSQL stops answering, and 200 again once it answers', {
  skip: !DIALECTS.includes('postgres'),
}, async () => {
  const database = await createPostgresDatabase();
  const relay = await stallableRelay(database.url);
  const storage: Storage = openStorage(relay.url);
  await migrate(storage);
  const app = await buildApp({
    storage,
    config: { ...loadConfig({}), databaseUrl: relay.url, reportWorkers: 0 },
    rateLimiter: new MemoryRateLimiter(),
    now: Date.now,
  });
  try {
    assert.equal((await call(app, 'GET', '/readyz')).status, 200);
    relay.stall(true);
    const started = Date.now();
    const stalled = await call(app, 'GET', '/readyz');
    assert.deepEqual(
      [stalled.status, stalled.json],
      [503, { success: false, error: 'Database unavailable', message: 'Database unavailable' }],
    );
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    relay.stall(false);
    assert.equal((await call(app, 'GET', '/readyz')).status, 200);
  } finally {
    relay.stall(false);
    await app.close();
    await storage.close();
    await relay.close();
    await database.drop();
  }
});
