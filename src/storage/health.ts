/**
 * Whether the database can be reached, told once per change. A PostgreSQL server that restarts,
 * fails over, cuts a connection or stops answering makes requests fail with connection errors
 * (isDatabaseUnavailable): each is answered 503, and the first one makes this watch ask the
 * database at once whether it answers. A lost connection on a database that still answers
 * (pg_terminate_backend, an idle connection closed) is no outage and changes nothing; one that
 * does not answer is down until a probe, every PROBE_INTERVAL_MS, gets its answer.
 */

/** How often a database that is down is asked again (it serves again within this of its return). */
const PROBE_INTERVAL_MS = 250;

/** PostgreSQL's codes for a server going away: admin or crash shutdown, starting up, too many connections. */
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
/** Node's socket errors for a server that cannot be reached or hung up. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/**
 * pg's and pg-pool's own messages for a connection that ended or could not be had in time, and
 * for a statement whose answer did not come in time (a server frozen or out of reach).
 */
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Connection ended unexpectedly|Query read timeout)/;

/**
 * True for an error that means the database cannot be reached now (down, restarting, failing
 * over, a connection cut, no connection within the pool's timeout) rather than that a statement
 * is wrong. Follows `cause` and an AggregateError's `errors` (a host name that resolves to
 * several addresses).
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (err === null || typeof err !== 'object' || depth > 4) return false;
  const { code, message, cause, errors } = err as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (
    typeof code === 'string' &&
    (UNAVAILABLE_CODES.has(code) || SOCKET_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
  )
    return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return cause !== undefined && isDatabaseUnavailable(cause, depth + 1);
}

/** A change of the database's availability; `reason` is the error that showed it down. */
type HealthListener = (available: boolean, reason?: string) => void;

export class DatabaseHealth {
  readonly #ping: () => Promise<void>;
  readonly #listeners = new Set<HealthListener>();
  #available = true;
  /** A probe in flight or waiting for its turn. */
  #probing = false;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(ping: () => Promise<void>) {
    this.#ping = ping;
  }

  /** False from the moment the database was found not answering until it answers again. */
  get available(): boolean {
    return this.#available;
  }

  /** Calls `listener` on every change; returns what stops it. */
  onChange(listener: HealthListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * An error met on the database: when it is a connection error, the database is asked whether
   * it answers (nothing is told when it does). Returns whether it was a connection error.
   */
  suspect(err: unknown): boolean {
    if (!isDatabaseUnavailable(err)) return false;
    if (!this.#probing && !this.#closed) {
      this.#probing = true;
      void this.#probe((err as Error).message);
    }
    return true;
  }

  async #probe(reason: string): Promise<void> {
    if (this.#closed) return;
    try {
      await this.#ping();
    } catch (err) {
      if (this.#closed) return;
      if (this.#available) {
        this.#available = false;
        this.#tell(false, isDatabaseUnavailable(err) ? (err as Error).message : reason);
      }
      this.#timer = setTimeout(() => void this.#probe(reason), PROBE_INTERVAL_MS);
      // A process that is otherwise done (a CLI command) is not held by the watch.
      this.#timer.unref();
      return;
    }
    this.#probing = false;
    if (!this.#available && !this.#closed) {
      this.#available = true;
      this.#tell(true);
    }
  }

  #tell(available: boolean, reason?: string): void {
    for (const listener of this.#listeners) {
      try {
        listener(available, reason);
      } catch {
        // A listener (a logger) that throws must not stop the watch.
      }
    }
  }

  /** Stops probing (the storage is closing). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }
}
