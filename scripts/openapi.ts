/**
 * Writes docs/openapi.json: the OpenAPI document the server serves at /openapi.json, generated
 * from the route schemas. `npm run openapi` after changing a route; a test fails while the
 * committed copy differs from what the code generates.
 */
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { buildApp } from '../src/http/app.ts';
import { MemoryRateLimiter } from '../src/http/rate-limit.ts';
import { openStorage } from '../src/storage/database.ts';

export const OPENAPI_FILE = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'openapi.json');

/** The document as committed: two-space JSON with a final newline. */
export function formatOpenApi(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Builds the app on a throwaway database (the document depends on the routes only). */
export async function generateOpenApi(): Promise<string> {
  const storage = openStorage('sqlite::memory:');
  const rateLimiter = new MemoryRateLimiter(Date.now);
  const app = await buildApp({ storage, config: loadConfig({}), rateLimiter, now: Date.now });
  try {
    await app.ready();
    return formatOpenApi(app.swagger());
  } finally {
    await app.close();
    await rateLimiter.close();
    await storage.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await writeFile(OPENAPI_FILE, await generateOpenApi());
  console.log(`wrote ${OPENAPI_FILE}`);
}
