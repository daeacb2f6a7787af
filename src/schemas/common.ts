/** Schemas shared by route modules. */
import Type from 'typebox';

/** `message` repeats `error` for clients that show only a body's `message` (src/http/envelope.ts). */
const ErrorBody = Type.Object(
  { success: Type.Literal(false), error: Type.String(), message: Type.String() },
  { description: 'The failure envelope; `message` is the same text as `error`.' },
);

const RateLimitedBody = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Literal('rate_limited'),
    message: Type.Literal('rate_limited'),
    retryAfterSec: Type.Integer(),
  },
  { description: 'Over the per-key budget; retry after retryAfterSec seconds (also in Retry-After).' },
);

/** The error responses every authenticated route can give, plus `statuses`. */
export function errorResponses(...statuses: number[]) {
  const out: Record<number, typeof ErrorBody | typeof RateLimitedBody> = {};
  for (const status of [400, 401, 403, 405, 413, 415, 500, ...statuses]) out[status] = ErrorBody;
  out[429] = RateLimitedBody;
  return out;
}

/** What a service answers for a success response: the body without the envelope's `success`, which the route adds. */
export type Payload<T> = T extends unknown ? Omit<T, 'success'> : never;
