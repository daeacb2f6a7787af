/**
 * docs/api.md, "Scopes": `messages:read`, the former name of `summaries:read`, is accepted
 * wherever a scope is. A key created with it (`daybook keys create --scopes messages:read`) or
 * imported with it holds `summaries:read`, and a stored key that still carries the former name
 * is honoured as `summaries:read`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import { hashApiKey } from '../../src/services/api-keys.ts';
import { type Dialect, migrate, openStorage } from '../../src/storage/database.ts';
import { SUMMARIES_FIXTURE, ZOE, generate } from '../summaries/support.ts';
import { daybook as daybookCli } from '../cli/daybook-cli.ts';
import { type TestApp, type TestDatabase, call, createTestApp, createTestDatabase, forEachDialect } from '../helper.ts';

/** Thursday 2026-11-19, 12:00 in Los Angeles (u_zoe's timezone): Nov 18 has its summary. */
const NOW = Date.parse('2026-11-19T20:00:00Z');

/** A database the command line can open by its URL as well: a file for SQLite. */
async function sharedDatabase(dialect: Dialect, dir: string): Promise<TestDatabase> {
  if (dialect === 'postgres') return createTestDatabase(dialect);
  const url = `sqlite:${join(dir, 'scopes.db')}`;
  const storage = openStorage(url);
  await migrate(storage);
  return { url, storage, drop: () => storage.close() };
}

/** Runs `daybook <args>` in this process against `url`; returns its standard output, or throws its error output. */
async function daybook(url: string, ...args: string[]): Promise<string> {
  const run = await daybookCli(url, ...args);
  if (run.code !== 0) throw new Error(run.stderr);
  return run.stdout.trimEnd();
}

const storedScopes = async (t: TestApp, id: string) =>
  (await t.storage.db.selectFrom('api_keys').select('scopes').where('id', '=', id).executeTakeFirstOrThrow()).scopes;

forEachDialect('messages:read, the former name of summaries:read', (dialect) => {
  let dir: string;
  let database: TestDatabase;
  let t: TestApp;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'daybook-scopes-'));
    database = await sharedDatabase(dialect, dir);
    t = await createTestApp(dialect, { database, dataset: SUMMARIES_FIXTURE, now: NOW });
    await generate(t.storage, NOW);
  });
  after(async () => {
    await t.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('daybook keys create --scopes messages:read makes a key with summaries:read that reads /message', async () => {
    const key = await daybook(
      database.url,
      'keys',
      'create',
      '--user',
      'u_zoe',
      '--name',
      'old client',
      '--scopes',
      'messages:read',
    );
    assert.match(key, /^dbk_/);
    const row = await t.storage.db
      .selectFrom('api_keys')
      .select('id')
      .where('key_hash', '=', hashApiKey(key))
      .executeTakeFirstOrThrow();
    assert.equal(await storedScopes(t, row.id), 'summaries:read');
    const res = await call(t.app, 'GET', '/message?date=2026-11-18', { key });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json.metadata.subject, "Zoë's daily summary: Nov 18");
    // It grants nothing more than summaries:read.
    const search = await call(t.app, 'POST', '/search', { key, body: { query: 'call' } });
    assert.deepEqual([search.status, search.json.error], [403, 'API key missing required scope: search:read']);
  });

  test('messages:read beside summaries:read is that one scope', async () => {
    const key = await daybook(
      database.url,
      'keys',
      'create',
      '--user',
      'u_zoe',
      '--name',
      'both',
      '--scopes',
      'messages:read,summaries:read,search:read',
    );
    const row = await t.storage.db
      .selectFrom('api_keys')
      .select('id')
      .where('key_hash', '=', hashApiKey(key))
      .executeTakeFirstOrThrow();
    assert.equal(await storedScopes(t, row.id), 'summaries:read search:read');
  });

  test('an imported key with messages:read has summaries:read and reads /message', async () => {
    const key = 'dbk_imported_former_scope_0123456789';
    const file = join(dir, 'key.json');
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        apiKeys: [{ id: 'key_zoe_former', userId: 'u_zoe', name: 'imported', key, scopes: ['messages:read'] }],
      }),
    );
    await importDataset(t.storage, file, { now: () => NOW });
    assert.equal(await storedScopes(t, 'key_zoe_former'), 'summaries:read');
    const res = await call(t.app, 'GET', '/message?date=2026-11-18', { key });
    assert.equal(res.status, 200, res.body);
  });

  test('a stored key that still carries messages:read reads /message', async () => {
    const before = await call(t.app, 'GET', '/message?date=2026-11-18', { key: ZOE.userOnly });
    assert.deepEqual([before.status, before.json.error], [403, 'API key missing required scope: summaries:read']);
    const hash = hashApiKey(ZOE.userOnly);
    await t.storage.db
      .updateTable('api_keys')
      .set({ scopes: 'user:read messages:read' })
      .where('key_hash', '=', hash)
      .execute();
    try {
      const res = await call(t.app, 'GET', '/message?date=2026-11-18', { key: ZOE.userOnly });
      assert.equal(res.status, 200, res.body);
    } finally {
      await t.storage.db.updateTable('api_keys').set({ scopes: 'user:read' }).where('key_hash', '=', hash).execute();
    }
  });

  test('any other unknown scope is still refused by the command', async () => {
    await assert.rejects(
      daybook(database.url, 'keys', 'create', '--user', 'u_zoe', '--name', 'x', '--scopes', 'messages:write'),
      /unknown scope "messages:write"/,
    );
  });
});
