/**
 * Authentication, rate limits, scopes and plans, in the order of docs/api.md, "Every request":
 * 401 → 429 → 403 scope → 403 plan. Runs before the body is parsed or validated.
 */
import type { FastifyContextConfig, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { type KeyWithUser, type UserRow, findKeyByHash, touchKey } from '../storage/accounts.ts';
import { hashApiKey } from '../services/api-keys.ts';
import { type Viewer, loadViewer } from '../services/projects/access.ts';
import { SCOPES, type Scope, grants } from '../services/scopes.ts';
import type { App, AppDeps } from './types.ts';
import { failureBody } from './envelope.ts';
import type { RateLimitResult } from './rate-limit.ts';

export interface AuthContext {
  keyId: string;
  scopes: string[];
  user: UserRow;
  /** The owner's active teams as the key was verified (see CachedKey). */
  viewer: Viewer;
}

/**
 * A verified key with its owner's active teams, read together when the key is looked up and
 * trusted together for the key cache's time: like a revocation or a plan change, a change of
 * team membership reaches reads within DAYBOOK_KEY_CACHE_MS, and a report needs no query of its
 * own for it.
 */
interface CachedKey extends KeyWithUser {
  viewer: Viewer;
  /** Every scope the key's scopes grant, implied ones included, worked out once per lookup. */
  granted: ReadonlySet<Scope>;
  /** What `request.auth` is set to, made once per lookup: routes only read it. */
  auth: AuthContext;
  /** The key's name in the rate limiter (`key:<id>`). */
  rateKey: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's primary scope; routes without one are public. */
    scope?: Scope;
    /** `core`: needs the Core plan or higher. */
    plan?: 'core';
    /** Another scope that grants the route too (the 403 still names `scope`). */
    orScope?: Scope;
    /**
     * The key may also come in `Authorization`, as WakaTime clients send it: `Basic
     * base64(key)` (or of `key:`), or `Bearer key` (decisions §8.2).
     */
    authorizationHeader?: boolean;
    /**
     * The route needs a valid key (authenticated, rate limited, `request.auth` set) but no single
     * scope or plan: what it does checks them itself (`/mcp`, whose tools each need the scope and
     * plan of the route they wrap).
     */
    anyScope?: boolean;
  }
  interface FastifyRequest {
    auth: AuthContext;
  }
}

const TOUCH_INTERVAL_MS = 60_000;

/** The 403 of a key without the route's scope, and of a free-plan key on a Core route. */
export const missingScope = (scope: Scope) => `API key missing required scope: ${scope}`;
export const CORE_PLAN_REQUIRED = 'This endpoint requires the Core plan or higher.';

function fail(reply: FastifyReply, status: number, error: string, extra: Record<string, unknown> = {}) {
  return reply.code(status).send(failureBody(error, extra));
}

/**
 * Names in lower case, as Fastify sends every header name: given so, they are the same strings
 * on every request and Fastify's lower-casing of them costs no new string.
 */
function setRateHeaders(reply: FastifyReply, rate: RateLimitResult): void {
  reply.header('ratelimit-limit', rate.limit);
  reply.header('ratelimit-remaining', rate.remaining);
  reply.header('ratelimit-reset', rate.resetSec);
}

function rateLimited(reply: FastifyReply, rate: RateLimitResult) {
  reply.header('Retry-After', rate.resetSec);
  return fail(reply, 429, 'rate_limited', { retryAfterSec: rate.resetSec });
}

/**
 * Verified keys stay trusted for `ttlMs` so a busy key does not cost a database read per
 * request; a revocation or plan change takes effect within that time.
 */
class KeyCache {
  private entries = new Map<string, { key: CachedKey | null; until: number }>();
  private readonly ttlMs: number;

  constructor(ttlMs: number) {
    this.ttlMs = ttlMs;
  }

  get(presented: string, now: number): CachedKey | null | undefined {
    const entry = this.entries.get(presented);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.entries.delete(presented);
      return undefined;
    }
    return entry.key;
  }

  /** Only known keys are cached: an unknown one must be looked up again once it exists. */
  set(presented: string, key: CachedKey, now: number): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= 10_000) this.entries.clear();
    this.entries.set(presented, { key, until: now + this.ttlMs });
  }
}

export function registerAuth(app: App, deps: AppDeps): void {
  const { storage, rateLimiter, config } = deps;
  const lastTouched = new Map<string, number>();
  const keys = new KeyCache(config.keyCacheMs);
  // Addresses over their failed-attempt budget, known locally so a blocked address costs no
  // shared-store round trip; the count itself lives in the (possibly shared) rate limiter.
  const blockedUntil = new Map<string, number>();
  const block = (ip: string, failures: RateLimitResult, now: number) => {
    if (blockedUntil.size >= 10_000) blockedUntil.clear();
    blockedUntil.set(ip, now + failures.resetSec * 1000);
  };

  app.decorateRequest('auth', null as unknown as AuthContext);

  // Every answer is what its Content-Type says, whatever the route (404s and 405s too).
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('x-content-type-options', 'nosniff');
    done();
  });

  // Callback-style: a cached key under the in-process rate limiter is checked without a promise
  // (the common case); anything that needs a database or Redis round trip goes through check().
  function keyCheck(route: FastifyContextConfig): onRequestHookHandler {
    return (request, reply, done) => {
      // An authenticated answer is never cached.
      reply.header('cache-control', 'no-store');

      const presented =
        presentedKey(request.headers['x-api-key']) ??
        (route.authorizationHeader ? keyOfAuthorization(request.headers.authorization) : undefined);
      if (!presented) {
        fail(reply, 401, 'Missing API key');
        return;
      }

      const now = deps.now();
      const key = keys.get(presented, now);
      if (key && !rateLimiter.shared && (blockedUntil.size === 0 || !blockedUntil.has(request.ip))) {
        const counted = rateLimiter.hit(key.rateKey, config.rateLimitPerMinute);
        if (!(counted instanceof Promise)) {
          if (afterRateLimit(request, reply, key, counted, now, route) === undefined) done();
          return;
        }
      }
      check(request, reply, route, presented, now).then(
        (replied) => {
          if (replied === undefined) done();
        },
        (err: Error) => done(err),
      );
    };
  }

  // The key check is a hook of each route that needs a key, made as the route is declared with
  // that route's configuration: a public route runs none of it, and no request reads
  // `request.routeOptions` (Fastify builds a new object on every access). Route hooks run after
  // the one above, so the headers keep their order.
  app.addHook('onRoute', (routeOptions) => {
    const route = routeOptions.config;
    if (!route?.scope && !route?.anyScope) return;
    const own = routeOptions.onRequest;
    routeOptions.onRequest = own === undefined ? [keyCheck(route)] : [keyCheck(route), ...[own].flat()];
  });

  async function check(
    request: FastifyRequest,
    reply: FastifyReply,
    route: FastifyContextConfig,
    presented: string,
    now: number,
  ): Promise<FastifyReply | undefined> {
    const blocked = blockedUntil.get(request.ip);
    if (blocked !== undefined) {
      if (blocked > now) {
        const retryAfterSec = Math.max(1, Math.ceil((blocked - now) / 1000));
        return rateLimited(reply, {
          allowed: false,
          limit: config.authFailuresPerMinute,
          remaining: 0,
          resetSec: retryAfterSec,
        });
      }
      blockedUntil.delete(request.ip);
    }

    // The cache is keyed by the presented key itself (process memory only, never logged), so
    // a cached key costs no hashing either.
    let key = keys.get(presented, now);
    if (key === undefined) {
      const found = await findKeyByHash(storage.db, hashApiKey(presented));
      if (found && !found.revoked) {
        const viewer = await loadViewer(storage.db, found.user.id);
        key = {
          ...found,
          viewer,
          granted: new Set(SCOPES.filter((scope) => grants(found.scopes, scope))),
          auth: { keyId: found.keyId, scopes: found.scopes, user: found.user, viewer },
          rateKey: `key:${found.keyId}`,
        };
        keys.set(presented, key, now);
      } else {
        key = null;
      }
    }
    if (!key) {
      const failures = await rateLimiter.hit(`auth-failures:${request.ip}`, config.authFailuresPerMinute);
      if (!failures.allowed) {
        block(request.ip, failures, now);
        return rateLimited(reply, failures);
      }
      return fail(reply, 401, 'Invalid API key');
    }

    const counted = rateLimiter.hit(key.rateKey, config.rateLimitPerMinute);
    if (rateLimiter.shared) {
      // Another process may have blocked this address: the failures are counted in the shared
      // store, so its state is read there, beside the key's own count (one round trip). A
      // blocked address gets 429 whatever key it sends, or it could tell valid keys apart.
      const [failures, rate] = await Promise.all([
        rateLimiter.hit(`auth-failures:${request.ip}`, config.authFailuresPerMinute, 0),
        counted,
      ]);
      if (!failures.allowed) {
        block(request.ip, failures, now);
        return rateLimited(reply, failures);
      }
      return afterRateLimit(request, reply, key, rate, now, route);
    }
    return afterRateLimit(request, reply, key, counted instanceof Promise ? await counted : counted, now, route);
  }

  function afterRateLimit(
    request: FastifyRequest,
    reply: FastifyReply,
    key: CachedKey,
    rate: RateLimitResult,
    now: number,
    route: FastifyContextConfig,
  ): FastifyReply | undefined {
    setRateHeaders(reply, rate);
    if (!rate.allowed) return rateLimited(reply, rate);

    const required = route.scope;
    const also = route.orScope;
    if (required !== undefined && !key.granted.has(required) && !(also !== undefined && key.granted.has(also))) {
      return fail(reply, 403, missingScope(required));
    }
    if (route.plan === 'core' && key.user.plan === 'free') {
      return fail(reply, 403, CORE_PLAN_REQUIRED);
    }

    request.auth = key.auth;

    if (now - (lastTouched.get(key.keyId) ?? key.lastUsedAt ?? 0) >= TOUCH_INTERVAL_MS) {
      lastTouched.set(key.keyId, now);
      touchKey(storage, key.keyId, now).catch((err) => {
        // Tried again by a later request rather than a minute later.
        lastTouched.delete(key.keyId);
        // The database being away is logged once, by its watch (storage/health.ts).
        if (!storage.health.suspect(err)) request.log.warn({ err }, 'could not record key use');
      });
    }
    return undefined;
  }
}

/**
 * The key of the `x-api-key` header, spaces around it trimmed. Node joins a repeated header into
 * one value (`k, k`): the same key sent twice (clients that set the header per request and per
 * session) is that key; different keys stay one value that matches no key (401).
 */
function presentedKey(header: string | string[] | undefined): string | undefined {
  const value = (Array.isArray(header) ? header.join(',') : header)?.trim();
  if (!value || !value.includes(',')) return value;
  const keys = new Set(
    value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
  );
  return keys.size === 1 ? [...keys][0] : value;
}

/**
 * The key of an `Authorization` header: `Bearer <key>`, or `Basic <base64>` of the key alone
 * (as wakatime-cli sends it), of `key:` or of `user:key`.
 */
function keyOfAuthorization(header: string | undefined): string | undefined {
  const match = /^(basic|bearer)\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) return undefined;
  const [, scheme, value] = match as unknown as [string, string, string];
  if (scheme.toLowerCase() === 'bearer') return value;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const key = colon < 0 ? decoded : decoded.slice(0, colon) || decoded.slice(colon + 1);
  return key.trim() || undefined;
}
