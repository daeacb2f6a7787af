/** The types every HTTP module shares, apart from the app that builds them (no import cycle). */
import type { Metrics } from './metrics.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Config } from '../config.ts';
import type { Storage } from '../storage/database.ts';
import type { Recorder } from '../services/recording/recorder.ts';
import type { ReadWorkers } from '../services/read-workers.ts';
import type { RateLimiter } from './rate-limit.ts';

export interface AppDeps {
  storage: Storage;
  config: Config;
  rateLimiter: RateLimiter;
  /** The clock; tests pin it. */
  now: () => number;
  /** Prometheus metrics, when enabled (DAYBOOK_METRICS_*). */
  metrics?: Metrics;
  /**
   * The read workers to use instead of those the config asks for (null: none); the app closes
   * them with itself.
   */
  readers?: ReadWorkers | null;
}

export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What the routes are given: the app's dependencies and what buildApp makes of them. */
export interface RouteDeps extends AppDeps {
  /** Runs the recording routes' writes (services/recording/recorder.ts). */
  recorder: Recorder;
  /**
   * The threads that build reports and searches beside the server's (services/read-workers.ts);
   * null when DAYBOOK_REPORT_WORKERS is 0 or the database is in memory.
   */
  readers: ReadWorkers | null;
}

export type RouteModule = (app: App, deps: RouteDeps) => void | Promise<void>;
