/**
 * Builds the HTTP server: the envelope, error mapping, 404/405, authentication, rate limits
 * and every route module in src/routes.
 */
import { readdir } from 'node:fs/promises';
import { type IncomingMessage, STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import cors from '@fastify/cors';
import FindMyWay from 'find-my-way';
import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import { mayHoldUnstorableText, NUL_RULE, unstorableText } from '../lib/text-checks.ts';
import { registerAuth } from './auth.ts';
import { registerMetrics } from './metrics.ts';
import { drainBeforeClosing } from './drain.ts';
import type { App, AppDeps, RouteDeps, RouteModule } from './types.ts';
import { createRecorder } from '../services/recording/recorder.ts';
import { ReadWorkers, smallReadThreads } from '../services/read-workers.ts';
import {
  DATABASE_RETRY_AFTER_SECONDS,
  DATABASE_UNAVAILABLE,
  type FailureBody,
  failureBody,
  rawFailureResponse,
} from './envelope.ts';
import { ApiError, shown } from '../errors.ts';
import { registerOpenApi } from './openapi.ts';
import { describeValidationError, ERROR_KEYWORD, finiteAfterCoercion } from './validation.ts';

export const BODY_LIMIT = 1024 * 1024;
const routesDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'routes');

export interface BuildOptions {
  logger?: FastifyServerOptions['logger'];
}

/** Anything shaped like a Daybook key (`dbk_…`), wherever a caller may have put it. */
const KEY_SHAPED = /dbk_[A-Za-z0-9_-]+/g;
const withoutKeys = (text: string) => (text.includes('dbk_') ? text.replace(KEY_SHAPED, 'dbk_[redacted]') : text);

export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: {
      paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', 'req.headers.authorization', 'headers.authorization'],
      censor: '[redacted]',
    },
    serializers: {
      // The path without its query string, and without anything shaped like a key: a key pasted
      // into a URL (`/projects/dbk_…`) must not reach the logs.
      req: (req) => ({ method: req.method, path: withoutKeys(String(req.url).split('?')[0]!), remoteAddress: req.ip }),
    },
    formatters: {
      // Messages and the other fields of a line (an error's message repeats what the caller sent).
      log: (object) => {
        for (const [name, value] of Object.entries(object)) {
          if (typeof value === 'string') object[name] = withoutKeys(value);
          else if (value instanceof Error)
            object[name] = {
              type: value.name,
              message: withoutKeys(value.message),
              stack: withoutKeys(value.stack ?? ''),
            };
        }
        return object;
      },
    },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === 'string' ? withoutKeys(a) : a)) as Parameters<typeof method>);
      },
    },
  };
}

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type BaseLogger = FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };
type LogFn = (...args: unknown[]) => void;

/**
 * A request's logger that makes its pino child (with the request id bound) only when a line is
 * written at an enabled level: most requests log nothing, and a child per request cost a
 * measurable share of a fast route's time (docs/performance.md). Lines written are the same.
 */
class LazyRequestLogger {
  #parent: BaseLogger;
  #bindings: Bindings;
  #options: ChildLoggerOptions;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: BaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #real(): FastifyBaseLogger {
    if (this.#child === undefined) this.#child = this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  #write(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]): void {
    if (this.#child === undefined && this.#parent.isLevelEnabled?.(level) === false) return;
    (this.#real()[level] as LogFn)(...args);
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }
  set level(level: string) {
    this.#real().level = level;
  }
  isLevelEnabled(level: string): boolean {
    return ((this.#child ?? this.#parent) as BaseLogger).isLevelEnabled?.(level) ?? true;
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }
  silent(..._args: unknown[]): void {}
  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.#write('error', args);
  }
  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }
  info(...args: unknown[]): void {
    this.#write('info', args);
  }
  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }
}

/** Fastify's childLoggerFactory: a lazy child, unless the route sets a level of its own. */
function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  if (options.level !== undefined || typeof (logger as BaseLogger).isLevelEnabled !== 'function') {
    return logger.child(bindings, options);
  }
  return new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}

/**
 * Fastify's two lines per request ("incoming request", "request completed") are written at info;
 * below that level they are skipped before Fastify builds their fields (the request's object,
 * its response time). Lines written are the same; a failed request's "request errored" line is
 * left to Fastify as it is.
 */
class RequestLineLogger extends LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if ((request.log as BaseLogger).isLevelEnabled?.('info') === false) return;
    super.incomingRequest(request, reply, metadata);
  }
  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ): void {
    if (!error && (reply.log as BaseLogger).isLevelEnabled?.('info') === false) return;
    super.requestCompleted(error, request, reply, metadata);
  }
}

/**
 * Query strings and path parameters arrive as text, so their values are coerced to the declared
 * types; JSON bodies carry real types, so `"limit": "5"` or `"name": 5` is a 400. Both report the
 * failing schema and value with each error (`verbose`), so that a schema's own wording of its 400
 * (the `x-error` keyword, validation.ts) can be found and filled in. `strictNumbers`: JSON.parse
 * reads `1e309` as Infinity, which is no number a field can hold.
 *
 * One pair per process: Ajv keeps what it compiled by schema, and the route schemas are the same
 * objects in every app, so an app built after the first (the tests build hundreds) reuses them.
 */
let compilers: { coercing: ValidatorCompiler; exact: ValidatorCompiler } | undefined;
type ValidatorCompiler = ReturnType<ReturnType<typeof AjvCompiler>>;
function validatorCompilers(): { coercing: ValidatorCompiler; exact: ValidatorCompiler } {
  if (compilers) return compilers;
  const pool = AjvCompiler();
  const shared = { removeAdditional: false, verbose: true, strictNumbers: true, keywords: [ERROR_KEYWORD] };
  compilers = {
    coercing: pool({}, { customOptions: { ...shared, coerceTypes: 'array' } }),
    exact: pool({}, { customOptions: { ...shared, coerceTypes: false } }),
  };
  return compilers;
}

/**
 * Fastify's own response serializers (fast-json-stringify), kept by schema for the same reason:
 * building them was half of what a new app cost. No app adds shared schemas or serializer
 * options, so a schema object always compiles to the same function.
 */
const buildSerializers = SerializerSelector();
const serializers = new WeakMap<object, unknown>();
const keptSerializers: typeof buildSerializers = (externalSchemas, options) => {
  const compile = buildSerializers(externalSchemas, options);
  return (route) => {
    const schema = route.schema as object;
    let serializer = serializers.get(schema);
    if (serializer === undefined) {
      serializer = compile(route);
      serializers.set(schema, serializer);
    }
    return serializer as ReturnType<typeof compile>;
  };
};

const MAX_PARAM_LENGTH = 16 * 1024;

/** A request body refused while it was parsed (see the content-type parsers below). */
class BodyRefusal {
  readonly error: ApiError;
  constructor(error: ApiError) {
    this.error = error;
  }
}

/** The field is named as given, cut like any echoed input: a path may be as long as the body is deep. */
const nulMessage = (field: string) => `${shown(field)} ${NUL_RULE}`;
const UNSUPPORTED_MEDIA_TYPE = 'Unsupported Media Type: send application/json';
/** The methods routes are declared with, in the order a 405's Allow header lists them. */
const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const UNSUPPORTED_ENCODING = 'Unsupported Content-Encoding: send the body uncompressed';
const DATABASE_BUSY = 'Service Unavailable: the database is busy with another writer; retry shortly';

/** SQLite's "database is locked" (SQLITE_BUSY and its extended codes), as better-sqlite3 reports it. */
function isDatabaseBusy(error: { code?: string }): boolean {
  return typeof error.code === 'string' && error.code.startsWith('SQLITE_BUSY');
}

/**
 * PostgreSQL cancelled the statement (57014): it ran past DAYBOOK_PG_STATEMENT_TIMEOUT_MS, or an
 * operator cancelled it. The database answers, too slowly; a report worker's failure carries
 * the code in its cause.
 */
function isStatementCancelled(error: { code?: string; cause?: unknown }): boolean {
  return error.code === '57014' || (error.cause as { code?: unknown } | undefined)?.code === '57014';
}

const UNSUPPORTED_CHARSET = 'Unsupported Media Type: send application/json in UTF-8';
/** Refuses bytes that are not UTF-8 instead of replacing them. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** True unless the Content-Type names a charset other than UTF-8. */
function isUtf8Charset(contentType: string | undefined): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  return charset === undefined || charset === 'utf-8' || charset === 'utf8';
}

/**
 * A compressed body would reach the JSON parser as bytes it cannot read ("Malformed JSON body"
 * for a body that is fine): it is refused as what it is (RFC 9110 §15.5.16).
 */
function isEncoded(headers: Record<string, string | string[] | undefined>): boolean {
  const encoding = headers['content-encoding'];
  if (encoding === undefined) return false;
  const value = String(encoding).trim().toLowerCase();
  return value !== '' && value !== 'identity';
}

/** The name of the first path or query parameter holding U+0000, or null. */
function parameterHoldingNul(parameters: unknown): string | null {
  if (parameters === null || typeof parameters !== 'object') return null;
  for (const name in parameters) {
    const value = (parameters as Record<string, unknown>)[name];
    if (
      typeof value === 'string'
        ? value.includes('\u0000')
        : Array.isArray(value) && value.some((v) => String(v).includes('\u0000'))
    ) {
      return name;
    }
  }
  return null;
}

/** A reply as the handlers outside any route (Fastify's framework errors) use it. */
interface EnvelopeReply {
  code(status: number): { send(body: FailureBody): unknown };
}

/**
 * Requests Node's HTTP parser rejects before Fastify sees them (headers over 16 KiB, a request
 * line that is not HTTP): the answer is still the envelope, then the connection is closed.
 */
function answerClientError(
  this: { log: { debug(obj: object, msg: string): void } },
  err: Error & { code?: string },
  socket: Socket,
): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout']
        : [400, 'Bad Request'];
  this.log.debug({ code: err.code }, 'client error');
  if (socket.writable) socket.write(rawFailureResponse(status, STATUS_CODES[status] ?? '', message));
  socket.destroy(err);
}

export async function buildApp(deps: AppDeps, options: BuildOptions = {}): Promise<App> {
  const app = Fastify({
    logger: options.logger ?? false,
    ...(options.logger ? { childLoggerFactory: lazyChildLogger, logController: new RequestLineLogger() } : {}),
    bodyLimit: BODY_LIMIT,
    exposeHeadRoutes: false,
    trustProxy: deps.config.trustProxy,
    schemaErrorFormatter: (errors, dataVar) => new ApiError(400, describeValidationError(errors, dataVar)),
    schemaController: { compilersFactory: { buildSerializer: keptSerializers } },
    // A path segment may be as long as the request line allows (Node caps the headers at 16 KiB),
    // so a long project id is looked up and answered 404 like any other unknown id.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Errors Fastify meets before routing; answered in the envelope like every other failure.
    frameworkErrors: (error, _request, reply) => {
      const [status, message] =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? [414, 'URI Too Long']
          : error.code === 'FST_ERR_BAD_URL'
            ? [400, 'Malformed URL: a path segment is not valid percent-encoding']
            : [400, 'Bad Request'];
      void (reply as unknown as EnvelopeReply).code(status).send(failureBody(message));
    },
    clientErrorHandler: answerClientError,
    // Slow or silent clients are cut off (docs/configuration.md): headers within
    // DAYBOOK_HEADERS_TIMEOUT_MS, the whole request within DAYBOOK_REQUEST_TIMEOUT_MS (both 408 in
    // the envelope, answerClientError), and a connection idle between requests is closed.
    http: {
      headersTimeout: deps.config.headersTimeoutMs,
      requestTimeout: deps.config.requestTimeoutMs,
      // How often Node looks for requests over those limits: a tenth of the shorter one.
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(deps.config.headersTimeoutMs, deps.config.requestTimeoutMs) / 10,
      ),
    },
    requestTimeout: deps.config.requestTimeoutMs,
    keepAliveTimeout: deps.config.idleTimeoutMs,
    connectionTimeout: Math.max(deps.config.requestTimeoutMs, deps.config.idleTimeoutMs) * 2,
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;
  // Each connection holds a file descriptor: past the cap, new ones are closed at once.
  app.server.maxConnections = deps.config.maxConnections;

  // What Node itself answers before Fastify sees a request, in the envelope too: an `Expect`
  // other than 100-continue (417), and a CONNECT (no tunnels here: 405, then the socket closes).
  // A request without Host gets its 400 in the envelope, from the hook below.
  (app.server as { requireHostHeader?: boolean }).requireHostHeader = false;
  app.server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const body = JSON.stringify(failureBody('Expectation Failed'));
    response.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    response.end(body);
  });
  app.server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => {});
    socket.end(
      rawFailureResponse(405, 'Method Not Allowed', 'Method Not Allowed', { Allow: ROUTE_METHODS.join(', ') }),
    );
  });

  const { coercing, exact } = validatorCompilers();
  app.setValidatorCompiler((route) =>
    route.httpPart === 'body' ? exact(route) : finiteAfterCoercion(coercing(route), route.schema),
  );

  // JSON only: Fastify's default text/plain parser would let other content types through.
  app.removeAllContentTypeParsers();
  // Empty bodies count as `{}`; anything unparsable is the envelope's "Malformed JSON body".
  // A body refused by a parser was read whole: its answer keeps the connection open (requests
  // pipelined behind it are answered), where an error handed to Fastify from a parser closes it.
  // The refusal travels as the body and is thrown before validation (the preValidation hook below).
  const refuse = (done: (err: Error | null, body?: unknown) => void, error: ApiError) =>
    done(null, new BodyRefusal(error));
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    // An unknown path is a 404 whatever its body holds.
    if (request.is404) return done(null, undefined);
    if (isEncoded(request.headers)) {
      return (body as Buffer).length === 0
        ? done(null, undefined)
        : refuse(done, new ApiError(415, UNSUPPORTED_ENCODING));
    }
    if ((body as Buffer).length === 0) return done(null, undefined);
    // JSON is UTF-8 (RFC 8259): a body in another charset, or bytes that are not UTF-8, would
    // be read with U+FFFD in place of what was sent and stored changed.
    if (!isUtf8Charset(request.headers['content-type'])) return refuse(done, new ApiError(415, UNSUPPORTED_CHARSET));
    let text: string;
    try {
      text = UTF8.decode(body as Buffer);
    } catch {
      return refuse(done, new ApiError(400, 'Malformed JSON body'));
    }
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return refuse(done, new ApiError(400, 'Malformed JSON body'));
    }
    const unstorable = mayHoldUnstorableText(text) ? unstorableText(parsed) : null;
    if (unstorable !== null)
      return refuse(done, new ApiError(400, `${shown(unstorable.field || 'body')} ${unstorable.rule}`));
    done(null, parsed);
  });
  // Any other media type is refused once its body turns out not to be empty: an empty body is
  // `{}` whatever type a client labels it with (curl -d '', many HTTP libraries' empty POSTs).
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    if (request.is404 || (body as Buffer).length === 0) return done(null, undefined);
    refuse(done, new ApiError(415, isEncoded(request.headers) ? UNSUPPORTED_ENCODING : UNSUPPORTED_MEDIA_TYPE));
  });

  const knownPaths = FindMyWay({ maxParamLength: MAX_PARAM_LENGTH });
  // Which methods each path serves: a route that matched but found nothing to serve (a missing
  // documentation asset) is a 404, not a 405.
  const servedRoutes = FindMyWay({ maxParamLength: MAX_PARAM_LENGTH });
  app.addHook('onRoute', (route) => {
    // CORS preflights (OPTIONS on any path, when DAYBOOK_CORS_ORIGINS is set) make no path known.
    if (route.url === '*' || route.url === '/*') return;
    if (!knownPaths.find('GET', route.url)) knownPaths.on('GET', route.url, () => {});
    for (const method of [route.method].flat().map((m) => m.toUpperCase() as 'GET')) {
      if (!servedRoutes.find(method, route.url)) servedRoutes.on(method, route.url, () => {});
    }
  });

  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '/';
    if (knownPaths.find('GET', path) && !servedRoutes.find(request.method as 'GET', path)) {
      // RFC 9110: a 405 names the methods the path does serve.
      const allowed = ROUTE_METHODS.filter((method) => servedRoutes.find(method, path));
      reply.code(405).header('allow', allowed.join(', ')).send(failureBody('Method Not Allowed'));
    } else {
      reply.code(404).send(failureBody('Not Found'));
    }
  };
  app.setNotFoundHandler(notFound);

  // One line when the database stops answering, one when it answers again.
  const stopTelling = deps.storage.health.onChange((available, reason) => {
    if (available) app.log.info('database available again');
    else app.log.warn({ reason }, 'database unavailable: requests are answered 503 until it answers again');
  });
  app.addHook('onClose', async () => {
    stopTelling();
  });

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string; validation?: unknown }, request, reply) => {
    // Refused before its body has all arrived (over 1 MiB): the client may still be sending.
    drainBeforeClosing(request.raw, reply.raw);
    // Fastify reads the body of an unknown path or method before its not-found handler runs;
    // what the body is (too large, a bad Content-Length) comes after 404 and 405 (docs/api.md, "Every request").
    if (request.is404) return notFound(request, reply);
    if (error instanceof ApiError) {
      return reply.code(error.status).send(failureBody(error.message, error.extra));
    }
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return reply.code(413).send(failureBody('Request body too large'));
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return reply.code(415).send(failureBody(UNSUPPORTED_MEDIA_TYPE));
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return reply.code(400).send(failureBody('Invalid Content-Length'));
    }
    if (isDatabaseBusy(error)) {
      // SQLite: another process (an import) holds the write lock for longer than a write waits.
      request.log.warn({ code: error.code }, 'database busy');
      return reply.code(503).header('retry-after', '5').send(failureBody(DATABASE_BUSY));
    }
    if (isStatementCancelled(error)) {
      // Not an outage: the database answers, but not within the statement timeout. One line
      // without a stack, so that an operator sees statements being cut.
      request.log.warn({ reason: error.message }, 'database statement cancelled (DAYBOOK_PG_STATEMENT_TIMEOUT_MS)');
      return reply
        .code(503)
        .header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS))
        .send(failureBody(DATABASE_UNAVAILABLE));
    }
    if (deps.storage.health.suspect(error)) {
      // PostgreSQL restarting, failing over, or a connection cut: the outage is logged once when
      // it starts and once when it ends (the health listener above), not per request.
      request.log.debug({ code: error.code, reason: error.message }, 'database unavailable');
      return reply
        .code(503)
        .header('retry-after', String(DATABASE_RETRY_AFTER_SECONDS))
        .send(failureBody(DATABASE_UNAVAILABLE));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.code(status).send(failureBody(error.message));
    }
    if (error.code === 'ERR_STREAM_PREMATURE_CLOSE' && (reply.raw.destroyed || request.raw.destroyed)) {
      // The client hung up before its answer (a streamed report body) was sent: nothing failed.
      request.log.info('client closed the connection before the answer was sent');
    } else {
      request.log.error({ err: error }, 'request failed');
    }
    return reply.code(500).send(failureBody('Internal Server Error'));
  });

  // A request without a body is handled as `{}` on every route (after authentication, which
  // runs on onRequest); a JSON `null` body is left to the schema and answered 400.
  // Path and query parameters may not hold a NUL either (see unstorableText above). One
  // callback-style hook for both: it runs on every request, and each async hook costs a promise.
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body instanceof BodyRefusal) return done(request.body.error);
    if (!request.is404) {
      const nul = parameterHoldingNul(request.params) ?? parameterHoldingNul(request.query);
      if (nul !== null) return done(new ApiError(400, nulMessage(nul)));
      // HTTP/1.1 requires Host (RFC 9112 §3.2); Node's own check would answer with no body.
      if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
        return done(new ApiError(400, 'Bad Request: missing Host header'));
      }
    }
    if (request.body === undefined && request.method === 'POST') request.body = {};
    done();
  });

  if (deps.config.corsOrigins.length > 0) {
    // Browsers on the listed origins may call the API with a key (docs/configuration.md).
    await app.register(cors, {
      origin: deps.config.corsOrigins.includes('*') ? '*' : deps.config.corsOrigins,
      methods: ['GET', 'POST', 'DELETE'],
      allowedHeaders: ['x-api-key', 'content-type', 'authorization', 'mcp-protocol-version'],
      exposedHeaders: ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'],
      maxAge: 600,
    });
  }
  if (deps.metrics) registerMetrics(app, deps.metrics, deps.config.metricsToken);
  registerAuth(app, deps);
  // Before the routes, so that the OpenAPI document sees every one of them.
  await registerOpenApi(app, deps.now);

  const recorder = createRecorder(deps.storage, deps.config, deps.now);
  // After the requests have ended (Fastify closes the server first), so no write is cut short.
  app.addHook('onClose', () => recorder.close());
  // An in-memory SQLite database exists only on this thread's connection.
  const readers =
    deps.readers !== undefined
      ? deps.readers
      : deps.config.reportWorkers > 0 && !deps.storage.inMemory
        ? new ReadWorkers(
            { databaseUrl: deps.config.databaseUrl, statementTimeoutMs: deps.config.pgStatementTimeoutMs },
            deps.config.reportWorkers,
            { smallThreads: deps.storage.dialect === 'sqlite' ? smallReadThreads(deps.config.reportWorkers) : 0 },
          )
        : null;
  // The write thread and the read workers are started before the app serves, side by side:
  // loading their modules takes the cores for a few hundred ms (a second or two on a loaded
  // machine), which the first requests should not wait behind. A thread that cannot start is
  // logged: a write then starts another and fails (500) if that one cannot start either; small
  // reports and searches stay in place and large reports fail (500), as with a broken thread.
  app.addHook('onReady', async () => {
    await Promise.all([
      recorder.whenStarted().catch((err: Error) => app.log.warn({ err }, 'write thread did not start')),
      readers?.whenStarted().catch((err: Error) => app.log.warn({ err }, 'read workers did not start')),
    ]);
  });
  if (readers) app.addHook('onClose', () => readers.close());
  const routeDeps: RouteDeps = { ...deps, recorder, readers };
  for (const file of (await readdir(routesDir)).filter((f) => f.endsWith('.ts')).sort()) {
    const module = (await import(pathToFileURL(join(routesDir, file)).href)) as { default: RouteModule };
    await module.default(app, routeDeps);
  }
  return app;
}
