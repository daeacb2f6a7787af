/** docs/api.md, "Every request": with Redis, several server processes share one rate-limit budget per key. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { Redis } from 'ioredis';
import { MemoryRateLimiter, type RateLimiter, RedisRateLimiter } from '../../src/http/rate-limit.ts';
import {
  DEFAULT_NOW,
  KEYS,
  REDIS_URL,
  type TestApp,
  type TestDatabase,
  call,
  createTestApp,
  createTestDatabase,
  forEachDialect,
  stallableRelay,
} from '../helper.ts';

const LIMIT = 4;
const AUTH_FAILURES = 3;

forEachDialect('rate limits shared through Redis', (dialect) => {
  let database: TestDatabase;
  let redis: Redis;
  // A key space of this run only: other runs and other data in the same Redis stay untouched.
  const keyPrefix = `daybook-test:${randomBytes(6).toString('hex')}:`;

  before(async () => {
    database = await createTestDatabase(dialect);
    redis = new Redis(REDIS_URL);
  });
  after(async () => {
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await database.drop();
  });

  /** Two app instances on one database, each with its own limiter from `limiter()`. */
  async function twoInstances(limiter: () => RateLimiter): Promise<[TestApp, TestApp]> {
    const config = { rateLimitPerMinute: LIMIT, authFailuresPerMinute: AUTH_FAILURES };
    const first = await createTestApp(dialect, { database, rateLimiter: limiter(), config });
    const second = await createTestApp(dialect, { database, dataset: null, rateLimiter: limiter(), config });
    return [first, second];
  }

  test('requests alternating between two instances share one budget per key', async () => {
    const apps = await twoInstances(() => new RedisRateLimiter(REDIS_URL, { keyPrefix: `${keyPrefix}budget:` }));
    try {
      for (let i = 0; i < LIMIT; i++) {
        const res = await call(apps[i % 2]!.app, 'GET', '/user', { key: KEYS.bob });
        assert.equal(res.status, 200, `request ${i + 1}`);
        assert.equal(res.headers['ratelimit-limit'], String(LIMIT));
        assert.equal(res.headers['ratelimit-remaining'], String(LIMIT - 1 - i));
      }
      for (const t of apps) {
        const res = await call(t.app, 'GET', '/user', { key: KEYS.bob });
        assert.equal(res.status, 429);
        const retryAfter = Number(res.headers['retry-after']);
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
        assert.deepEqual(res.json, {
          success: false,
          error: 'rate_limited',
          message: 'rate_limited',
          retryAfterSec: retryAfter,
        });
      }
      // The budget is per key: another key is still served by both instances.
      for (const t of apps) assert.equal((await call(t.app, 'GET', '/user', { key: KEYS.aliceAll })).status, 200);
    } finally {
      for (const t of apps) await t.close();
    }
  });

  test('failed key attempts from one address are counted across instances: one more is 429', async () => {
    const apps = await twoInstances(() => new RedisRateLimiter(REDIS_URL, { keyPrefix: `${keyPrefix}failures:` }));
    try {
      for (let i = 0; i < AUTH_FAILURES; i++) {
        const res = await call(apps[i % 2]!.app, 'GET', '/user', { key: `dbk_guess_${i}_0123456789abcdef` });
        assert.deepEqual([res.status, res.json.error], [401, 'Invalid API key']);
      }
      const res = await call(apps[AUTH_FAILURES % 2]!.app, 'GET', '/user', { key: 'dbk_guess_last_0123456789abcdef' });
      assert.deepEqual([res.status, res.json.error], [429, 'rate_limited']);
      assert.ok(Number(res.headers['retry-after']) >= 1);
    } finally {
      for (const t of apps) await t.close();
    }
  });

  test('an address blocked through one instance is blocked on every instance, valid keys included', async () => {
    const apps = await twoInstances(() => new RedisRateLimiter(REDIS_URL, { keyPrefix: `${keyPrefix}blocked:` }));
    try {
      // Known to both instances before the address is blocked.
      for (const t of apps) assert.equal((await call(t.app, 'GET', '/user', { key: KEYS.bob })).status, 200);
      for (let i = 0; i <= AUTH_FAILURES; i++)
        await call(apps[0]!.app, 'GET', '/user', { key: `dbk_guess_${i}_0123456789abcdef` });
      for (const [i, t] of apps.entries()) {
        const res = await call(t.app, 'GET', '/user', { key: KEYS.bob });
        assert.deepEqual([res.status, res.json.error], [429, 'rate_limited'], `instance ${i + 1}`);
        assert.ok(Number(res.headers['retry-after']) >= 1);
      }
    } finally {
      for (const t of apps) await t.close();
    }
  });

  test('without Redis each instance keeps its own budget', async () => {
    const apps = await twoInstances(() => new MemoryRateLimiter(() => DEFAULT_NOW));
    try {
      for (let i = 0; i < 2 * LIMIT; i++) {
        assert.equal((await call(apps[i % 2]!.app, 'GET', '/user', { key: KEYS.bob })).status, 200, `request ${i + 1}`);
      }
      assert.equal((await call(apps[0]!.app, 'GET', '/user', { key: KEYS.bob })).status, 429);
    } finally {
      for (const t of apps) await t.close();
    }
  });
});

forEachDialect('rate limits while Redis is unreachable', (dialect) => {
  test('requests are neither held up nor failed: the process counts on its own', async () => {
    const changes: boolean[] = [];
    // Nothing listens on port 1, so every Redis command fails at once.
    const limiter = new RedisRateLimiter('redis://127.0.0.1:1', {
      timeoutMs: 300,
      onFallback: (usingRedis) => changes.push(usingRedis),
    });
    const t = await createTestApp(dialect, { rateLimiter: limiter, config: { rateLimitPerMinute: 2 } });
    try {
      const started = Date.now();
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await call(t.app, 'GET', '/user', { key: KEYS.bob })).status);
      assert.deepEqual(statuses, [200, 200, 429]);
      assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
      assert.deepEqual(changes, [false]);
    } finally {
      await t.close();
    }
  });
});

test('a Redis that stalls with its connection open holds up one request per retry interval, not every request', async () => {
  const redis = await stallableRelay(REDIS_URL);
  const changes: boolean[] = [];
  const keyPrefix = `daybook-test:${randomBytes(6).toString('hex')}:`;
  const limiter = new RedisRateLimiter(redis.url, {
    keyPrefix,
    timeoutMs: 300,
    retryMs: 1000,
    onFallback: (usingRedis) => changes.push(usingRedis),
  });
  try {
    await limiter.ping();
    assert.equal((await limiter.hit('k', 100)).remaining, 99);
    redis.stall(true);
    const started = Date.now();
    for (let i = 0; i < 10; i++) await limiter.hit('k', 100);
    const elapsed = Date.now() - started;
    // The first hit waits for the command timeout; the nine after it count locally at once. The
    // timeout's timer runs on the event loop's clock, which can lag Date.now() by a millisecond
    // or two (a CI run measured 299 ms): a hit that did not wait would take a few ms.
    assert.ok(elapsed >= 280 && elapsed < 900, `ten hits took ${elapsed} ms`);
    assert.deepEqual(changes, [false]);
    redis.stall(false);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await limiter.hit('k', 100);
    assert.deepEqual(changes, [false, true], 'after the retry interval a request asks Redis again');
  } finally {
    await limiter.close();
    await redis.close();
  }
});
