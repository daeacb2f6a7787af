/**
 * A schema-driven fuzz of every operation that /openapi.json documents (issue 21, "Tests and
 * benchmarks that must exist"): requests built from each operation's own request schema with
 * fast-check, values that fit it mixed with values that break it (wrong types, huge strings, deep
 * nesting, NUL, lone surrogates, extra fields, missing required fields, raw bodies that are not
 * JSON at all), random path and query parameters, with a key of every scope, a weaker one, a
 * revoked one, a malformed one or none. For every answer: never a 5xx, a failure is always the
 * envelope `{success: false, error, message: error}` (a 429 with `retryAfterSec`), a success is
 * JSON, and every answer comes within REQUEST_TIMEOUT_MS (a hang fails the property).
 *
 * The budget is fixed: DAYBOOK_FUZZ_RUNS runs per operation (300 by default, about 20 s for both
 * databases together, within the minute this file is allowed; 100 in test:fast; the variable
 * sets the other property tests' runs too); DAYBOOK_FUZZ_SEED replays a failure.
 *
 * No operation is skipped. Where the data limits how deep requests reach: GET and POST /message
 * answer 404 at best, as the example dataset has no generated summaries (test/summaries covers
 * them); writes change the data as the runs go on (projects archived, tasks deleted), as a
 * client's would.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { DEFAULT_NOW, EXAMPLE, KEYS, type TestApp, createTestApp, forEachDialect } from '../helper.ts';
import { SCOPES } from '../../src/services/scopes.ts';

/** `npm run test:fast` (the edit loop) runs a fifth of the budget. */
const RUNS = Number(process.env.DAYBOOK_FUZZ_RUNS ?? (process.env.DAYBOOK_TEST_TIER === 'fast' ? 100 : 300));
const SEED = process.env.DAYBOOK_FUZZ_SEED === undefined ? undefined : Number(process.env.DAYBOOK_FUZZ_SEED);
const REQUEST_TIMEOUT_MS = 5_000;

/** A key of Alice's with every scope: the example dataset's keys lack `activity:write`. */
const FUZZ_KEY = 'dbk_fuzz_alice_every_scope_0123456789ab';

/** The JSON Schema keywords that /openapi.json's request schemas use. */
interface Schema {
  type?: string | string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  format?: unknown;
  pattern?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: unknown;
  maximum?: unknown;
  exclusiveMinimum?: unknown;
  exclusiveMaximum?: unknown;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  example?: unknown;
  examples?: unknown[];
}

interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Operation['parameters'];
        requestBody?: { required?: boolean; content?: Record<string, { schema: Schema; example?: unknown }> };
      }
    >
  >;
}
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface Operation {
  method: Method;
  path: string;
  parameters: { in: string; name: string; required?: boolean; schema?: Schema; example?: unknown }[];
  body?: { required: boolean; schema: Schema; example?: unknown };
  /** Answers in the key from `Authorization` too (the WakaTime-compatible routes). */
  wakatime: boolean;
}

// ---------------------------------------------------------------------------------------------
// Hostile values, for any place a value goes.

/** Ids the example dataset holds, so that some generated requests reach real rows. */
const KNOWN_IDS = [
  'p_api',
  'p_onb',
  'p_ops',
  'k_alice_0_0',
  'a_alice_0_0_0',
  'u_alice',
  'u_bob',
  't_eng',
  't_ops',
  'pf_bets',
  'c_focus',
  'Public API',
  'alice@example.com',
];
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => `a${String.fromCharCode(code)}b`);
const hugeString = fc.constantFrom(10_000, 100_000, 1_100_000).map((n) => 'x'.repeat(n));
const nasty = fc.constantFrom(
  '',
  ' ',
  '\0',
  'a\0b',
  '\u202e',
  '\ufeff',
  '%',
  '%00',
  '../../etc/passwd',
  "' or 1=1 --",
  '"; drop table projects; --',
  '<script>alert(1)</script>',
  '{{7*7}}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template injection attempt, as text.
  '${7*7}',
  '__proto__',
  'constructor',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '9999-99-99',
  '2026-02-30',
  '0000-00-00T00:00:00Z',
  'dbk_example_alice_all_0123456789abcdef',
  '😀'.repeat(200),
);
/** A value of any JSON type, or a hostile one, wherever a value goes. */
const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.anything({ maxDepth: 2 }) },
  { weight: 2, arbitrary: nasty },
  { weight: 2, arbitrary: loneSurrogate },
  { weight: 1, arbitrary: hugeString },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, -1e300, 1e300, 2 ** 53, -(2 ** 63), [], {}) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3000 }).map(nested) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
);

function nested(depth: number): unknown {
  let value: unknown = 'deep';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

// ---------------------------------------------------------------------------------------------
// Values that fit a JSON Schema (the subset /openapi.json uses), each node sometimes replaced by
// a hostile value when `mix` is on.

/** A calendar date: mostly one of the example dataset's week, so that some reach its data. */
function isoDate(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom('2026-11-16', '2026-11-18', '2026-11-20', '2026-11-22'),
    fc
      .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2040-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
  );
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 60, 400);
  const fits = (s: string) => s.length >= minLength && s.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY);
  const options: fc.Arbitrary<string>[] = [];
  if (schema.format === 'date') options.push(isoDate());
  else if (typeof schema.pattern === 'string') {
    let pattern: RegExp | undefined;
    try {
      pattern = new RegExp(schema.pattern);
    } catch {
      // Not a JavaScript pattern: the other options below stand in.
    }
    if (pattern) {
      options.push(fc.stringMatching(pattern).filter(fits));
      if (schema.pattern === '^[A-Za-z0-9_.:-]+$')
        options.push(fc.constantFrom(...KNOWN_IDS.filter((id) => pattern.test(id))));
    }
  } else {
    options.push(fc.string({ minLength, maxLength, unit: 'grapheme' }).filter(fits));
    options.push(fc.string({ minLength, maxLength }));
  }
  for (const example of [schema.example, ...(schema.examples ?? [])])
    if (typeof example === 'string') options.push(fc.constant(example));
  if (options.length === 0) options.push(fc.string({ minLength, maxLength }));
  return fc.oneof(...options);
}

function numberOf(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const bound = (value: unknown, fallback: number) => (typeof value === 'number' ? value : fallback);
  let min = bound(schema.minimum, integer ? -1_000_000 : -1e6);
  let max = bound(schema.maximum, integer ? 1_000_000 : 1e6);
  if (typeof schema.exclusiveMinimum === 'number') min = Math.max(min, schema.exclusiveMinimum);
  if (typeof schema.exclusiveMaximum === 'number') max = Math.min(max, schema.exclusiveMaximum);
  if (integer) {
    const lo = Math.max(Math.ceil(min), Number.MIN_SAFE_INTEGER);
    const hi = Math.min(Math.floor(max), Number.MAX_SAFE_INTEGER);
    return fc.oneof(fc.integer({ min: lo, max: hi }), fc.constantFrom(lo, hi));
  }
  return fc
    .double({ min, max, noNaN: true, noDefaultInfinity: true })
    .filter(
      (n) =>
        (typeof schema.exclusiveMinimum !== 'number' || n > schema.exclusiveMinimum) &&
        (typeof schema.exclusiveMaximum !== 'number' || n < schema.exclusiveMaximum),
    );
}

function fromSchema(schema: Schema | undefined, mix: boolean, depth = 0): fc.Arbitrary<unknown> {
  const valid = fitting(schema ?? {}, mix, depth);
  if (!mix) return valid;
  return fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: hostile });
}

function fitting(schema: Schema, mix: boolean, depth: number): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constant(null);
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) return fc.oneof(...branches.map((branch: Schema) => fromSchema(branch, mix, depth + 1)));
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if ('const' in schema) return fc.constant(schema.const);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return numberOf(schema, true);
    case 'number':
      return numberOf(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      // Lists are kept short for speed; their upper bounds are broken by the mutations below.
      const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? 4, 4));
      return fc.array(fromSchema(schema.items, mix, depth + 1), { minLength, maxLength });
    }
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {};
      const required: string[] = (schema.required ?? []).filter((name: string) => name in properties);
      const record = fc.record(
        Object.fromEntries(Object.entries(properties).map(([name, s]) => [name, fromSchema(s, mix, depth + 1)])),
        { requiredKeys: required },
      );
      if (!mix) return record;
      // Extra fields, and required ones left out.
      return fc
        .tuple(record, fc.dictionary(fc.string({ maxLength: 12 }), hostile, { maxKeys: 2 }), fc.boolean())
        .map(([value, extra, dropOne]) => {
          const out: Record<string, unknown> = { ...extra, ...value };
          if (dropOne && required.length > 0) delete out[required[0]!];
          return out;
        });
    }
    default:
      // No type (e.g. a heartbeat of the WakaTime routes, described in prose): anything.
      return fc.anything({ maxDepth: 2 });
  }
}

/** An example with each of its fields sometimes replaced: a realistic body, slightly wrong. */
function aroundExample(example: unknown): fc.Arbitrary<unknown> {
  const mutate = (value: unknown): fc.Arbitrary<unknown> => {
    if (Array.isArray(value)) return fc.tuple(...value.map(mutate)).map((items) => items);
    if (value && typeof value === 'object')
      return fc.record(Object.fromEntries(Object.entries(value).map(([name, v]) => [name, mutate(v)])), {
        requiredKeys: [],
      });
    return fc.oneof({ weight: 4, arbitrary: fc.constant(value) }, { weight: 1, arbitrary: hostile });
  };
  return fc.oneof(fc.constant(example), mutate(example));
}

// ---------------------------------------------------------------------------------------------
// Requests.

const pathValue = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...KNOWN_IDS) },
  { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }) },
  { weight: 1, arbitrary: nasty.filter((s) => s !== '') },
  { weight: 1, arbitrary: fc.constantFrom('x'.repeat(129), 'x'.repeat(5000)) },
);

/** A string to put in a URL: lone surrogates cannot be percent-encoded, so they go in raw as %ED%A0%80. */
function encode(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return [...value].map((c) => (c.isWellFormed() ? encodeURIComponent(c) : '%ED%A0%80')).join('');
  }
}

/** Mostly the key of every scope, so that most requests get past authentication. */
/** `arbitrary` one time in five, else `otherwise`. */
function sometimes<T, U>(arbitrary: fc.Arbitrary<T>, otherwise: U): fc.Arbitrary<T | U> {
  return fc.oneof({ weight: 4, arbitrary: fc.constant(otherwise) }, { weight: 1, arbitrary });
}

const keyChoice = fc.oneof(
  { weight: 10, arbitrary: fc.constant('every-scope' as const) },
  { weight: 1, arbitrary: fc.constantFrom('read-only', 'revoked', 'malformed', 'none', 'twice') },
);

type RawBody = { raw: string; contentType: string };

const rawBody: fc.Arbitrary<RawBody> = fc.oneof(
  fc.record({
    raw: fc.constantFrom('{', '{"a":', '[1,2', 'nul', '{"a":1}{', "{'a':1}", '\u0000', '{"a":"\\ud800"}', '"\\x"'),
    contentType: fc.constant('application/json'),
  }),
  fc.record({ raw: fc.constantFrom('[', '{"a":'), contentType: fc.constant('application/json') }).map((r) => ({
    ...r,
    raw: r.raw.repeat(20_000),
  })),
  fc.record({
    raw: fc.string({ unit: 'binary', maxLength: 100 }),
    contentType: fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', ''),
  }),
  fc.record({
    raw: fc.constantFrom('{"a":1}', '[]', 'a=1&b=2'),
    contentType: fc.constantFrom(
      'text/plain',
      'application/xml',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
    ),
  }),
);

interface FuzzRequest {
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

function requestsFor(op: Operation): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const path = fc
    .record(Object.fromEntries(pathParams.map((p) => [p.name, pathValue])) as Record<string, fc.Arbitrary<string>>)
    .map((values) => op.path.replace(/\{(\w+)\}/g, (_, name: string) => encode(values[name]!)));
  const queryValue = (p: Operation['parameters'][number]) =>
    fc.oneof(
      { weight: 8, arbitrary: fromSchema(p.schema, false).map(String) },
      { weight: 1, arbitrary: p.example === undefined ? fc.string() : fc.constant(String(p.example)) },
      { weight: 1, arbitrary: hostile.map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))) },
    );
  const query = fc
    .tuple(
      fc.record(Object.fromEntries(queryParams.map((p) => [p.name, queryValue(p)])), { requiredKeys: [] }),
      sometimes(fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 }), { maxKeys: 2 }), {}),
      // The same parameter twice (?a=1&a=2), which some parsers turn into a list.
      sometimes(fc.constantFrom(...(queryParams.length ? queryParams.map((p) => p.name) : ['x'])), undefined),
    )
    .map(([known, extra, twice]) => {
      const pairs = [...Object.entries(extra), ...Object.entries(known)].map(
        ([k, v]) => `${encode(k)}=${encode(String(v))}`,
      );
      if (twice) pairs.push(`${twice}=a`, `${twice}=b`);
      return pairs.length ? `?${pairs.join('&')}` : '';
    });
  const body: fc.Arbitrary<string | RawBody | undefined> = op.body
    ? fc.oneof(
        { weight: 4, arbitrary: fromSchema(op.body.schema, false).map((v) => JSON.stringify(v)) },
        { weight: 6, arbitrary: fromSchema(op.body.schema, true).map((v) => JSON.stringify(v)) },
        ...(op.body.example === undefined
          ? []
          : [{ weight: 3, arbitrary: aroundExample(op.body.example).map((v) => JSON.stringify(v)) }]),
        { weight: 1, arbitrary: hostile.map((v) => JSON.stringify(v) ?? 'null') },
        { weight: 1, arbitrary: rawBody },
        { weight: 1, arbitrary: fc.constant(undefined) },
      )
    : fc.oneof(
        { weight: 5, arbitrary: fc.constant(undefined) },
        {
          weight: 1,
          arbitrary: fc.oneof(
            hostile.map((v) => JSON.stringify(v) ?? 'null'),
            rawBody,
          ),
        },
      );
  return fc
    .tuple(path, query, body, keyChoice, fc.constantFrom('x-api-key', 'basic', 'bearer'))
    .map(([p, q, b, keyKind, carrier]): FuzzRequest => {
      const headers: Record<string, string> = {};
      const key = {
        'every-scope': FUZZ_KEY,
        'read-only': KEYS.aliceReadOnly,
        revoked: KEYS.daveRevoked,
        malformed: 'dbk_\u00e9\u0000',
        none: undefined,
        twice: FUZZ_KEY,
      }[keyKind];
      if (key !== undefined) {
        if (op.wakatime && carrier === 'basic') headers.authorization = `Basic ${Buffer.from(key).toString('base64')}`;
        else if (op.wakatime && carrier === 'bearer') headers.authorization = `Bearer ${key}`;
        else headers['x-api-key'] = key.replaceAll('\0', '');
        if (keyKind === 'twice') headers.authorization = 'Basic !!!not-base64';
      }
      let payload: string | undefined;
      if (typeof b === 'string') {
        payload = b;
        headers['content-type'] = 'application/json';
      } else if (b) {
        payload = b.raw;
        if (b.contentType) headers['content-type'] = b.contentType;
      }
      return { url: `${p}${q}`, headers, ...(payload === undefined ? {} : { payload }) };
    });
}

function operationsOf(spec: OpenApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(spec.paths))
    for (const [method, op] of Object.entries(item)) {
      const media = op.requestBody?.content?.['application/json'];
      ops.push({
        method: method.toUpperCase() as Method,
        path,
        parameters: op.parameters ?? [],
        ...(media
          ? { body: { required: Boolean(op.requestBody?.required), schema: media.schema, example: media.example } }
          : {}),
        wakatime: path.startsWith('/api/'),
      });
    }
  return ops;
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms: ${what}`)),
        REQUEST_TIMEOUT_MS,
      );
    }),
  ]);
}

/** Short enough to print: a huge body or URL is cut. */
function describeRequest(method: string, request: FuzzRequest): string {
  const cut = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}… (${s.length} characters)` : s);
  return `${method} ${cut(request.url)} ${JSON.stringify(request.headers)} ${cut(request.payload ?? '')}`;
}

forEachDialect('fuzz of every documented operation', (dialect) => {
  let t: TestApp;
  let dir: string;
  let operations: Operation[];

  before(async () => {
    // The example dataset, with a key of Alice's that has every scope.
    const dataset = JSON.parse(await readFile(EXAMPLE, 'utf8'));
    dataset.apiKeys.push({ userId: 'u_alice', name: 'fuzz', key: FUZZ_KEY, scopes: [...SCOPES] });
    dir = await mkdtemp(join(tmpdir(), 'daybook-fuzz-'));
    await writeFile(join(dir, 'dataset.json'), JSON.stringify(dataset));
    t = await createTestApp(dialect, { dataset: join(dir, 'dataset.json') });
    const spec = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(spec.statusCode, 200);
    operations = operationsOf(spec.json());
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('the document lists the operations this fuzz is meant to reach', () => {
    const listed = new Set(operations.map((op) => `${op.method} ${op.path}`));
    for (const expected of [
      'POST /activities',
      'POST /projects',
      'GET /message',
      'POST /report',
      'POST /api/v1/users/current/heartbeats.bulk',
      'POST /api/compat/wakatime/v1/users/current/heartbeats',
      'GET /api/compat/wakatime/v1/users/current/statusbar/today',
    ])
      assert.ok(listed.has(expected), `${expected} is not in /openapi.json`);
  });

  // Found by this fuzz: a task's `start` near Date's limit (8,640,000,000,000,000 ms, which the
  // schema took) made its local date in Alice's zone (east of UTC) past that limit, and POST
  // /tasks answered 500. The schema now ends at 9999-12-31T23:59:59.999Z, as the ISO form does.
  test('regression: a start at the end of time is a 400, not a 500', async () => {
    for (const start of [8_640_000_000_000_000, 253_402_300_800_000]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/tasks',
        headers: { 'x-api-key': FUZZ_KEY },
        payload: { title: 'U', minutes: 7, start },
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().error, 'start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds');
    }
  });

  // Found by this fuzz: a heartbeat's `cursorpos` (or `lines`, `lineno`) beyond 32 bits was
  // refused by PostgreSQL's integer column, and the whole list answered 500. It is now that
  // heartbeat's own 400, as any other bad field.
  test('regression: a heartbeat integer beyond 32 bits is its own 400, not a 500', async () => {
    const time = DEFAULT_NOW / 1000 - 60;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users/current/heartbeats.bulk',
      headers: { authorization: `Bearer ${FUZZ_KEY}` },
      payload: [
        { entity: 'a.ts', time, cursorpos: -4_905_219_797_266_881 },
        { entity: 'a.ts', time, lines: 2 ** 31 },
        { entity: 'a.ts', time, lineno: 2 ** 31 - 1 },
      ],
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(
      res.json().responses.map(([entry, status]: [{ error?: string }, number]) => [status, entry.error ?? 'ok']),
      [
        [400, 'cursorpos must be an integer from -2147483648 to 2147483647, or null'],
        [400, 'lines must be an integer from -2147483648 to 2147483647, or null'],
        [201, 'ok'],
      ],
    );
  });

  test('every operation: never a 5xx, failures in the envelope, never a hang', async (s) => {
    // Every documented operation is fuzzed: none is skipped.
    for (const op of operations) {
      await s.test(`${op.method} ${op.path}`, async () => {
        await fc.assert(
          fc.asyncProperty(requestsFor(op), async (request) => {
            const what = describeRequest(op.method, request);
            const res = await withTimeout(
              t.app.inject({ method: op.method, url: request.url, headers: request.headers, payload: request.payload }),
              what,
            );
            // app.inject can answer through microtasks alone; what Node leaves for the event loop's
            // next turn (setImmediate) then piles up, run after run (gigabytes over 100,000 runs), and
            // the timeout's timer could never fire. A turn of the loop after each request lets both run.
            await new Promise((resolve) => setImmediate(resolve));
            assert.ok(res.statusCode < 500, `${res.statusCode} ${res.body.slice(0, 500)} ← ${what}`);
            assert.match(String(res.headers['content-type']), /^application\/json/, `not JSON ← ${what}`);
            const body = res.json();
            if (res.statusCode >= 400) {
              assert.equal(body.success, false, `${res.statusCode} ${res.body.slice(0, 500)} ← ${what}`);
              assert.equal(typeof body.error, 'string', `${res.body.slice(0, 500)} ← ${what}`);
              assert.equal(body.message, body.error, `${res.body.slice(0, 500)} ← ${what}`);
              if (res.statusCode === 429) assert.equal(typeof body.retryAfterSec, 'number');
            } else if (op.wakatime && op.method === 'POST') {
              // The WakaTime-compatible answers: 201 with `data`, or a list of `responses`.
              assert.equal(res.statusCode, 201, `${res.body.slice(0, 500)} ← ${what}`);
              assert.ok('data' in body || Array.isArray(body.responses), `${res.body.slice(0, 500)} ← ${what}`);
            } else {
              assert.ok(body !== null && typeof body === 'object', `${res.body.slice(0, 500)} ← ${what}`);
            }
          }),
          { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true },
        );
      });
    }
  });
});
