/**
 * Updates of one project that race, on two server instances sharing the database (PostgreSQL:
 * separate connection pools, so the requests really run at once): each update is checked against
 * the project as the other left it, so the final state is one some serial order gives — a move to
 * another team resets contributors and never keeps another team's portfolio (api.md side rules;
 * docs/api.md, "/projects"), and a member whose access the other update took away learns nothing of it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Storage, openStorage } from '../../src/storage/database.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import { type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';

const ALICE = 'dbk_race_alice_0123456789abcdef';
const BOB = 'dbk_race_bob_0123456789abcdef00';
const ROUNDS = 12;

const world = {
  version: 1,
  users: [
    { id: 'u_alice', email: 'alice@example.com', plan: 'core' },
    { id: 'u_bob', email: 'bob@example.com', plan: 'core' },
    { id: 'u_eve', email: 'eve@example.com', plan: 'core' },
  ],
  teams: [
    { id: 't_one', name: 'One', members: [{ userId: 'u_alice' }, { userId: 'u_bob' }] },
    { id: 't_two', name: 'Two', members: [{ userId: 'u_alice' }, { userId: 'u_eve' }] },
  ],
  portfolios: [{ id: 'pf_one', name: 'One board', ownerId: 'u_alice', teamId: 't_one' }],
  projects: [{ id: 'p_x', name: 'Shared', teamId: 't_one', createdBy: 'u_alice' }],
  apiKeys: [
    { userId: 'u_alice', name: 'k', key: ALICE, scopes: ['projects:write'] },
    { userId: 'u_bob', name: 'k', key: BOB, scopes: ['projects:write'] },
  ],
};

forEachDialect('racing project updates', (dialect) => {
  let first: TestApp;
  let second: TestApp;
  const files = tempFiles();
  let secondStorage: Storage;
  before(async () => {
    first = await createTestApp(dialect, { dataset: files.write(`race-${dialect}.json`, world) });
    // PostgreSQL: a pool of its own, as another server process has. SQLite: one process, one file.
    secondStorage = dialect === 'postgres' ? openStorage(first.database.url) : first.storage;
    second = await createTestApp(dialect, {
      database: { url: first.database.url, storage: secondStorage, drop: async () => {} },
      dataset: null,
    });
  });
  after(async () => {
    await second.close();
    if (secondStorage !== first.storage) await secondStorage.close();
    await first.close();
    files.remove();
  });

  const reset = () =>
    first.storage.db
      .updateTable('projects')
      .set({ team_id: 't_one', portfolio_id: null, contributor_ids: null, description: null, color: null })
      .where('id', '=', 'p_x')
      .execute();
  const stored = () =>
    first.storage.db.selectFrom('projects').selectAll().where('id', '=', 'p_x').executeTakeFirstOrThrow();
  const update = (t: TestApp, key: string, body: object) => call(t.app, 'POST', '/projects/p_x', { key, body });

  test('a move to another team against a contributor change: the contributors never outlive the move', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await reset();
      const [move, contributors] = await Promise.all([
        update(first, ALICE, { team: 't_two' }),
        update(second, ALICE, { contributorIds: ['u_bob'] }),
      ]);
      assert.equal(move.status, 200, move.body);
      const project = await stored();
      assert.equal(project.team_id, 't_two');
      // Either the contributors came first and the move reset them, or they came second and bob,
      // no member of t_two, was refused.
      assert.equal(project.contributor_ids, null, `round ${round}: ${contributors.status} ${contributors.body}`);
      if (contributors.status !== 200) assert.equal(contributors.status, 400, contributors.body);
    }
  });

  test("a move against a portfolio change: a project never sits in another team's portfolio", async () => {
    for (const team of ['t_two', null]) {
      for (let round = 0; round < ROUNDS; round++) {
        await reset();
        const [move, placed] = await Promise.all([
          update(first, ALICE, { team }),
          update(second, ALICE, { portfolio: 'pf_one' }),
        ]);
        const project = await stored();
        const outcome = `round ${round}: move ${move.status}, portfolio ${placed.status}`;
        // The two serial orders: the move, then the portfolio refused (it is t_one's); or the
        // portfolio, then the move refused (the project's portfolio does not fit the new scope).
        if (move.status === 200) {
          assert.deepEqual([project.team_id, project.portfolio_id, placed.status], [team, null, 400], outcome);
        } else {
          assert.deepEqual(
            [project.team_id, project.portfolio_id, move.status, placed.status],
            ['t_one', 'pf_one', 400, 200],
            outcome,
          );
        }
      }
    }
  });

  test('a member racing a move to personal scope never sees what the new owner wrote', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      await reset();
      const color = round % 2 === 0 ? '#FFB623' : '#4BC0C0';
      const [private_, member] = await Promise.all([
        update(first, ALICE, { team: null, description: 'alice private note' }),
        update(second, BOB, { color }),
      ]);
      assert.equal(private_.status, 200, private_.body);
      if (member.status === 200) assert.equal(member.json.project.description, null, `round ${round}: ${member.body}`);
      else assert.deepEqual([member.status, member.json.error], [404, 'Project not found']);
      const project = await stored();
      assert.deepEqual([project.team_id, project.description], [null, 'alice private note']);
      // Bob's color landed only if his update came first, while the project was the team's.
      if (member.status === 404) assert.equal(project.color, null, 'no write by bob after the move');
    }
  });
});
