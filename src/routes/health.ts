import { sql } from 'kysely';
import type { RouteModule } from '../http/app.ts';

/** Operator endpoints, outside authentication. */
const healthRoutes: RouteModule = (app, { storage }) => {
  app.get('/healthz', { schema: { hide: true } as object }, async () => ({ success: true, status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } as object }, async (request, reply) => {
    try {
      await sql`select 1`.execute(storage.db);
      return { success: true, status: 'ready', database: storage.dialect };
    } catch (err) {
      request.log.error({ err }, 'database not reachable');
      return reply.code(503).send({ success: false, error: 'Database unavailable' });
    }
  });
};

export default healthRoutes;
