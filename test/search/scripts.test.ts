/**
 * docs/api.md, "POST /search" in every script: matching ignores case and diacritics, also where the accent
 * sits in a word's first letters (Greek tonos, Cyrillic й and ё), on both databases alike.
 * SQLite's tokenizer strips only Latin accents; the search must still find these records. Words
 * glued to an emoji or a symbol newer than SQLite's Unicode tables, or to a variation selector,
 * are words of their own (migration 0005).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { tempFiles } from '../dataset/dataset-files.ts';
import { DEFAULT_NOW, type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';

const KEY = 'dbk_test_scripts_0123456789abcdef';
const at = (hoursAgo: number) => new Date(DEFAULT_NOW - hoursAgo * 3_600_000).toISOString();

const world = {
  version: 1,
  users: [{ id: 'u_sc', email: 'sc@example.com', plan: 'core' }],
  tasks: [
    { id: 'k_greek', userId: 'u_sc', date: at(30).slice(0, 10), title: 'Ανάπτυξη λογισμικού', createdAt: at(30) },
    { id: 'k_cyrillic', userId: 'u_sc', date: at(20).slice(0, 10), title: 'Йога утром', createdAt: at(20) },
    { id: 'k_latin', userId: 'u_sc', date: at(10).slice(0, 10), title: 'Café planning', createdAt: at(10) },
  ],
  activities: [
    { id: 'a_yo', userId: 'u_sc', start: at(5), durationMinutes: 30, headline: 'Ёлка shopping' },
    { id: 'a_sigma', userId: 'u_sc', start: at(4), durationMinutes: 10, headline: 'Όλοι μας', description: 'Έργο σας' },
    // Snippets count characters: 127 characters in 247 UTF-16 units, and 307 in 457.
    { id: 'a_emoji_fits', userId: 'u_sc', start: at(3), durationMinutes: 5, headline: `${'😀'.repeat(120)} zanzibar` },
    {
      id: 'a_emoji_long',
      userId: 'u_sc',
      start: at(2),
      durationMinutes: 5,
      headline: 'Rocket log',
      description: `${'🚀 '.repeat(150)}quetzal`,
    },
    // Words right after a symbol SQLite's tokenizer does not know (Unicode 7 and later), or
    // after an emoji's variation selector.
    { id: 'a_party', userId: 'u_sc', start: at(1), durationMinutes: 5, headline: '🥳Launch party' },
    {
      id: 'a_robot',
      userId: 'u_sc',
      start: at(1),
      durationMinutes: 5,
      headline: 'Review',
      description: 'Ran🤖automation twice',
    },
    { id: 'a_hotfix', userId: 'u_sc', start: at(1), durationMinutes: 5, headline: '⚠️Hotfix deploy' },
    { id: 'a_ruble', userId: 'u_sc', start: at(1), durationMinutes: 5, headline: 'Paid ₽500 invoice' },
  ],
  apiKeys: [{ userId: 'u_sc', name: 'k', key: KEY, scopes: ['search:read'] }],
};

const CASES: [query: string, expected: string[]][] = [
  ['Ανάπτυξη', ['k_greek']],
  ['ανάπτυξη', ['k_greek']],
  ['αναπτυξη', ['k_greek']],
  ['ΑΝΑΠΤΥΞΗ', ['k_greek']],
  ['ανάπ', ['k_greek']],
  ['λογισμικου', ['k_greek']],
  ['йога', ['k_cyrillic']],
  ['Йога', ['k_cyrillic']],
  ['иога', ['k_cyrillic']],
  ['йог', ['k_cyrillic']],
  ['ёлка', ['a_yo']],
  ['елка', ['a_yo']],
  ['ЁЛКА shopping', ['a_yo']],
  ['ολοι', ['a_sigma']],
  ['σας', ['a_sigma']],
  ['εργο', ['a_sigma']],
  ['cafe', ['k_latin']],
  ['CAFÉ', ['k_latin']],
  ['cafe\u0301', ['k_latin']],
  ['йогурт', []],
  ['launch', ['a_party']],
  ['LAUNCH party', ['a_party']],
  ['automation', ['a_robot']],
  ['ran', ['a_robot']],
  ['hotfix', ['a_hotfix']],
  ['hotfix deploy', ['a_hotfix']],
  ['500', ['a_ruble']],
];

forEachDialect('search in every script', (dialect) => {
  let t: TestApp;
  let files: ReturnType<typeof tempFiles>;
  before(async () => {
    files = tempFiles();
    t = await createTestApp(dialect, { dataset: files.write(`scripts-${dialect}.json`, world) });
  });
  after(async () => {
    await t.close();
    files.remove();
  });

  for (const [query, expected] of CASES) {
    test(`"${query}" finds ${expected.join(', ') || 'nothing'}`, async () => {
      const res = await call(t.app, 'POST', '/search', { key: KEY, body: { query, days: 7 } });
      assert.equal(res.status, 200, res.body);
      assert.deepEqual(
        res.json.results.map((r: { id: string }) => r.id),
        expected,
      );
    });
  }

  test('a snippet counts characters, not UTF-16 units: 127 emoji-laden characters are shown whole', async () => {
    const res = await call(t.app, 'POST', '/search', { key: KEY, body: { query: 'zanzibar', days: 7 } });
    assert.equal(res.json.results[0].snippet, `${'😀'.repeat(120)} zanzibar`);
  });

  test('a long snippet is cut to 200 characters and never inside a character', async () => {
    const res = await call(t.app, 'POST', '/search', { key: KEY, body: { query: 'quetzal', days: 7 } });
    const { snippet } = res.json.results[0];
    assert.ok(snippet.startsWith('…') && snippet.endsWith('quetzal'), snippet);
    assert.ok([...snippet].length <= 200 && [...snippet].length >= 190, `${[...snippet].length} characters`);
    assert.ok(snippet.isWellFormed(), 'no half of a surrogate pair');
  });
});
