/**
 * Ranking and matching (docs/api.md, "POST /search") on a hand-made set of ~50 tasks and activities
 * (test/fixtures/search-ranking.json). Each expected order is worked out by hand from the rules:
 * title/headline matches first, then the relevance score, then newest first.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type TestApp, call, createTestApp, fixturesDir, forEachDialect } from '../helper.ts';

const RANKING = join(fixturesDir, 'search-ranking.json');
const RITA = 'dbk_search_rank_0123456789abcdef0';

interface Case {
  rule: string;
  body: Record<string, unknown>;
  /** Result ids in order, all of them. */
  expected: string[];
}

const CASES: Case[] = [
  {
    rule: 'a title match ranks above description-only matches, even when older',
    body: { query: 'kubernetes' },
    expected: ['t_kube', 't_sync', 'a_kube_notes'],
  },
  {
    rule: 'equal title matches go newest first; the 30-day window adds the older workshop',
    body: { query: 'kubernetes', days: 30 },
    expected: ['t_kube', 'a_kube_old', 't_sync', 'a_kube_notes'],
  },
  {
    rule: 'words standing together as typed rank above the same words scattered',
    body: { query: 'rate limiter' },
    expected: ['a_rl_adjacent', 'a_rl_scattered', 'a_rl_desc'],
  },
  {
    rule: 'a quoted phrase must occur as consecutive words',
    body: { query: '"rate limiter"' },
    expected: ['a_rl_adjacent', 'a_rl_desc'],
  },
  {
    rule: 'identical matches without context: newest first',
    body: { query: 'invoice' },
    expected: ['a_inv_globex', 'a_inv_acme'],
  },
  {
    rule: 'context breaks the tie towards the record that mentions it',
    body: { query: 'invoice', context: 'acme' },
    expected: ['a_inv_acme', 'a_inv_globex'],
  },
  {
    rule: 'context never adds records: "Acme kickoff" does not match "invoice"',
    body: { query: 'invoice', context: 'acme kickoff' },
    expected: ['a_inv_acme', 'a_inv_globex'],
  },
  {
    rule: 'context words that no record holds change nothing',
    body: { query: 'invoice', context: 'initech' },
    expected: ['a_inv_globex', 'a_inv_acme'],
  },
  {
    rule: 'ties go newest first',
    body: { query: 'standup' },
    expected: ['a_standup_3', 'a_standup_2', 'a_standup_1'],
  },
  {
    rule: 'words match as prefixes ("plan" finds Planning and plane), shorter titles first',
    body: { query: 'plan' },
    expected: ['t_planning_poker', 't_plan_sprint', 'a_kube_work_2'],
  },
  {
    rule: 'no stemming: "planning" does not match "Plan"',
    body: { query: 'planning' },
    expected: ['t_planning_poker'],
  },
  { rule: 'a longer word is not a prefix: "plans"', body: { query: 'plans' }, expected: [] },
  { rule: 'every word is required', body: { query: 'kubernetes invoice' }, expected: [] },
  { rule: 'diacritics and case are ignored', body: { query: 'cafe MULLER' }, expected: ['t_cafe'] },
  {
    rule: '"CAFÉ" finds the plain Cafe too; the shorter title ranks first',
    body: { query: 'CAFÉ' },
    expected: ['a_cafe_plain', 't_cafe'],
  },
  { rule: 'Greek capitals and final sigma fold like lowercase', body: { query: 'οδος αθην' }, expected: ['a_greek'] },
  { rule: '"the" is a word like any other', body: { query: 'the build' }, expected: ['a_the'] },
  { rule: 'NEAR and AND are words, not operators', body: { query: 'NEAR AND' }, expected: ['a_ops'] },
  { rule: 'a leading minus does not exclude', body: { query: '-operators' }, expected: ['a_ops'] },
  { rule: 'a colon is no column filter', body: { query: 'col:umn' }, expected: ['a_ops'] },
  { rule: '"headline:" is just a word no record has', body: { query: 'headline:review' }, expected: [] },
  { rule: 'parentheses are text', body: { query: '(groups' }, expected: ['a_ops'] },
  {
    rule: 'a star adds nothing to prefix matching',
    body: { query: 'review*' },
    expected: ['t_hidden', 'a_rl_scattered', 'a_rl_adjacent', 'a_ops'],
  },
  { rule: "the caller's hidden task is included", body: { query: 'salary' }, expected: ['a_hidden_1', 't_hidden'] },
  {
    rule: 'the window is [now − days × 24 h, now], both ends included',
    body: { query: 'boundary' },
    expected: ['a_edge_now', 'a_edge_in'],
  },
  { rule: 'sources: tasks only', body: { query: 'kubernetes', sources: ['tasks'] }, expected: ['t_kube', 't_sync'] },
  {
    rule: 'sources: the legacy screenshots alias means activity',
    body: { query: 'kubernetes', sources: ['screenshots'] },
    expected: ['a_kube_notes'],
  },
];

forEachDialect('search ranking', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { dataset: RANKING });
  });
  after(() => t.close());

  for (const c of CASES) {
    test(`${c.rule}: ${JSON.stringify(c.body)}`, async () => {
      const res = await call(t.app, 'POST', '/search', { key: RITA, body: c.body });
      assert.equal(res.status, 200, res.body);
      assert.deepEqual(
        res.json.results.map((r: { id: string }) => r.id),
        c.expected,
      );
      assert.equal(res.json.totalMatches, c.expected.length);
    });
  }

  test('matchedFields name the fields holding query words, not context words', async () => {
    const res = await call(t.app, 'POST', '/search', {
      key: RITA,
      body: { query: 'kubernetes', context: 'costs changelog' },
    });
    const fields = Object.fromEntries(
      res.json.results.map((r: { id: string; matchedFields: string[] }) => [r.id, r.matchedFields]),
    );
    assert.deepEqual(fields, { t_kube: ['title'], t_sync: ['description'], a_kube_notes: ['description'] });
    const both = await call(t.app, 'POST', '/search', { key: RITA, body: { query: 'invoice' } });
    assert.deepEqual(both.json.results[0].matchedFields, ['headline', 'description']);
  });

  test('totalMatches counts before limit; limit keeps the best', async () => {
    const res = await call(t.app, 'POST', '/search', { key: RITA, body: { query: 'standup', limit: 2 } });
    assert.equal(res.json.totalMatches, 3);
    assert.deepEqual(
      res.json.results.map((r: { id: string }) => r.id),
      ['a_standup_3', 'a_standup_2'],
    );
    assert.equal(res.json.message, 'Found 3 matches for "standup" in the last 7 days.');
  });
});
