/** `daybook serve`: migrate, listen, and shut down gracefully on SIGTERM/SIGINT. */
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.ts';
import { firstRunBanner, restartBanner, seedDemoOnFirstRun } from './first-run.ts';
import { buildApp, loggerOptions } from './http/app.ts';
import { Metrics, serveMetrics } from './http/metrics.ts';
import { createRateLimiter } from './http/rate-limit.ts';
import { DeliveryWorker } from './services/delivery/worker.ts';
import { startSummaryScheduler } from './services/summaries/scheduler.ts';
import { migrate, openStorage, SERVING_BUSY_TIMEOUT_MS } from './storage/database.ts';
import { startWalCheckpointer } from './storage/wal-checkpointer.ts';
import { keepTickObjectShape } from './lib/tick-shape.ts';

export interface RunningServer {
  url: string;
  close(): Promise<void>;
}

/** `env` decides the first-start demo (src/first-run.ts); `log` prints its progress and banner. */
export interface ServerIo {
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

export async function startServer(
  config: Config,
  { env = process.env, log: say = console.log }: ServerIo = {},
): Promise<RunningServer> {
  // Before any load: see lib/tick-shape.ts.
  await keepTickObjectShape();
  const storage = openStorage(config.databaseUrl);
  await migrate(storage);
  const firstRun = await seedDemoOnFirstRun(storage, { env, now: Date.now(), log: say });
  // From here on, requests: no statement may hold the process while an import writes, nor
  // wait long on a PostgreSQL server that stopped answering.
  storage.sqlite?.setBusyTimeout(SERVING_BUSY_TIMEOUT_MS);
  storage.setStatementTimeout?.(config.pgStatementTimeoutMs);
  // SQLite: the write-ahead log is checkpointed off the request thread (storage/wal-checkpointer.ts).
  const checkpointer = startWalCheckpointer(storage);
  // Redis going away and coming back is told in the server's log, as JSON lines like the rest.
  let log: FastifyBaseLogger | null = null;
  const rateLimiter = createRateLimiter(config.redisUrl, (usingRedis, reason) => {
    if (usingRedis) log?.info('Redis answers again: rate limits are shared');
    else log?.warn({ reason }, 'Redis unavailable: rate limits are counted per process');
  });
  const metrics = config.metricsToken || config.metricsPort ? new Metrics(storage) : undefined;
  const app = await buildApp(
    { storage, config, rateLimiter, now: Date.now, metrics },
    { logger: loggerOptions(config.logLevel) },
  );
  log = app.log;
  try {
    // Fastify's own line is the one "listening" line, with what the server runs on.
    const where = `database ${storage.describe}, rate limits ${config.redisUrl ? 'shared through Redis' : 'in this process'}`;
    await app.listen({
      port: config.port,
      host: config.host,
      listenTextResolver: (address) => `Daybook listening on ${address} (${where})`,
    });
  } catch (err) {
    await app.close();
    await rateLimiter.close();
    await checkpointer?.stop();
    await storage.close();
    throw new Error(`cannot listen on HOST ${config.host}, PORT ${config.port}: ${(err as Error).message}`);
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  say(firstRun ? firstRunBanner(url, firstRun) : restartBanner(url));
  // Summary delivery (docs/delivery.md): due deliveries are looked for every poll, and at once
  // when this process has just queued some.
  const deliveries = new DeliveryWorker({
    storage,
    now: Date.now,
    timeoutMs: config.deliveryTimeoutMs,
    allowPrivate: config.deliveryAllowPrivate,
    pollMs: config.deliveryPollMs,
    concurrency: config.deliveryConcurrency,
    metrics,
    log: app.log,
  });
  deliveries.start();
  const summaries = startSummaryScheduler({
    storage,
    intervalSeconds: config.summaryIntervalSeconds,
    now: Date.now,
    onRun: (stats, ms) => {
      metrics?.summaryRun(stats, ms);
      if (stats.built || stats.removed) app.log.info({ summaries: stats }, 'summaries generated');
      if (stats.deliveriesQueued && config.deliveryPollMs > 0) deliveries.wake();
    },
    // A run that fails waits for the next interval. The database being away is logged once,
    // by its watch (storage/health.ts), not by every run during the outage.
    onError: (err, ms) => {
      metrics?.summaryRun(null, ms);
      if (!storage.health.suspect(err)) app.log.error({ err }, 'summary generation failed');
    },
  });

  const metricsServer =
    metrics && config.metricsPort ? await serveMetrics(metrics, config.metricsPort, config.metricsHost) : null;

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      // Fastify stops accepting connections and waits for in-flight requests to finish.
      await app.close();
      await new Promise((resolve) => (metricsServer ? metricsServer.close(resolve) : resolve(undefined)));
      await summaries.stop();
      await deliveries.stop();
      await rateLimiter.close();
      await checkpointer?.stop();
      await storage.close();
    })();
    return closing;
  };
  return { url, close };
}

/**
 * Resolves once SIGTERM or SIGINT has arrived and the server has answered the requests in
 * flight and closed; rejects when closing fails, or when the server does not start. The caller
 * decides how the process ends. Takes the server while it starts: the handlers are in place
 * before it listens, so a signal sent as soon as it says so closes it rather than killing the
 * process (Node's default for a signal nobody handles).
 */
export function closeOnSignals(starting: Promise<RunningServer>, log: (message: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    starting.catch(reject);
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        log(`daybook: ${signal} received, finishing in-flight requests`);
        starting
          .then((server) => server.close())
          .then(resolve, (err) => reject(new Error(`shutdown failed: ${(err as Error).message}`)));
      });
    }
  });
}
