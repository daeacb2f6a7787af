/**
 * What a project write costs the database: the commands take the caller's active teams from the
 * key authentication loaded, present the row they wrote instead of reading it back, and read
 * teams and portfolios only when the body names one. A regression here is a query per request.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  type CountedDatabase,
  DEFAULT_NOW,
  KEYS,
  type TestApp,
  call,
  countingStatements,
  createTestApp,
  createTestDatabase,
  forEachDialect,
} from '../helper.ts';

forEachDialect('statements of a project write', (dialect) => {
  let t: TestApp;
  let database: CountedDatabase;
  before(async () => {
    database = countingStatements(await createTestDatabase(dialect));
    // The key stays verified for the whole test, so a request runs only its own statements.
    t = await createTestApp(dialect, { database, config: { keyCacheMs: 3_600_000 } });
    // Used just now: authentication does not stamp the key's use during a counted request.
    await database.storage.db.updateTable('api_keys').set({ last_used_at: DEFAULT_NOW }).execute();
    assert.equal((await call(t.app, 'GET', '/user', { key: KEYS.aliceAll })).status, 200);
  });
  after(async () => {
    await t.close();
    await database.drop();
  });

  async function statementsOf(method: 'GET' | 'POST', url: string, body?: unknown) {
    const before = database.statements;
    const res = await call(t.app, method, url, { key: KEYS.aliceAll, body });
    return { res, statements: database.statements - before };
  }

  test('a create with an empty body is one insert', async () => {
    const { res, statements } = await statementsOf('POST', '/projects', {});
    assert.equal(res.status, 201, res.body);
    assert.equal(res.json.project.name, 'New Project 2026-11-22');
    assert.equal(statements, 1);
  });

  test('a create with a team and a portfolio reads the team names and the usable portfolios, then inserts', async () => {
    const { res, statements } = await statementsOf('POST', '/projects', { team: 'Engineering', portfolio: 'Q4 Bets' });
    assert.equal(res.status, 201, res.body);
    assert.deepEqual([res.json.project.teamId, res.json.project.portfolioId], ['t_eng', 'pf_bets']);
    assert.equal(statements, 3);
  });

  test('an update of the description reads the (locked) project and writes it', async () => {
    const { res, statements } = await statementsOf('POST', '/projects/p_api', { description: 'Changed' });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json.project.description, 'Changed');
    assert.equal(statements, 2);
  });
});
