/**
 * The failure envelope, built here for every sender: the error handler, the 404/405 handler,
 * authentication, the health checks, and the answers written straight to a socket before
 * Fastify sees a request.
 */

export interface FailureBody {
  success: false;
  error: string;
  /**
   * The same text as `error`: generic HTTP clients (n8n, many SDKs) show a body's `message`
   * and otherwise only "Bad request" (docs/api.md, "Envelope").
   */
  message: string;
  [field: string]: unknown;
}

/**
 * The 503 of a database that cannot be reached or does not answer in time (a restart, a failover,
 * a connection cut, a hung server), from every route and /readyz alike (docs/api.md, "Errors").
 */
export const DATABASE_UNAVAILABLE = 'Database unavailable';
/** Seconds a 503 `Database unavailable` tells the client to wait (Retry-After). */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/** `{success: false, error, message}`, then `extra` (e.g. a 429's `retryAfterSec`). */
export function failureBody(error: string, extra: Record<string, unknown> = {}): FailureBody {
  return { success: false, error, message: error, ...extra };
}

/**
 * A whole HTTP/1.1 response carrying the envelope, for answers written to the socket itself
 * (requests Node's parser refuses, CONNECT); the connection is closed after it.
 */
export function rawFailureResponse(
  status: number,
  statusText: string,
  error: string,
  headers: Record<string, string> = {},
): string {
  const body = JSON.stringify(failureBody(error));
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (
    `HTTP/1.1 ${status} ${statusText}\r\n${extra}Content-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}
