/** The baseline of the `overhead` scenario: Fastify answering GET /user with a fixed body. */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const body = { success: true, name: 'Bench User', email: 'bench@example.com' };
app.get('/user', async () => body);
app.get('/healthz', async () => ({ success: true }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => app.close().then(() => process.exit(0)));
