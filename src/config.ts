/** Configuration from the environment; every variable is documented in docs/configuration.md. */
import { availableParallelism } from 'node:os';

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | null;
  rateLimitPerMinute: number;
  authFailuresPerMinute: number;
  /** How long a verified key is trusted without reading the database again. */
  keyCacheMs: number;
  logLevel: string;
  summaryIntervalSeconds: number;
  /** Worker threads building large reports; 0 builds them on the server's own thread. */
  reportWorkers: number;
  /** SQLite file: the recording routes' writes run on a thread of their own (services/recording/recorder.ts). */
  writeThread: boolean;
  /** PostgreSQL: the longest a statement of a request may run (storage/database.ts, setStatementTimeout). */
  pgStatementTimeoutMs: number;
  /** Client addresses from X-Forwarded-For (behind a reverse proxy). */
  trustProxy: boolean;
  /** The longest gap between heartbeats that still counts as time spent (decisions §8.6). */
  heartbeatTimeoutMinutes: number;
  /** Origins whose browser pages may call the API (CORS); none by default, `*` for any. */
  corsOrigins: string[];
  /** How long a client may take to send a request's headers, and the whole request, in ms. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** How long a connection may sit idle between requests, in ms. */
  idleTimeoutMs: number;
  /** Open connections at most; more are closed as they arrive. */
  maxConnections: number;
  /** GET /metrics on the API's port for `Authorization: Bearer <token>`; null: not there. */
  metricsToken: string | null;
  /** GET /metrics, without a token, on a port of its own on `metricsHost`; 0: none. */
  metricsPort: number;
  metricsHost: string;
  /** Deliveries may go to private, loopback and link-local addresses, and over http (docs/delivery.md). */
  deliveryAllowPrivate: boolean;
  /** The time limit of one delivery attempt, in ms. */
  deliveryTimeoutMs: number;
  /** How often this process looks for due deliveries, in ms; 0: it delivers nothing. */
  deliveryPollMs: number;
  /** Delivery attempts in flight at once in this process. */
  deliveryConcurrency: number;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function integer(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  // Digits only: Number() would also take "0x50", "1e3" or " 80 ".
  const value = /^[+-]?\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
    throw new Error(`${name} must be an integer ${range} (got "${raw}")`);
  }
  return value;
}

function choice<T extends string>(env: NodeJS.ProcessEnv, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw))
    throw new Error(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
  return raw as T;
}

/**
 * Connections per process to PostgreSQL (`DAYBOOK_PG_POOL_SIZE`); read where the pool is made,
 * which every command does, and checked by loadConfig too so a server refuses a bad value at start.
 */
export function pgPoolSize(env: NodeJS.ProcessEnv = process.env): number {
  return integer(env, 'DAYBOOK_PG_POOL_SIZE', 10, 1);
}

/**
 * Large write transactions one process runs at once on PostgreSQL (`DAYBOOK_PG_WRITERS`); the others
 * wait their turn in the order they came (storage/database.ts, WriteSlots). Read where the pool
 * is made, like the pool's size.
 */
export function pgWriters(env: NodeJS.ProcessEnv = process.env): number {
  return integer(env, 'DAYBOOK_PG_WRITERS', 3, 1);
}

/** The longest a PostgreSQL timeout may be set to: a day, well within what a timer can wait. */
const MAX_DATABASE_WAIT_MS = 86_400_000;

/**
 * How long a PostgreSQL connection is waited for (`DAYBOOK_PG_CONNECT_TIMEOUT_MS`): a free one of
 * the pool, or a new one to be opened. Read where the pool is made, like the pool's size.
 */
export function pgConnectTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  return integer(env, 'DAYBOOK_PG_CONNECT_TIMEOUT_MS', 5000, 100, MAX_DATABASE_WAIT_MS);
}

/** The longest wait a timer can hold (2^31 - 1 ms); a longer one fires at once, over and over. */
const MAX_SUMMARY_INTERVAL_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/**
 * First-start demo seeding (`DAYBOOK_DEMO`, read by src/first-run.ts): on unless `off` or
 * `false`; any other value stops the command rather than being taken for either.
 */
export function demoSetting(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = choice(env, 'DAYBOOK_DEMO', 'on', ['on', 'off', 'true', 'false']);
  return value === 'on' || value === 'true';
}

function redisUrl(env: NodeJS.ProcessEnv): string | null {
  const raw = env.DAYBOOK_REDIS_URL;
  if (raw === undefined || raw === '') return null;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // Named below.
  }
  if (!url || !['redis:', 'rediss:'].includes(url.protocol) || url.hostname === '') {
    // The scheme alone: the URL may hold a password.
    throw new Error(
      `DAYBOOK_REDIS_URL must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379 (got "${url ? url.protocol : 'no URL'}")`,
    );
  }
  return raw;
}

/** DAYBOOK_METRICS_TOKEN: at least 16 characters, so that it cannot be guessed in a few tries. */
function metricsToken(env: NodeJS.ProcessEnv): string | null {
  const token = env.DAYBOOK_METRICS_TOKEN?.trim();
  if (!token) return null;
  if (token.length < 16 || /\s/.test(token))
    throw new Error('DAYBOOK_METRICS_TOKEN must be at least 16 characters without spaces');
  return token;
}

/** DAYBOOK_CORS_ORIGINS: comma-separated origins (`https://host[:port]`), or `*`. */
function corsOrigins(env: NodeJS.ProcessEnv): string[] {
  const raw = env.DAYBOOK_CORS_ORIGINS?.trim();
  if (!raw) return [];
  const origins = raw
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of origins) {
    if (origin === '*') continue;
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {}
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== origin)
      throw new Error(
        `DAYBOOK_CORS_ORIGINS must list origins such as https://dash.example.com, or * (got "${origin}")`,
      );
  }
  return origins;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  pgPoolSize(env);
  pgWriters(env);
  pgConnectTimeoutMs(env);
  demoSetting(env);
  return {
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DAYBOOK_DATABASE_URL || 'sqlite:./data/daybook.db',
    redisUrl: redisUrl(env),
    rateLimitPerMinute: integer(env, 'DAYBOOK_RATE_LIMIT_PER_MINUTE', 120, 1),
    authFailuresPerMinute: integer(env, 'DAYBOOK_AUTH_FAILURES_PER_MINUTE', 30, 1),
    keyCacheMs: integer(env, 'DAYBOOK_KEY_CACHE_MS', 2000, 0),
    logLevel: choice(env, 'LOG_LEVEL', 'info', LOG_LEVELS),
    summaryIntervalSeconds: integer(env, 'DAYBOOK_SUMMARY_INTERVAL_SECONDS', 300, 0, MAX_SUMMARY_INTERVAL_SECONDS),
    reportWorkers: integer(env, 'DAYBOOK_REPORT_WORKERS', Math.min(4, availableParallelism()), 0),
    writeThread: choice(env, 'DAYBOOK_WRITE_THREAD', 'true', ['true', 'false']) === 'true',
    pgStatementTimeoutMs: integer(env, 'DAYBOOK_PG_STATEMENT_TIMEOUT_MS', 5000, 100, MAX_DATABASE_WAIT_MS),
    trustProxy: choice(env, 'DAYBOOK_TRUST_PROXY', 'false', ['true', 'false']) === 'true',
    heartbeatTimeoutMinutes: integer(env, 'DAYBOOK_HEARTBEAT_TIMEOUT_MINUTES', 15, 1, 1440),
    corsOrigins: corsOrigins(env),
    headersTimeoutMs: integer(env, 'DAYBOOK_HEADERS_TIMEOUT_MS', 10_000, 100),
    requestTimeoutMs: integer(env, 'DAYBOOK_REQUEST_TIMEOUT_MS', 30_000, 100),
    idleTimeoutMs: integer(env, 'DAYBOOK_IDLE_TIMEOUT_MS', 65_000, 100),
    maxConnections: integer(env, 'DAYBOOK_MAX_CONNECTIONS', 2_000, 1),
    metricsToken: metricsToken(env),
    metricsPort: integer(env, 'DAYBOOK_METRICS_PORT', 0, 0, 65535),
    metricsHost: env.DAYBOOK_METRICS_HOST || '127.0.0.1',
    deliveryAllowPrivate: choice(env, 'DAYBOOK_DELIVERY_ALLOW_PRIVATE', 'false', ['true', 'false']) === 'true',
    deliveryTimeoutMs: integer(env, 'DAYBOOK_DELIVERY_TIMEOUT_SECONDS', 15, 1, 120) * 1000,
    deliveryPollMs: integer(env, 'DAYBOOK_DELIVERY_POLL_MS', 1000, 0, 3_600_000),
    deliveryConcurrency: integer(env, 'DAYBOOK_DELIVERY_CONCURRENCY', 4, 1, 64),
  };
}
