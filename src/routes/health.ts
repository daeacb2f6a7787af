import type { RouteModule } from '../http/types.ts';
import { failureBody } from '../http/envelope.ts';
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
      request.log.error({ err }, 'database not reachable');
      return reply.code(503).send(failureBody('Database unavailable'));
    } finally {
      clearTimeout(timer);
    }
  });
};

export default healthRoutes;
