/**
 * One delivery attempt (docs/delivery.md): a POST of the stored body with a time limit for the
 * whole exchange, no redirects followed, the address checked as it is connected to, and at most
 * a short excerpt of the answer kept. Webhooks are signed per the Standard Webhooks
 * specification: `webhook-id` (the same on every attempt), `webhook-timestamp` (this attempt's)
 * and `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Webhook } from 'standardwebhooks';
import { checkLiteralAddress, guardedLookup, RefusedAddress } from './address.ts';
import { retryAfterMs } from './schedule.ts';

type AttemptOutcome = 'delivered' | 'failed' | 'rate-limited' | 'gone' | 'timeout' | 'network' | 'refused';

export interface AttemptResult {
  outcome: AttemptOutcome;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
  /** A 429's Retry-After as a wait in ms, or null. */
  retryAfter: number | null;
  durationMs: number;
}

export interface OutgoingDelivery {
  id: string;
  url: string;
  body: string;
  /** Webhooks only. */
  secret: string | null;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** Aborts the attempt (the process is stopping): the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Bytes of an answer read at most; the rest is not waited for. */
const READ_LIMIT = 1024;
/** Characters of an answer kept for the user to see. */
const EXCERPT_CHARS = 200;

const USER_AGENT = 'Daybook-Delivery/1';

function signatureHeaders(delivery: OutgoingDelivery, now: number): Record<string, string> {
  if (!delivery.secret) return {};
  const timestamp = new Date(Math.floor(now / 1000) * 1000);
  return {
    'webhook-id': delivery.id,
    'webhook-timestamp': String(timestamp.getTime() / 1000),
    'webhook-signature': new Webhook(delivery.secret).sign(delivery.id, timestamp, delivery.body),
  };
}

/** The answer's first bytes as one line of printable text, or null for none. */
function excerptOf(bytes: Buffer): string | null {
  const text = bytes
    .toString('utf8')
    .replace(/\uFFFD+$/, '')
    .replace(/\p{Cc}+/gu, ' ')
    .trim();
  if (!text) return null;
  const chars = [...text];
  return chars.length > EXCERPT_CHARS ? `${chars.slice(0, EXCERPT_CHARS).join('')}…` : text;
}

/** Node's network errors as the user reads them; never the URL (it may be the secret). */
function networkError(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset by the receiver';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'CERT_HAS_EXPIRED':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `TLS certificate not accepted (${err.code})`;
    default:
      return err.code ? `network error (${err.code})` : 'network error';
  }
}

function classify(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 410) return 'gone';
  if (status === 429) return 'rate-limited';
  return 'failed';
}

function statusError(res: IncomingMessage): string | null {
  const status = res.statusCode ?? 0;
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) return `HTTP ${status}: redirects are not followed`;
  return `HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}`;
}

export async function sendDelivery(delivery: OutgoingDelivery, options: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const finish = (partial: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({
    ...partial,
    durationMs: Math.round(performance.now() - started),
  });
  const failure = (outcome: AttemptOutcome, error: string) =>
    finish({ outcome, statusCode: null, error, responseExcerpt: null, retryAfter: null });

  try {
    checkLiteralAddress(delivery.url, options.allowPrivate);
  } catch (err) {
    return failure('refused', (err as Error).message);
  }
  const url = new URL(delivery.url);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const body = Buffer.from(delivery.body);

  return new Promise<AttemptResult>((resolve, reject) => {
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': String(body.length),
          'user-agent': USER_AGENT,
          // The wall clock, whatever clock schedules the attempts: receivers check it against theirs.
          ...signatureHeaders(delivery, Date.now()),
        },
        lookup: guardedLookup(options.allowPrivate) as never,
        signal,
        // A connection per attempt: nothing of one receiver's connection outlives its attempt.
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let read = 0;
        let answered = false;
        const done = () => {
          if (answered) return;
          answered = true;
          res.destroy();
          const status = res.statusCode ?? 0;
          const outcome = classify(status);
          resolve(
            finish({
              outcome,
              statusCode: status,
              error: statusError(res),
              responseExcerpt: excerptOf(Buffer.concat(chunks)),
              retryAfter: status === 429 ? retryAfterMs(res.headers['retry-after'], Date.now()) : null,
            }),
          );
        };
        res.on('data', (chunk: Buffer) => {
          if (read >= READ_LIMIT) return;
          chunks.push(chunk.subarray(0, READ_LIMIT - read));
          read += chunk.length;
          if (read >= READ_LIMIT) done();
        });
        res.on('end', done);
        res.on('error', () => done());
      },
    );
    request.on('error', (err: NodeJS.ErrnoException) => {
      if (options.signal?.aborted) return reject(options.signal.reason);
      if (timeout.aborted) return resolve(failure('timeout', `no answer within ${options.timeoutMs / 1000} s`));
      if (err instanceof RefusedAddress) return resolve(failure('refused', err.message));
      resolve(failure('network', networkError(err)));
    });
    request.end(body);
  });
}
