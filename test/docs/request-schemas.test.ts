/**
 * The request schemas in the OpenAPI document are the endpoints' whole contract for their
 * bodies: a body the published schema refuses gets a 400, and a body it accepts gets no 400,
 * but for the rules docs/api.md keeps outside it (a /search query of white space).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { isBlank } from '../../src/lib/blank.ts';
import { type TestApp, call, createTestApp, fixturesDir, forEachDialect } from '../helper.ts';

const RUNS = Number(process.env.DAYBOOK_FUZZ_RUNS ?? 150);
const RITA = 'dbk_search_rank_0123456789abcdef0';
const ZOE = 'dbk_summaries_zoe_0123456789abcdef';

/** Values a field may be sent, right and wrong, with the texts these endpoints know. */
const text = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u3000',
    'rate',
    'x'.repeat(101),
    'tasks',
    'activity',
    'screenshots',
    'emails',
    'day',
    'week',
    'decade',
    'html',
    'slack',
    'pdf',
    '2026-11-18',
    '2026-02-30',
  ),
  fc.string({ maxLength: 4 }).map((s) => s.replaceAll('\0', '')),
);
const scalar = fc.oneof(
  text,
  fc.integer({ min: -1, max: 60 }),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
);
const value = fc.oneof(
  { weight: 4, arbitrary: scalar },
  fc.array(scalar, { maxLength: 3 }),
  fc.object({ maxDepth: 1 }),
);
/** Mostly right bodies with a wrong field or two, sometimes no object at all. */
const bodyOf = (fields: Record<string, unknown[]>) =>
  fc.oneof(
    {
      weight: 9,
      arbitrary: fc.record(
        Object.fromEntries(
          Object.entries(fields).map(([name, right]) => [
            name,
            fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...right) }, value),
          ]),
        ),
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: fc.oneof(text, fc.integer(), fc.array(scalar, { maxLength: 2 })) },
  );

const ENDPOINTS: { path: string; key: string; fields: Record<string, unknown[]>; exempt: (body: any) => boolean }[] = [
  {
    path: '/search',
    key: RITA,
    fields: {
      query: ['rate'],
      context: ['limiter', null],
      limit: [5, null],
      days: [7, null],
      sources: [['tasks'], ['screenshots', 'tasks'], null],
    },
    exempt: (body) => typeof body?.query === 'string' && isBlank(body.query),
  },
  {
    path: '/message',
    key: ZOE,
    fields: { date: ['2026-11-18', null], level: ['day', 'week', null], format: ['text', 'slack', null] },
    exempt: () => false,
  },
];

forEachDialect('published request schemas', (dialect) => {
  let search: TestApp;
  let message: TestApp;
  let document: any;
  before(async () => {
    search = await createTestApp(dialect, { dataset: join(fixturesDir, 'search-ranking.json') });
    message = await createTestApp(dialect, { dataset: join(fixturesDir, 'summaries.json') });
    document = (await call(search.app, 'GET', '/openapi.json')).json;
  });
  after(async () => {
    await search.close();
    await message.close();
  });

  for (const endpoint of ENDPOINTS) {
    test(`POST ${endpoint.path}: a 400 exactly when the published schema refuses the body`, async () => {
      const ajv = new Ajv2020({ strict: false });
      addFormats.default(ajv);
      const accepts = ajv.compile(document.paths[endpoint.path].post.requestBody.content['application/json'].schema);
      const t = endpoint.path === '/search' ? search : message;
      await fc.assert(
        fc.asyncProperty(bodyOf(endpoint.fields), async (body) => {
          const payload = JSON.stringify(body);
          const res = await call(t.app, 'POST', endpoint.path, {
            key: endpoint.key,
            body: payload,
            headers: { 'content-type': 'application/json' },
          });
          const sent = JSON.parse(payload);
          const refused = !accepts(sent);
          if (endpoint.exempt(sent) && !refused) return;
          assert.equal(res.status === 400, refused, `${JSON.stringify(body)} → ${res.status} ${res.body}`);
        }),
        { numRuns: RUNS },
      );
    });
  }
});
