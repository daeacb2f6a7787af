/**
 * Whatever text reaches /search (any Unicode, FTS and SQL operator characters, lone surrogates,
 * 100-character inputs, wrong types), the answer is a 200 or a 400 in the envelope, never a 500.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { type TestApp, call, createTestApp, fixturesDir, forEachDialect } from '../helper.ts';

const RANKING = join(fixturesDir, 'search-ranking.json');
const RITA = 'dbk_search_rank_0123456789abcdef0';
const RUNS = Number(process.env.DAYBOOK_FUZZ_RUNS ?? 150);

const OPERATORS = [
  '"',
  '*',
  '-',
  ':',
  '(',
  ')',
  '^',
  '+',
  '~',
  '{',
  '}',
  '[',
  ']',
  '\\',
  "'",
  '%',
  '_',
  ';',
  '\0',
  '|',
  '&',
  '!',
  '<->',
  ':*',
];
const KEYWORDS = [
  'NEAR',
  'AND',
  'OR',
  'NOT',
  'NEAR(',
  'title:',
  'scope :',
  'rate',
  'limiter',
  'kube',
  'café',
  'ΟΔΟΣ',
  'select',
  '--',
  '/*',
];

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
const piece = fc.oneof(
  fc.constantFrom(...OPERATORS, ...KEYWORDS, ' ', '  '),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  loneSurrogate,
);
/** Up to 100 characters, mixing operators, words the fixture holds and arbitrary Unicode. */
const text = fc.array(piece, { maxLength: 30 }).map((pieces) => [...pieces.join('')].slice(0, 100).join(''));
const hundred = fc.string({ unit: 'binary', minLength: 100, maxLength: 100 });
/** Texts a search takes: a NUL or a lone surrogate is refused in every request field (test/http/edges.test.ts). */
const queryText = fc
  .oneof(text, hundred)
  .map((q) => q.replaceAll('\0', ' ').toWellFormed())
  .filter((q) => q.trim() !== '');

const anyValue = fc.oneof(fc.anything(), fc.string(), fc.integer({ min: -5, max: 60 }), fc.double(), fc.constant(null));

forEachDialect('search fuzz', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { dataset: RANKING });
  });
  after(() => t.close());

  test('any non-blank query of up to 100 characters gets a 200 with sane results', async () => {
    await fc.assert(
      fc.asyncProperty(
        queryText,
        fc.option(
          text.map((c) => c.replaceAll('\0', ' ').toWellFormed()),
          { nil: undefined },
        ),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 30 }),
        async (query, context, limit, days) => {
          const res = await call(t.app, 'POST', '/search', { key: RITA, body: { query, context, limit, days } });
          assert.equal(res.status, 200, `${JSON.stringify(query)} → ${res.body}`);
          assert.equal(res.json.success, true);
          assert.ok(res.json.results.length <= limit);
          assert.ok(res.json.totalMatches >= res.json.results.length);
          for (const r of res.json.results) {
            assert.ok([...r.snippet].length <= 200 && r.snippet.isWellFormed());
            assert.ok(!r.id.startsWith('twin_'));
          }
          assert.match(res.json.message, /^(Found \d+ match(es)? for|No matches for) /);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('any body at all gets a 200 or a 400 in the envelope', async () => {
    const body = fc.record(
      {
        query: fc.oneof(
          queryText,
          fc.string({ maxLength: 120 }),
          hundred.map((s) => `${s}x`),
          anyValue,
        ),
        context: fc.oneof(text, anyValue),
        // NULs (operators above) reach this property: a 400 like any other bad value.
        limit: anyValue,
        days: anyValue,
        sources: fc.oneof(
          fc.array(fc.constantFrom('tasks', 'activity', 'screenshots', 'emails', '', 'TASKS'), { maxLength: 4 }),
          anyValue,
        ),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await call(t.app, 'POST', '/search', { key: RITA, body: b });
        assert.ok(res.status === 200 || res.status === 400, `${res.status} for ${JSON.stringify(b)}: ${res.body}`);
        assert.equal(res.json.success, res.status === 200);
        if (res.status === 400) {
          assert.deepEqual(Object.keys(res.json).sort(), ['error', 'message', 'success']);
          assert.equal(typeof res.json.error, 'string');
          assert.equal(res.json.message, res.json.error);
        }
      }),
      { numRuns: RUNS },
    );
  });
});
