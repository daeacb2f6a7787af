import type { RouteModule } from '../http/types.ts';
import { DATABASE_RETRY_AFTER_SECONDS, DATABASE_UNAVAILABLE, failureBody } from '../http/envelope.ts';
import { HealthResponse, ReadyResponse } from '../schemas/health.ts';

/** How long /readyz waits for the database's answer. */
const READY_TIMEOUT_MS = 2000;

/** Operator endpoints, outside authentication. */
const healthRoutes: RouteModule = (app, { storage }) => {
  app.get('/healthz', { schema: { hide: true, response: { 200: HealthResponse } } as object }, async () => ({
    success: true,
    status: 'ok',
  }));

  app.get('/readyz', { schema: { hide: true, response: { 200: ReadyResponse } } as object }, async (request, reply) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      // A database that accepts connections but does not answer must not hold the probe (and a
      // shutdown waiting for it) open: no answer within READY_TIMEOUT_MS is not ready.
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
      });
      await Promise.race([storage.ping(), timeout]);
      return { success: true, status: 'ready', database: storage.dialect };
    } catch (err) {
      // A connection error starts the database watch, which logs the outage once (http/app.ts);
      // anything else (no answer in time) is told here, in one line without a stack.
      if (!storage.health.suspect(err)) request.log.warn({ reason: (err as Error).message }, 'database not ready');
      return reply
        .code(503)
        .header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS))
        .send(failureBody(DATABASE_UNAVAILABLE));
    } finally {
      clearTimeout(timer);
    }
  });
};

export default healthRoutes;
