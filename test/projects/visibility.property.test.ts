/**
 * Property: over random teams, memberships, projects and request sequences, no caller ever sees
 * or changes a project outside its visibility set (docs/api.md, "/projects"), and list, get, update, the
 * deprecated list, the storage query and the policy function all agree on that set.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { importDataset } from '../../src/dataset/import.ts';
import { canSeeProject, loadViewer, visibleProjectIds } from '../../src/services/projects/access.ts';
import { DEFAULT_NOW, type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';

const USERS = 4;
const MAX_TEAMS = 3;
const MAX_PROJECTS = 6;

type Membership = 'none' | 'active' | 'inactive';

interface WorldSpec {
  teams: Membership[][];
  projects: { creator: number; team: number | null; archived: boolean }[];
}

/** A project index past the world's projects stands for an id that does not exist. */
type Action =
  | { kind: 'list'; user: number }
  | { kind: 'get'; user: number; project: number }
  | { kind: 'touch'; user: number; project: number }
  | { kind: 'move'; user: number; project: number; team: number | null }
  | { kind: 'archive'; user: number; project: number; archived: boolean };

const userArb = fc.integer({ min: 0, max: USERS - 1 });
const projectArb = fc.integer({ min: 0, max: MAX_PROJECTS });

const worldArb: fc.Arbitrary<WorldSpec> = fc
  .array(fc.array(fc.constantFrom<Membership>('none', 'active', 'inactive'), { minLength: USERS, maxLength: USERS }), {
    maxLength: MAX_TEAMS,
  })
  .chain((teams) =>
    fc.record({
      teams: fc.constant(teams),
      projects: fc.array(
        fc.record({
          creator: userArb,
          team: teams.length === 0 ? fc.constant(null) : fc.option(fc.integer({ min: 0, max: teams.length - 1 })),
          archived: fc.boolean(),
        }),
        { minLength: 1, maxLength: MAX_PROJECTS },
      ),
    }),
  );

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('list' as const), user: userArb }),
  fc.record({ kind: fc.constant('get' as const), user: userArb, project: projectArb }),
  fc.record({ kind: fc.constant('touch' as const), user: userArb, project: projectArb }),
  fc.record({
    kind: fc.constant('move' as const),
    user: userArb,
    project: projectArb,
    team: fc.option(fc.integer({ min: 0, max: MAX_TEAMS })),
  }),
  fc.record({ kind: fc.constant('archive' as const), user: userArb, project: projectArb, archived: fc.boolean() }),
);

/** The state the server should be in, kept by the test alongside the requests. */
class Model {
  readonly prefix: string;
  readonly spec: WorldSpec;
  readonly projects: { team: number | null; archived: boolean; description: string | null; creator: number }[];

  constructor(prefix: string, spec: WorldSpec) {
    this.prefix = prefix;
    this.spec = spec;
    this.projects = spec.projects.map((p) => ({ ...p, description: null }));
  }

  userId = (u: number) => `${this.prefix}u${u}`;
  key = (u: number) => `dbk_prop_${this.prefix}u${u}_0123456789abcdef`;
  teamId = (team: number) => `${this.prefix}t${team}`;
  projectId = (p: number) => (p < this.projects.length ? `${this.prefix}p${p}` : `${this.prefix}p_missing`);

  isActive(user: number, team: number): boolean {
    return this.spec.teams[team]?.[user] === 'active';
  }

  sees(user: number, p: number): boolean {
    const project = this.projects[p];
    if (!project) return false;
    return project.team === null ? project.creator === user : this.isActive(user, project.team);
  }

  visibleIds(user: number, includeArchived: boolean): string[] {
    return this.projects
      .map((_, p) => p)
      .filter((p) => this.sees(user, p) && (includeArchived || !this.projects[p]!.archived))
      .map(this.projectId)
      .sort();
  }

  dataset() {
    return {
      version: 1,
      users: Array.from({ length: USERS }, (_, u) => ({
        id: this.userId(u),
        email: `${this.userId(u)}@prop.example`,
        handle: this.userId(u),
        plan: 'core',
      })),
      teams: this.spec.teams.map((members, t) => ({
        id: this.teamId(t),
        name: `Team ${this.prefix}${t}`,
        members: members.flatMap((status, u) => (status === 'none' ? [] : [{ userId: this.userId(u), status }])),
      })),
      projects: this.spec.projects.map((p, i) => ({
        id: this.projectId(i),
        name: `Project ${i}`,
        teamId: p.team === null ? null : this.teamId(p.team),
        createdBy: this.userId(p.creator),
        archived: p.archived,
        createdAt: new Date(Date.UTC(2026, 9, 1 + i)).toISOString(),
      })),
      apiKeys: Array.from({ length: USERS }, (_, u) => ({
        userId: this.userId(u),
        name: 'prop',
        key: this.key(u),
        scopes: ['projects:read', 'projects:write'],
      })),
    };
  }
}

const NOT_FOUND = { success: false, error: 'Project not found', message: 'Project not found' };
const sortedIds = (projects: { id: string }[]) => projects.map((p) => p.id).sort();

forEachDialect('project visibility (property)', (dialect) => {
  let t: TestApp;
  let run = 0;
  before(async () => {
    t = await createTestApp(dialect, { dataset: null });
  });
  after(() => t.close());

  async function load(spec: WorldSpec): Promise<Model> {
    const model = new Model(`${dialect[0]}${run++}_`, spec);
    const file = join(tmpdir(), `daybook-visibility-${dialect}-${process.pid}.json`);
    await writeFile(file, JSON.stringify(model.dataset()));
    await importDataset(t.storage, file, { now: () => DEFAULT_NOW });
    return model;
  }

  /** Every way of asking "which projects can this user see" gives the model's answer. */
  async function checkAgreement(model: Model, user: number): Promise<void> {
    const key = model.key(user);
    const all = await call(t.app, 'GET', '/projects?includeArchived=true', { key });
    assert.deepEqual(sortedIds(all.json.projects), model.visibleIds(user, true), 'list with archived');
    const active = await call(t.app, 'GET', '/projects', { key });
    assert.deepEqual(sortedIds(active.json.projects), model.visibleIds(user, false), 'default list');
    const legacy = await call(t.app, 'POST', '/project', { key, body: { operation: 'list', archived: true } });
    assert.deepEqual(legacy.json.projects, all.json.projects, 'deprecated list');
    const stored = await visibleProjectIds(t.storage.db, model.userId(user));
    assert.deepEqual([...stored].sort(), model.visibleIds(user, true), 'visibleProjectIds');
    const named = [...model.projects.keys(), model.projects.length].map(model.projectId);
    const among = await visibleProjectIds(t.storage.db, model.userId(user), named);
    assert.deepEqual([...among].sort(), model.visibleIds(user, true), 'visibleProjectIds among named ids');
    const viewer = await loadViewer(t.storage.db, model.userId(user));
    for (let p = 0; p < model.projects.length; p++) {
      const project = model.projects[p]!;
      const scope = {
        teamId: project.team === null ? null : model.teamId(project.team),
        createdBy: model.userId(project.creator),
      };
      assert.equal(canSeeProject(scope, viewer), model.sees(user, p), `canSeeProject ${model.projectId(p)}`);
      const got = await call(t.app, 'GET', `/projects/${model.projectId(p)}`, { key });
      assert.equal(got.status, model.sees(user, p) ? 200 : 404, `GET ${model.projectId(p)}`);
    }
  }

  /** The stored projects are exactly what the model allowed to happen. */
  async function checkStored(model: Model): Promise<void> {
    const rows = await t.storage.db
      .selectFrom('projects')
      .select(['id', 'team_id', 'archived', 'description'])
      .where('id', 'like', `${model.prefix}%`)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      rows.map((r) => ({ id: r.id, team: r.team_id, archived: Boolean(r.archived), description: r.description })),
      model.projects.map((p, i) => ({
        id: model.projectId(i),
        team: p.team === null ? null : model.teamId(p.team),
        archived: p.archived,
        description: p.description,
      })),
    );
  }

  async function apply(model: Model, action: Action, step: number): Promise<void> {
    if (action.kind === 'list') return checkAgreement(model, action.user);
    const key = model.key(action.user);
    const id = model.projectId(action.project);
    const sees = model.sees(action.user, action.project);
    const project = model.projects[action.project];
    const label = `${action.kind} ${id} by u${action.user}`;

    if (action.kind === 'get') {
      const res = await call(t.app, 'GET', `/projects/${id}`, { key });
      if (sees) assert.deepEqual([res.status, res.json.project.id], [200, id], label);
      else assert.deepEqual([res.status, res.json], [404, NOT_FOUND], label);
      return;
    }

    let body: Record<string, unknown>;
    let allowed = sees;
    let refusal: [number, unknown] = [404, NOT_FOUND];
    if (action.kind === 'touch') body = { description: `step ${step} by u${action.user}` };
    else if (action.kind === 'archive') body = { archived: action.archived };
    else {
      const team = action.team === null ? null : action.team < model.spec.teams.length ? action.team : null;
      const teamValue = action.team === null ? null : team === null ? `${model.prefix}t_missing` : model.teamId(team);
      body = { team: teamValue };
      if (sees && teamValue !== null && (team === null || !model.isActive(action.user, team))) {
        allowed = false;
        refusal = [
          400,
          { success: false, error: `Team not found: "${teamValue}"`, message: `Team not found: "${teamValue}"` },
        ];
      }
    }

    const res = await call(t.app, 'POST', `/projects/${id}`, { key, body });
    if (!allowed) {
      assert.deepEqual([res.status, res.json], refusal, label);
      return;
    }
    assert.equal(res.status, 200, `${label}: ${res.body}`);
    if (action.kind === 'touch') project!.description = body.description as string;
    if (action.kind === 'archive') project!.archived = action.archived;
    if (action.kind === 'move') project!.team = action.team;
  }

  test('list, get, update and the policy agree, and nobody reaches past its set', async () => {
    await fc.assert(
      fc.asyncProperty(worldArb, fc.array(actionArb, { minLength: 1, maxLength: 12 }), async (spec, actions) => {
        const model = await load(spec);
        for (const [step, action] of actions.entries()) await apply(model, action, step);
        await checkStored(model);
        for (let u = 0; u < USERS; u++) await checkAgreement(model, u);
      }),
      { numRuns: 30 },
    );
  });
});
