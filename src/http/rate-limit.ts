/**
 * Fixed-window rate limiting: each key gets `limit` requests per window, counted from the
 * window's first request. In memory by default; in Redis when several processes share a budget.
 */
import { Redis } from 'ioredis';

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window ends and the budget refills. */
  resetSec: number;
}

export interface RateLimiter {
  /** True when other server processes count in the same store (Redis). */
  readonly shared: boolean;
  /** Counts `cost` requests against `key` (0 only reads the state). */
  hit(key: string, limit: number, cost?: number): RateLimitResult | Promise<RateLimitResult>;
  close(): Promise<void>;
}

const WINDOW_MS = 60_000;

function result(count: number, limit: number, msLeft: number): RateLimitResult {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSec: Math.max(1, Math.ceil(msLeft / 1000)),
  };
}

export class MemoryRateLimiter implements RateLimiter {
  readonly shared = false;
  private windows = new Map<string, { count: number; endsAt: number }>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Synchronous: the hot path of every request need not wait for a promise. */
  hit(key: string, limit: number, cost = 1): RateLimitResult {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      if (this.windows.size > 100_000) this.sweep(now);
      window = { count: 0, endsAt: now + WINDOW_MS };
      this.windows.set(key, window);
    }
    window.count += cost;
    return result(window.count, limit, window.endsAt - now);
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
  }

  async close(): Promise<void> {}
}

const HIT_SCRIPT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return {count, ttl}
`;

export interface RedisRateLimiterOptions {
  /** Prefix of every Redis key, so that several deployments (or tests) can share one Redis. */
  keyPrefix?: string;
  /** How long one Redis answer may take before this process counts on its own. */
  timeoutMs?: number;
  /** Told when counting moves from Redis to this process and back. */
  onFallback?: (usingRedis: boolean, reason?: string) => void;
  /** After a failure, how long requests count locally before one asks Redis again. */
  retryMs?: number;
  /** The clock (tests). */
  now?: () => number;
}

/**
 * Budgets shared through Redis. While Redis does not answer, requests are not held up or
 * failed: this process counts on its own (as without Redis) until Redis answers again.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly shared = true;
  private readonly redis: Redis;
  private readonly keyPrefix: string;
  private readonly local = new MemoryRateLimiter();
  private readonly onFallback: (usingRedis: boolean, reason?: string) => void;
  private usingRedis = true;
  private readonly retryMs: number;
  private readonly now: () => number;
  /** While counting locally: when one request may try Redis again. */
  private retryAt = 0;

  constructor(url: string, options: RedisRateLimiterOptions = {}) {
    this.keyPrefix = options.keyPrefix ?? 'daybook:rl:';
    this.retryMs = options.retryMs ?? 5000;
    this.now = options.now ?? Date.now;
    this.onFallback =
      options.onFallback ??
      ((usingRedis, reason) =>
        process.emitWarning(
          usingRedis
            ? 'Redis answers again: rate limits are shared'
            : `Redis unavailable (${reason}): rate limits are counted per process`,
        ));
    this.redis = new Redis(url, {
      lazyConnect: false,
      commandTimeout: options.timeoutMs ?? 500,
      maxRetriesPerRequest: 1,
    });
    // Connection errors surface through hit(); without a listener ioredis would log each retry.
    this.redis.on('error', () => {});
    this.redis.defineCommand('daybookHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  }

  async hit(key: string, limit: number, cost = 1): Promise<RateLimitResult> {
    // Known to be down: no request waits for it until it has reconnected, and a connection that
    // is open but silent (a stalled server or network) is asked by one request every retryMs,
    // not by every request for the command timeout.
    if (!this.usingRedis) {
      if (this.redis.status !== 'ready' || this.now() < this.retryAt) return this.local.hit(key, limit, cost);
      this.retryAt = this.now() + this.retryMs;
    }
    try {
      const [count, ttl] = (await (
        this.redis as unknown as { daybookHit(k: string, c: number, w: number): Promise<[number, number]> }
      ).daybookHit(`${this.keyPrefix}${key}`, cost, WINDOW_MS)) as [number, number];
      if (!this.usingRedis) {
        this.usingRedis = true;
        this.onFallback(true);
      }
      return result(count, limit, ttl);
    } catch (err) {
      if (this.usingRedis) {
        this.usingRedis = false;
        this.onFallback(false, (err as Error).message);
      }
      this.retryAt = this.now() + this.retryMs;
      return this.local.hit(key, limit, cost);
    }
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

export function createRateLimiter(
  redisUrl: string | null,
  onFallback?: RedisRateLimiterOptions['onFallback'],
): RateLimiter {
  return redisUrl ? new RedisRateLimiter(redisUrl, { onFallback }) : new MemoryRateLimiter();
}
