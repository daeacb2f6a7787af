/**
 * When a delivery is tried again (docs/delivery.md, "Retries"): the Standard Webhooks schedule —
 * immediately, then 5 s, 5 min, 30 min, 2 h, 5 h and 10 h after the previous attempt, then every
 * 10 h — until the delivery is 3 days old. A 429's `Retry-After` replaces the step it falls on.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The wait before attempt n + 1, after n attempts (index n - 1); the last repeats. */
const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR];

/** A delivery this old is given up; a destination failing this long is disabled. */
export const GIVE_UP_AFTER_MS = 3 * 24 * HOUR;

/** The shortest wait after a 429, whatever its `Retry-After` says. */
const MIN_RETRY_AFTER_MS = SECOND;

/** The longest `Retry-After` honoured; a longer one waits this long. */
const MAX_RETRY_AFTER_MS = 24 * HOUR;

/** The wait after `attempts` failed attempts (1 or more). */
export function retryDelay(attempts: number): number {
  return RETRY_DELAYS_MS[Math.min(attempts, RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS[0]!;
}

/** A `Retry-After` header (seconds or an HTTP date) as a wait in ms, or null when absent or unreadable. */
export function retryAfterMs(header: string | undefined, now: number): number | null {
  if (header === undefined) return null;
  const value = header.trim();
  let wait: number;
  if (/^\d+$/.test(value)) wait = Number(value) * SECOND;
  else {
    const at = Date.parse(value);
    if (Number.isNaN(at)) return null;
    wait = at - now;
  }
  // At least a second: `Retry-After: 0` (or a date past) must not make a loop of attempts.
  return Math.min(Math.max(wait, MIN_RETRY_AFTER_MS), MAX_RETRY_AFTER_MS);
}

/**
 * When the next attempt is due after a failed one, or null when the delivery is given up
 * (it would be tried after it is 3 days old).
 */
export function nextAttemptAt(
  attempts: number,
  now: number,
  createdAt: number,
  retryAfter: number | null,
): number | null {
  const at = now + (retryAfter ?? retryDelay(attempts));
  return at - createdAt > GIVE_UP_AFTER_MS ? null : at;
}
