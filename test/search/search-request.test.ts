/** POST /search request and response contract (api.md `/search`, docs/api.md, "Every request"). */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type TestApp, call, createTestApp, fixturesDir, forEachDialect } from '../helper.ts';

const RANKING = join(fixturesDir, 'search-ranking.json');
const RITA = 'dbk_search_rank_0123456789abcdef0';
const RITA_NO_SEARCH = 'dbk_search_rank_user_0123456789abc';

forEachDialect('search request', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { dataset: RANKING });
  });
  after(() => t.close());

  const search = (body: unknown, key = RITA) => call(t.app, 'POST', '/search', { key, body });

  test('the response echoes the request with defaults: context null, 7 days, both sources', async () => {
    const res = await search({ query: 'kubernetes' });
    assert.equal(res.status, 200);
    const { results, ...rest } = res.json;
    assert.deepEqual(rest, {
      success: true,
      query: 'kubernetes',
      context: null,
      days: 7,
      sources: ['tasks', 'activity'],
      totalMatches: 3,
      message: 'Found 3 matches for "kubernetes" in the last 7 days.',
    });
    assert.equal(results.length, 3);
  });

  test('a task result: title, createdAt, minutes of all its activities, projectId, visible', async () => {
    const res = await search({ query: 'kubernetes upgrade', sources: ['tasks'] });
    assert.deepEqual(res.json.results, [
      {
        source: 'tasks',
        id: 't_kube',
        timestamp: '2026-11-16T09:00:00.000Z',
        title: 'Kubernetes upgrade',
        snippet: 'Kubernetes upgrade',
        matchedFields: ['title'],
        metadata: { minutes: 75, projectId: 'p_infra', visible: true },
      },
    ]);
  });

  test('a hidden task: visible false, projectId null', async () => {
    const res = await search({ query: 'salary review', sources: ['tasks'] });
    assert.deepEqual(res.json.results[0].metadata, { minutes: 25, projectId: null, visible: false });
  });

  test('an activity result: headline, start, taskId and category', async () => {
    const res = await search({ query: 'upgrade control', sources: ['activity'] });
    assert.deepEqual(res.json.results, [
      {
        source: 'activity',
        id: 'a_kube_work_2',
        timestamp: '2026-11-16T11:00:00.000Z',
        title: 'Upgrade control plane',
        snippet: 'Upgrade control plane',
        matchedFields: ['headline'],
        metadata: { taskId: 't_kube', categoryName: 'Development', categoryEmoji: '💻' },
      },
    ]);
  });

  test('activity without task or category, and a category without emoji: nulls', async () => {
    const plain = await search({ query: 'cafe order' });
    assert.deepEqual(plain.json.results[0].metadata, { taskId: null, categoryName: null, categoryEmoji: null });
    const meeting = await search({ query: 'monthly invoice acme' });
    assert.deepEqual(meeting.json.results[0].metadata, { taskId: null, categoryName: 'Meetings', categoryEmoji: null });
  });

  test('the snippet comes from the matching description when only it matches', async () => {
    const res = await search({ query: 'tuned' });
    assert.equal(res.json.results[0].snippet, 'Tuned the rate limiter');
    assert.deepEqual(res.json.results[0].matchedFields, ['description']);
  });

  test('a long field is cut to at most 200 characters around the match, with … where cut', async () => {
    const res = await search({ query: 'zeppelin' });
    const { snippet } = res.json.results[0];
    assert.ok(snippet.length <= 200, `${snippet.length} characters`);
    assert.ok(snippet.startsWith('…') && snippet.endsWith('…'), snippet);
    assert.match(snippet, /The zeppelin era began/);
    assert.ok(!snippet.startsWith('…Background'), 'text before the match was left out');
  });

  test('a match near the end of a long field keeps the end in view', async () => {
    const res = await search({ query: 'remote regions roads' });
    const { snippet } = res.json.results[0];
    assert.ok(snippet.length <= 200);
    assert.ok(snippet.startsWith('…'));
    assert.ok(snippet.endsWith('remote regions without roads.'), snippet);
  });

  test('message: singular match and day, and the no-match sentence', async () => {
    const one = await search({ query: 'boundary', days: 1 });
    assert.equal(one.json.message, 'Found 1 match for "boundary" in the last 1 day.');
    assert.equal(one.json.totalMatches, 1);
    assert.equal(
      (await search({ query: 'nothing here', days: 30 })).json.message,
      'No matches for "nothing here" in the last 30 days.',
    );
  });

  test('the query is echoed and quoted as sent', async () => {
    const res = await search({ query: '"Rate limiter"', context: 'gateway' });
    assert.equal(res.json.query, '"Rate limiter"');
    assert.equal(res.json.context, 'gateway');
    assert.equal(res.json.message, 'Found 2 matches for ""Rate limiter"" in the last 7 days.');
  });

  test('a query of punctuation only is valid and finds nothing', async () => {
    const res = await search({ query: '*** -- ()' });
    assert.equal(res.status, 200);
    assert.equal(res.json.totalMatches, 0);
    assert.deepEqual(res.json.results, []);
  });

  test('null for context, limit, days and sources is the same as leaving them out', async () => {
    const res = await search({ query: 'kubernetes', context: null, limit: null, days: null, sources: null });
    const { results, ...rest } = res.json;
    assert.equal(res.status, 200);
    assert.deepEqual([rest.context, rest.days, rest.sources, rest.totalMatches], [null, 7, ['tasks', 'activity'], 3]);
    assert.deepEqual(results, (await search({ query: 'kubernetes' })).json.results);
  });

  test('sources are echoed without duplicates, the alias as activity', async () => {
    const res = await search({ query: 'kubernetes', sources: ['screenshots', 'activity', 'tasks'] });
    assert.deepEqual(res.json.sources, ['activity', 'tasks']);
    assert.equal(res.json.totalMatches, 3);
  });

  const invalid: [string, unknown, string][] = [
    ['empty query', { query: '' }, 'query must not be empty.'],
    ['whitespace-only query', { query: ' \t\n ' }, 'query must not be empty.'],
    [
      'query of Unicode whitespace (next line, ideographic space, BOM)',
      { query: '\u0085\u3000\uFEFF' },
      'query must not be empty.',
    ],
    ['missing query', { limit: 5 }, 'query must not be empty.'],
    ['empty body', undefined, 'query must not be empty.'],
    ['null query', { query: null }, 'query must not be empty.'],
    ['query not a string', { query: 42 }, 'query must be a string'],
    ['query over 100 characters', { query: 'a'.repeat(101) }, 'query must be at most 100 characters'],
    ['context over 100 characters', { query: 'a', context: 'b'.repeat(101) }, 'context must be at most 100 characters'],
    ['context not a string', { query: 'a', context: ['x'] }, 'context must be a string'],
    ['limit 0', { query: 'a', limit: 0 }, 'limit must be an integer between 1 and 50'],
    ['limit 51', { query: 'a', limit: 51 }, 'limit must be an integer between 1 and 50'],
    ['limit 2.5', { query: 'a', limit: 2.5 }, 'limit must be an integer between 1 and 50'],
    ['limit as text', { query: 'a', limit: '10' }, 'limit must be an integer between 1 and 50'],
    ['days 0', { query: 'a', days: 0 }, 'days must be an integer between 1 and 30'],
    ['days 31', { query: 'a', days: 31 }, 'days must be an integer between 1 and 30'],
    ['days 1.5', { query: 'a', days: 1.5 }, 'days must be an integer between 1 and 30'],
    ['unknown source', { query: 'a', sources: ['tasks', 'emails'] }, 'sources contains an invalid value: "emails"'],
    ['source not a string', { query: 'a', sources: [7] }, 'sources contains an invalid value: 7'],
    [
      'sources not an array',
      { query: 'a', sources: 'tasks' },
      'sources must be a non-empty array of "tasks" and "activity"',
    ],
    ['empty sources', { query: 'a', sources: [] }, 'sources must be a non-empty array of "tasks" and "activity"'],
    ['body not an object', [{ query: 'a' }], 'body must be a JSON object'],
  ];
  for (const [name, body, error] of invalid) {
    test(`400 ${name}: ${error}`, async () => {
      const res = await search(body);
      assert.deepEqual([res.status, res.json], [400, { success: false, error, message: error }]);
    });
  }

  test('100 characters is the limit, counted in characters (not UTF-16 units)', async () => {
    assert.equal((await search({ query: 'a'.repeat(100), context: 'b'.repeat(100) })).status, 200);
    assert.equal((await search({ query: '😀'.repeat(100) })).status, 200);
  });

  test('limits at their edges are accepted', async () => {
    assert.equal((await search({ query: 'a', limit: 1, days: 1 })).status, 200);
    assert.equal((await search({ query: 'a', limit: 50, days: 30 })).status, 200);
  });

  test('unknown body fields are ignored', async () => {
    const res = await search({ query: 'tuned', page: 2, fuzzy: true });
    assert.equal(res.status, 200);
    assert.equal(res.json.totalMatches, 1);
  });

  test('works on the free plan; needs search:read', async () => {
    assert.equal((await search({ query: 'a' })).status, 200);
    const res = await search({ query: 'a' }, RITA_NO_SEARCH);
    assert.deepEqual(
      [res.status, res.json],
      [
        403,
        {
          success: false,
          error: 'API key missing required scope: search:read',
          message: 'API key missing required scope: search:read',
        },
      ],
    );
  });

  test('401 before 400, 405 for other methods', async () => {
    const noKey = await call(t.app, 'POST', '/search', { body: { query: '' } });
    assert.deepEqual([noKey.status, noKey.json.error], [401, 'Missing API key']);
    const get = await call(t.app, 'GET', '/search', { key: RITA });
    assert.deepEqual(
      [get.status, get.json],
      [405, { success: false, error: 'Method Not Allowed', message: 'Method Not Allowed' }],
    );
  });
});
