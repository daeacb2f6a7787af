/**
 * Migration 0005 on a database that already holds records: words glued to an emoji SQLite's
 * tokenizer does not know, or to a variation selector, are missed with the index as it was
 * (the migration undone) and found once it has run, on both databases, without importing
 * anything again.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import { migrate } from '../../src/storage/database.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import {
  DEFAULT_NOW,
  type TestApp,
  type TestDatabase,
  call,
  createTestApp,
  createTestDatabase,
  forEachDialect,
} from '../helper.ts';

const KEY = 'dbk_test_migration_0005_0123456789abcdef';
const at = (hoursAgo: number) => new Date(DEFAULT_NOW - hoursAgo * 3_600_000).toISOString();
const world = {
  version: 1,
  users: [{ id: 'u_m', email: 'm@example.com', plan: 'core' }],
  tasks: [{ id: 'k_party', userId: 'u_m', date: at(5).slice(0, 10), title: '🥳Launch party', createdAt: at(5) }],
  activities: [
    { id: 'a_hotfix', userId: 'u_m', start: at(4), durationMinutes: 5, headline: '⚠️Hotfix deploy' },
    {
      id: 'a_plain',
      userId: 'u_m',
      start: at(3),
      durationMinutes: 5,
      headline: 'Launch review',
      description: 'hotfix notes',
    },
  ],
  apiKeys: [{ userId: 'u_m', name: 'k', key: KEY, scopes: ['search:read'] }],
};

forEachDialect('migration 0005 on existing records', (dialect) => {
  let database: TestDatabase;
  let t: TestApp;
  const files = tempFiles();
  before(async () => {
    database = await createTestDatabase(dialect);
    await importDataset(database.storage, files.write(`m5-${dialect}.json`, world), { now: () => DEFAULT_NOW });
    t = await createTestApp(dialect, { database, dataset: null });
  });
  after(async () => {
    await t.close();
    files.remove();
  });

  const found = async (query: string) =>
    (await call(t.app, 'POST', '/search', { key: KEY, body: { query } })).json.results
      .map((r: { id: string }) => r.id)
      .sort();

  test('before it, the glued words are missed; after it, they are found', async () => {
    assert.deepEqual(await found('launch'), ['a_plain', 'k_party'], 'found on a new database');
    await migrate(database.storage, { to: '0004-search-words-by-writers' });
    const before = { launch: await found('launch'), hotfix: await found('hotfix') };
    assert.deepEqual(before.hotfix, ['a_plain'], 'the selector kept "Hotfix" from being a word');
    if (dialect === 'sqlite') assert.deepEqual(before.launch, ['a_plain'], 'the tokenizer glued "Launch" to the emoji');
    assert.deepEqual(await migrate(database.storage, { to: '0005-search-words-beside-symbols' }), [
      '0005-search-words-beside-symbols',
    ]);
    assert.deepEqual(await found('launch'), ['a_plain', 'k_party']);
    assert.deepEqual(await found('hotfix'), ['a_hotfix', 'a_plain']);
    assert.deepEqual(await found('party'), ['k_party']);
  });
});
