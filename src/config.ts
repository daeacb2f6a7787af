/** Configuration from the environment; every variable is documented in README.md. */
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
}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer of at least ${min} (got "${raw}")`);
  }
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: integer(env, 'PORT', 8080),
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DAYBOOK_DATABASE_URL || 'sqlite:./data/daybook.db',
    redisUrl: env.DAYBOOK_REDIS_URL || null,
    rateLimitPerMinute: integer(env, 'DAYBOOK_RATE_LIMIT_PER_MINUTE', 120, 1),
    authFailuresPerMinute: integer(env, 'DAYBOOK_AUTH_FAILURES_PER_MINUTE', 30, 1),
    keyCacheMs: integer(env, 'DAYBOOK_KEY_CACHE_MS', 2000, 0),
    logLevel: env.LOG_LEVEL || 'info',
    summaryIntervalSeconds: integer(env, 'DAYBOOK_SUMMARY_INTERVAL_SECONDS', 300, 0),
    reportWorkers: integer(env, 'DAYBOOK_REPORT_WORKERS', Math.min(4, availableParallelism()), 0),
  };
}
