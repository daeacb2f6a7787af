/**
 * Every field rule and error string of the Project resource, `POST /projects` and
 * `POST /projects/:id` (api.md, docs/api.md, "/projects"), one table row per rule, over real HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PROJECT_COLORS } from '../../src/services/projects/fields.ts';
import { DEFAULT_NOW, type TestApp, call, forEachDialect } from '../helper.ts';
import { PROJECT_KEYS as K, createProjectVia, createProjectsApp } from './world.ts';

type Body = Record<string, unknown>;

const NOW_ISO = new Date(DEFAULT_NOW).toISOString();
const LATER = DEFAULT_NOW + 3_600_000;
const LATER_ISO = new Date(LATER).toISOString();

const SHAPE = 'contributorIds must be null or an array of user ids, handles, or email addresses';
const PERSONAL = 'Contributors can only be set on team projects';
const noUser = (entry: string) => `No user matches "${entry}"; use a user id, handle, or email address`;
const notMember = (id: string) => `Contributor ${id} is not an active member of the team`;

interface CreateCase {
  rule: string;
  body: Body | undefined;
  status: 201 | 400;
  error?: string;
  /** Fields the created project must have. */
  project?: Body;
}

const createCases: CreateCase[] = [
  {
    rule: 'no body: a personal project named after the local date, with every default',
    body: undefined,
    status: 201,
    project: {
      name: 'New Project 2026-11-22',
      description: null,
      color: null,
      portfolioId: null,
      teamId: null,
      private: false,
      confidential: false,
      contributorIds: null,
      status: 'active',
      createdAt: NOW_ISO,
      updatedAt: NOW_ISO,
      usedAt: null,
      createdBy: 'u_alice',
      updatedBy: 'u_alice',
    },
  },
  { rule: 'empty body gets the generated name', body: {}, status: 201, project: { name: 'New Project 2026-11-22' } },
  {
    rule: 'blank name gets the generated name',
    body: { name: '   ' },
    status: 201,
    project: { name: 'New Project 2026-11-22' },
  },
  {
    rule: 'a name of Unicode whitespace is blank',
    body: { name: '\u0085\u2003' },
    status: 201,
    project: { name: 'New Project 2026-11-22' },
  },
  {
    rule: 'a name is kept as given',
    body: { name: ' Spaced  name ' },
    status: 201,
    project: { name: ' Spaced  name ' },
  },
  {
    rule: 'name of 100 characters is accepted',
    body: { name: 'n'.repeat(100) },
    status: 201,
    project: { name: 'n'.repeat(100) },
  },
  {
    rule: 'a lone surrogate is refused (it could only be stored changed, as U+FFFD)',
    body: { name: 'a\ud800b', description: 'x\udfffy' },
    status: 400,
    error: 'name must not contain a lone surrogate',
  },
  {
    rule: 'U+FFFD itself is text like any other',
    body: { name: 'a\ufffdb' },
    status: 201,
    project: { name: 'a\ufffdb' },
  },
  { rule: 'name length counts characters, not UTF-16 units', body: { name: '😀'.repeat(100) }, status: 201 },
  {
    rule: 'name over 100 characters',
    body: { name: 'n'.repeat(101) },
    status: 400,
    error: 'name must be at most 100 characters',
  },
  {
    rule: 'description of 2000 characters',
    body: { description: 'd'.repeat(2000) },
    status: 201,
    project: { description: 'd'.repeat(2000) },
  },
  {
    rule: 'description over 2000 characters',
    body: { description: 'd'.repeat(2001) },
    status: 400,
    error: 'description must be at most 2000 characters',
  },
  ...PROJECT_COLORS.map((color) => ({
    rule: `color ${color} is allowed`,
    body: { color },
    status: 201 as const,
    project: { color },
  })),
  {
    rule: 'color in lower case is not the allowed value',
    body: { color: '#ffb623' },
    status: 400,
    error: 'Invalid color value',
  },
  { rule: 'color by name', body: { color: 'red' }, status: 400, error: 'Invalid color value' },
  { rule: 'color as a number', body: { color: 16758307 }, status: 400, error: 'Invalid color value' },
  { rule: 'empty color', body: { color: '' }, status: 400, error: 'Invalid color value' },
  { rule: 'color close to an allowed one', body: { color: '#FFB6231' }, status: 400, error: 'Invalid color value' },
  {
    rule: 'private and confidential are set on create',
    body: { private: true, confidential: true },
    status: 201,
    project: { private: true, confidential: true },
  },
  { rule: 'team by id', body: { team: 't_ops' }, status: 400, error: 'Team not found: "t_ops"' },
  { rule: 'team by exact name', body: { team: 'Engineering' }, status: 201, project: { teamId: 't_eng' } },
  { rule: 'team name is trimmed', body: { team: '  Engineering ' }, status: 201, project: { teamId: 't_eng' } },
  {
    rule: 'team name is case-sensitive',
    body: { team: 'engineering' },
    status: 400,
    error: 'Team not found: "engineering"',
  },
  { rule: 'team where the caller is no member', body: { team: 'Ops' }, status: 400, error: 'Team not found: "Ops"' },
  {
    rule: 'team where the membership is inactive',
    body: { team: 'Ghost' },
    status: 400,
    error: 'Team not found: "Ghost"',
  },
  { rule: 'unknown team', body: { team: 't_nope' }, status: 400, error: 'Team not found: "t_nope"' },
  {
    rule: 'when an id and a name both match, the id wins',
    body: { team: 't_eng' },
    status: 201,
    project: { teamId: 't_eng' },
  },
  {
    rule: 'the other team reached by its id',
    body: { team: 't_design' },
    status: 201,
    project: { teamId: 't_design' },
  },
  { rule: 'team "" is a personal project', body: { team: '' }, status: 201, project: { teamId: null } },
  { rule: 'team null is a personal project', body: { team: null }, status: 201, project: { teamId: null } },
  { rule: 'portfolio by id', body: { portfolio: 'pf_home' }, status: 201, project: { portfolioId: 'pf_home' } },
  {
    rule: 'portfolio by trimmed exact name',
    body: { portfolio: ' Home ' },
    status: 201,
    project: { portfolioId: 'pf_home' },
  },
  {
    rule: 'team portfolio by name with its team',
    body: { team: 'Engineering', portfolio: 'Q4 Bets' },
    status: 201,
    project: { teamId: 't_eng', portfolioId: 'pf_bets' },
  },
  {
    rule: 'portfolio name is case-sensitive',
    body: { portfolio: 'home' },
    status: 400,
    error: 'Portfolio not found: "home"',
  },
  {
    rule: "another team's portfolio",
    body: { portfolio: 'Ops Board' },
    status: 400,
    error: 'Portfolio not found: "Ops Board"',
  },
  {
    rule: "another user's personal portfolio",
    body: { portfolio: 'pf_bob' },
    status: 400,
    error: 'Portfolio not found: "pf_bob"',
  },
  { rule: 'portfolio "" means none', body: { portfolio: '' }, status: 201, project: { portfolioId: null } },
  {
    rule: 'a team portfolio holds only projects of its team',
    body: { portfolio: 'pf_bets' },
    status: 400,
    error: 'Portfolio "pf_bets" holds only projects of its team',
  },
  {
    rule: 'a team portfolio refuses a project of another team',
    body: { team: 't_design', portfolio: 'Q4 Bets' },
    status: 400,
    error: 'Portfolio "Q4 Bets" holds only projects of its team',
  },
  {
    rule: 'a personal portfolio holds only personal projects',
    body: { team: 'Engineering', portfolio: 'Home' },
    status: 400,
    error: 'Portfolio "Home" holds only personal projects',
  },
  { rule: 'contributorIds as a string', body: { team: 't_eng', contributorIds: 'bob' }, status: 400, error: SHAPE },
  { rule: 'contributorIds as a number', body: { team: 't_eng', contributorIds: 5 }, status: 400, error: SHAPE },
  {
    rule: 'contributorIds as an object',
    body: { team: 't_eng', contributorIds: { id: 'u_bob' } },
    status: 400,
    error: SHAPE,
  },
  {
    rule: 'contributorIds with a non-string entry',
    body: { team: 't_eng', contributorIds: ['u_bob', 7] },
    status: 400,
    error: SHAPE,
  },
  { rule: 'contributorIds true', body: { team: 't_eng', contributorIds: true }, status: 400, error: SHAPE },
  { rule: 'contributorIds on a personal project', body: { contributorIds: ['u_alice'] }, status: 400, error: PERSONAL },
  { rule: 'contributorIds [] on a personal project', body: { contributorIds: [] }, status: 400, error: PERSONAL },
  {
    rule: 'contributorIds null on a personal project',
    body: { contributorIds: null },
    status: 201,
    project: { contributorIds: null },
  },
  {
    rule: 'contributorIds null: the whole team',
    body: { team: 't_eng', contributorIds: null },
    status: 201,
    project: { contributorIds: null },
  },
  {
    rule: 'contributorIds omitted: the whole team',
    body: { team: 't_eng' },
    status: 201,
    project: { contributorIds: null },
  },
  {
    rule: 'contributorIds []: nobody',
    body: { team: 't_eng', contributorIds: [] },
    status: 201,
    project: { contributorIds: [] },
  },
  {
    rule: 'ids, handles and e-mail addresses in any mix resolve to user ids',
    body: { team: 't_eng', contributorIds: ['bob', 'u_alice'] },
    status: 201,
    project: { contributorIds: ['u_bob', 'u_alice'] },
  },
  {
    rule: 'e-mail addresses resolve ignoring case, repeats collapse',
    body: { team: 't_eng', contributorIds: ['ALICE@example.com', 'alice', 'u_alice', 'bob@example.com'] },
    status: 201,
    project: { contributorIds: ['u_alice', 'u_bob'] },
  },
  {
    rule: 'an entry matching no account',
    body: { team: 't_eng', contributorIds: ['u_bob', 'nobody'] },
    status: 400,
    error: noUser('nobody'),
  },
  {
    rule: 'an unknown e-mail address',
    body: { team: 't_eng', contributorIds: ['nobody@example.com'] },
    status: 400,
    error: noUser('nobody@example.com'),
  },
  { rule: 'an empty entry', body: { team: 't_eng', contributorIds: [''] }, status: 400, error: noUser('') },
  {
    rule: 'an inactive member',
    body: { team: 't_eng', contributorIds: ['dave'] },
    status: 400,
    error: notMember('u_dave'),
  },
  {
    // Outside the team, an account is answered like no account: the message tells no e-mail's owner.
    rule: 'a user who is in no team, named by e-mail: as if unknown',
    body: { team: 't_eng', contributorIds: ['carol.jones@example.com'] },
    status: 400,
    error: noUser('carol.jones@example.com'),
  },
  {
    rule: 'a user who is in no team, named by id: as if unknown',
    body: { team: 't_eng', contributorIds: ['u_carol'] },
    status: 400,
    error: noUser('u_carol'),
  },
  {
    rule: 'a member of another team: as if unknown',
    body: { team: 't_design', contributorIds: ['erin', 'bob'] },
    status: 400,
    error: noUser('bob'),
  },
];

interface UpdateCase {
  rule: string;
  /** Body that creates the project the update runs on (as alice). */
  given: Body;
  update: Body | undefined;
  /** Key of the updater; alice's by default. */
  key?: string;
  status: 200 | 400;
  error?: string;
  project?: Body;
  /** The project must be exactly as created (nothing written, updatedAt untouched). */
  unchanged?: boolean;
}

const TEAM_WITH_BOB = { name: 'Team project', team: 't_eng', contributorIds: ['u_bob'] };

const updateCases: UpdateCase[] = [
  {
    rule: 'rule 6: an empty body returns the project unchanged',
    given: { name: 'Kept' },
    update: {},
    status: 200,
    unchanged: true,
  },
  {
    rule: 'rule 6: no body at all returns the project unchanged',
    given: { name: 'Kept' },
    update: undefined,
    status: 200,
    unchanged: true,
  },
  {
    rule: 'unknown fields are ignored',
    given: { name: 'Kept' },
    update: { status: 'archived', colour: 'red' },
    status: 200,
    unchanged: true,
  },
  {
    rule: 'the same values change nothing',
    given: { name: 'Same', color: '#6C63FF' },
    update: { name: 'Same', color: '#6C63FF' },
    status: 200,
    unchanged: true,
  },
  {
    rule: 'rule 1: omitted fields stay, a changed one moves updatedAt and updatedBy',
    given: { name: 'Old', description: 'kept', color: '#FFB623', private: true },
    update: { name: 'New' },
    status: 200,
    project: {
      name: 'New',
      description: 'kept',
      color: '#FFB623',
      private: true,
      createdAt: NOW_ISO,
      updatedAt: LATER_ISO,
      updatedBy: 'u_alice',
    },
  },
  {
    rule: 'updatedBy is the member who changed a team project',
    given: { team: 't_eng' },
    update: { description: 'by bob' },
    key: K.bob,
    status: 200,
    project: { description: 'by bob', createdBy: 'u_alice', updatedBy: 'u_bob' },
  },
  {
    rule: 'name over 100 characters',
    given: {},
    update: { name: 'x'.repeat(101) },
    status: 400,
    error: 'name must be at most 100 characters',
  },
  { rule: 'name cannot be emptied', given: {}, update: { name: '  ' }, status: 400, error: 'name must not be empty' },
  {
    rule: 'description over 2000',
    given: {},
    update: { description: 'x'.repeat(2001) },
    status: 400,
    error: 'description must be at most 2000 characters',
  },
  {
    rule: 'a lone surrogate is refused',
    given: {},
    update: { description: 'x\udfffy' },
    status: 400,
    error: 'description must not contain a lone surrogate',
  },
  {
    rule: 'description null clears it',
    given: { description: 'text' },
    update: { description: null },
    status: 200,
    project: { description: null },
  },
  {
    rule: 'color null clears it',
    given: { color: '#FFB623' },
    update: { color: null },
    status: 200,
    project: { color: null },
  },
  {
    rule: 'an invalid color',
    given: { color: '#FFB623' },
    update: { color: '#FFFFFF' },
    status: 400,
    error: 'Invalid color value',
  },
  { rule: 'private can change', given: {}, update: { private: true }, status: 200, project: { private: true } },
  {
    rule: 'rule 5: confidential true is refused',
    given: {},
    update: { confidential: true },
    status: 400,
    error: 'confidential cannot be changed through the API',
  },
  {
    rule: 'rule 5: confidential is refused even unchanged',
    given: { confidential: true },
    update: { confidential: true, name: 'x' },
    status: 400,
    error: 'confidential cannot be changed through the API',
  },
  {
    rule: 'rule 4: archived true archives',
    given: {},
    update: { archived: true },
    status: 200,
    project: { status: 'archived' },
  },
  {
    rule: 'rule 2: team null clears it',
    given: { team: 't_eng' },
    update: { team: null },
    status: 200,
    project: { teamId: null },
  },
  {
    rule: 'rule 2: team "" clears it',
    given: { team: 't_eng' },
    update: { team: '' },
    status: 200,
    project: { teamId: null },
  },
  {
    rule: 'rule 2: portfolio null clears it',
    given: { portfolio: 'pf_home' },
    update: { portfolio: null },
    status: 200,
    project: { portfolioId: null },
  },
  {
    rule: 'rule 2: portfolio "" clears it',
    given: { portfolio: 'pf_home' },
    update: { portfolio: '' },
    status: 200,
    project: { portfolioId: null },
  },
  {
    rule: 'moving to a team by name',
    given: {},
    update: { team: 'Engineering' },
    status: 200,
    project: { teamId: 't_eng' },
  },
  {
    rule: 'moving to a team without an active membership',
    given: {},
    update: { team: 'Ops' },
    status: 400,
    error: 'Team not found: "Ops"',
  },
  {
    rule: 'moving to a team with an inactive membership',
    given: { team: 't_eng' },
    update: { team: 't_ghost' },
    status: 400,
    error: 'Team not found: "t_ghost"',
  },
  {
    rule: 'a team change that leaves the portfolio in the wrong scope',
    given: { team: 't_eng', portfolio: 'pf_bets' },
    update: { team: null },
    status: 400,
    error: 'Portfolio "pf_bets" holds only projects of its team',
  },
  {
    rule: 'team and portfolio move together',
    given: { team: 't_eng', portfolio: 'pf_bets' },
    update: { team: null, portfolio: 'Home' },
    status: 200,
    project: { teamId: null, portfolioId: 'pf_home' },
  },
  {
    rule: 'a portfolio of the wrong scope',
    given: { team: 't_eng' },
    update: { portfolio: 'pf_home' },
    status: 400,
    error: 'Portfolio "pf_home" holds only personal projects',
  },
  {
    rule: 'rule 3: contributorIds replaces the list',
    given: TEAM_WITH_BOB,
    update: { contributorIds: ['alice'] },
    status: 200,
    project: { contributorIds: ['u_alice'] },
  },
  {
    rule: 'rule 3: contributorIds null lets the whole team',
    given: TEAM_WITH_BOB,
    update: { contributorIds: null },
    status: 200,
    project: { contributorIds: null },
  },
  {
    rule: 'rule 3: contributorIds [] lets nobody',
    given: TEAM_WITH_BOB,
    update: { contributorIds: [] },
    status: 200,
    project: { contributorIds: [] },
  },
  {
    rule: 'contributorIds of the wrong type',
    given: TEAM_WITH_BOB,
    update: { contributorIds: 'u_alice' },
    status: 400,
    error: SHAPE,
  },
  {
    rule: 'contributorIds naming nobody',
    given: TEAM_WITH_BOB,
    update: { contributorIds: ['ghost'] },
    status: 400,
    error: noUser('ghost'),
  },
  {
    rule: 'contributorIds naming a non-member',
    given: TEAM_WITH_BOB,
    update: { contributorIds: ['u_dave'] },
    status: 400,
    error: notMember('u_dave'),
  },
  {
    rule: 'contributorIds on a personal project',
    given: {},
    update: { contributorIds: ['u_alice'] },
    status: 400,
    error: PERSONAL,
  },
  {
    rule: 'side rule 1: changing team without contributorIds resets them to null',
    given: TEAM_WITH_BOB,
    update: { team: 't_design' },
    status: 200,
    project: { teamId: 't_design', contributorIds: null },
  },
  {
    rule: 'sending the current team is no change: contributorIds stay',
    given: TEAM_WITH_BOB,
    update: { team: 'Engineering' },
    status: 200,
    unchanged: true,
  },
  {
    rule: 'side rule 2: moving to personal scope resets contributorIds',
    given: TEAM_WITH_BOB,
    update: { team: null },
    status: 200,
    project: { teamId: null, contributorIds: null },
  },
  {
    rule: 'a team change with contributorIds checks them against the new team',
    given: TEAM_WITH_BOB,
    update: { team: 't_design', contributorIds: ['erin@example.com'] },
    status: 200,
    project: { teamId: 't_design', contributorIds: ['u_erin'] },
  },
  {
    rule: 'a team change with contributorIds of the old team',
    given: TEAM_WITH_BOB,
    update: { team: 't_design', contributorIds: ['bob'] },
    status: 400,
    error: noUser('bob'),
  },
  {
    rule: 'moving to personal scope while naming contributors',
    given: TEAM_WITH_BOB,
    update: { team: null, contributorIds: ['bob'] },
    status: 400,
    error: PERSONAL,
  },
];

function pick(project: Body, keys: string[]): Body {
  return Object.fromEntries(keys.map((k) => [k, project[k]]));
}

forEachDialect('project field rules', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createProjectsApp(dialect);
  });
  after(() => t.close());

  for (const c of createCases) {
    test(`POST /projects: ${c.rule}`, async () => {
      const res = await call(t.app, 'POST', '/projects', { key: K.aliceAll, body: c.body });
      assert.equal(res.status, c.status, res.body);
      if (c.error !== undefined) {
        assert.deepEqual(res.json, { success: false, error: c.error, message: c.error });
        return;
      }
      assert.equal(res.json.success, true);
      if (c.project) assert.deepEqual(pick(res.json.project, Object.keys(c.project)), c.project);
      const read = await call(t.app, 'GET', `/projects/${res.json.project.id}`, { key: K.aliceAll });
      assert.deepEqual(read.json.project, res.json.project, 'the created project reads back the same');
    });
  }

  for (const c of updateCases) {
    test(`POST /projects/:id: ${c.rule}`, async () => {
      t.setNow(DEFAULT_NOW);
      const created = await createProjectVia(t, c.given);
      t.setNow(LATER);
      const res = await call(t.app, 'POST', `/projects/${created.id}`, { key: c.key ?? K.aliceAll, body: c.update });
      t.setNow(DEFAULT_NOW);
      assert.equal(res.status, c.status, res.body);
      const stored = (await call(t.app, 'GET', `/projects/${created.id}`, { key: c.key ?? K.aliceAll })).json.project;
      if (c.error !== undefined) {
        assert.deepEqual(res.json, { success: false, error: c.error, message: c.error });
        assert.deepEqual(stored, created, 'a refused update changes nothing');
        return;
      }
      assert.deepEqual(res.json.project, stored, 'the response is the stored project');
      if (c.unchanged) assert.deepEqual(stored, created);
      if (c.project) {
        assert.deepEqual(pick(stored, Object.keys(c.project)), c.project);
        assert.equal(stored.updatedAt, LATER_ISO, 'a change moves updatedAt');
      }
    });
  }

  test('rule 4: archived false unarchives, and the project is back in the default list', async () => {
    const created = await createProjectVia(t, { name: 'Round trip' });
    await call(t.app, 'POST', `/projects/${created.id}`, { key: K.aliceAll, body: { archived: true } });
    const hidden = await call(t.app, 'GET', '/projects', { key: K.aliceAll });
    assert.ok(!hidden.json.projects.some((p: Body) => p.id === created.id));
    const res = await call(t.app, 'POST', `/projects/${created.id}`, { key: K.aliceAll, body: { archived: false } });
    assert.equal(res.json.project.status, 'active');
    const shown = await call(t.app, 'GET', '/projects', { key: K.aliceAll });
    assert.ok(shown.json.projects.some((p: Body) => p.id === created.id));
  });

  test("the generated name uses the caller's local date, not UTC", async () => {
    // 23:30 UTC is already the next day in Berlin (alice) and still the same day in New York (bob).
    t.setNow(Date.parse('2026-11-22T23:30:00Z'));
    const alice = await call(t.app, 'POST', '/projects', { key: K.aliceAll, body: {} });
    const bob = await call(t.app, 'POST', '/projects', { key: K.bob, body: { name: '' } });
    t.setNow(DEFAULT_NOW);
    assert.equal(alice.json.project.name, 'New Project 2026-11-23');
    assert.equal(bob.json.project.name, 'New Project 2026-11-22');
  });

  test("a member moving a teammate's project to personal scope hands it to its creator", async () => {
    const created = await createProjectVia(t, { name: 'Handed over', team: 't_eng' }, K.bob);
    const res = await call(t.app, 'POST', `/projects/${created.id}`, { key: K.aliceAll, body: { team: null } });
    assert.equal(res.status, 200);
    assert.deepEqual([res.json.project.teamId, res.json.project.createdBy], [null, 'u_bob']);
    assert.equal((await call(t.app, 'GET', `/projects/${created.id}`, { key: K.aliceAll })).status, 404);
    assert.equal((await call(t.app, 'GET', `/projects/${created.id}`, { key: K.bob })).status, 200);
  });

  test('a validation error comes before the 404 of an unknown project', async () => {
    const invalid = await call(t.app, 'POST', '/projects/p_nope', { key: K.aliceAll, body: { color: 'blue' } });
    assert.deepEqual([invalid.status, invalid.json.error], [400, 'Invalid color value']);
    const valid = await call(t.app, 'POST', '/projects/p_nope', { key: K.aliceAll, body: { color: '#FFB623' } });
    assert.deepEqual(
      [valid.status, valid.json],
      [404, { success: false, error: 'Project not found', message: 'Project not found' }],
    );
  });
});
