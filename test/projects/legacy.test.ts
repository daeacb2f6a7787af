/** The deprecated operation-based `POST /project` (api.md, docs/api.md, "POST /project (deprecated)"), over real HTTP. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestApp, call, forEachDialect } from '../helper.ts';
import { PROJECT_KEYS as K, createProjectVia, createProjectsApp } from './world.ts';

type Body = Record<string, unknown>;

const legacy = (t: TestApp, body: Body | undefined, key: string = K.aliceAll) =>
  call(t.app, 'POST', '/project', { key, body });
const read = async (t: TestApp, id: string) =>
  (await call(t.app, 'GET', `/projects/${id}`, { key: K.aliceAll })).json.project;

interface FailureCase {
  rule: string;
  body: Body;
  status: number;
  error: string;
}

const failures: FailureCase[] = [
  { rule: 'create without name', body: { operation: 'create' }, status: 400, error: 'name is required' },
  {
    rule: 'create with an empty name',
    body: { operation: 'create', name: '' },
    status: 400,
    error: 'name is required',
  },
  {
    rule: 'create with a blank name',
    body: { operation: 'create', name: '   ' },
    status: 400,
    error: 'name is required',
  },
  {
    rule: 'create with a null name',
    body: { operation: 'create', name: null },
    status: 400,
    error: 'name is required',
  },
  {
    rule: 'name over 100 characters',
    body: { operation: 'create', name: 'n'.repeat(101) },
    status: 400,
    error: 'name must be at most 100 characters',
  },
  {
    rule: 'description over 2000 characters',
    body: { operation: 'create', name: 'x', description: 'd'.repeat(2001) },
    status: 400,
    error: 'description must be at most 2000 characters',
  },
  {
    rule: 'color over 100 characters names the field',
    body: { operation: 'create', name: 'x', color: '#'.repeat(101) },
    status: 400,
    error: 'color must be at most 100 characters',
  },
  {
    rule: 'color outside the set',
    body: { operation: 'create', name: 'x', color: 'blue' },
    status: 400,
    error: 'Invalid color value',
  },
  {
    rule: 'team not reachable',
    body: { operation: 'create', name: 'x', team: 'Ops' },
    status: 400,
    error: 'Team not found: "Ops"',
  },
  {
    rule: 'portfolio not usable',
    body: { operation: 'create', name: 'x', portfolio: 'Bob Home' },
    status: 400,
    error: 'Portfolio not found: "Bob Home"',
  },
  { rule: 'update without id', body: { operation: 'update', name: 'x' }, status: 400, error: 'id is required' },
  { rule: 'archive without id', body: { operation: 'archive' }, status: 400, error: 'id is required' },
  {
    rule: 'update of an unknown project',
    body: { operation: 'update', id: 'p_nope', name: 'x' },
    status: 404,
    error: 'Project not found',
  },
  {
    rule: 'update of a project outside visibility',
    body: { operation: 'update', id: 'p_ops', name: 'x' },
    status: 404,
    error: 'Project not found',
  },
  {
    rule: 'archive of a project outside visibility',
    body: { operation: 'archive', id: 'p_bob_own' },
    status: 404,
    error: 'Project not found',
  },
  {
    rule: 'confidential on update',
    body: { operation: 'update', id: 'p_api', confidential: true },
    status: 400,
    error: 'confidential cannot be changed through the API',
  },
  {
    rule: 'delete is refused',
    body: { operation: 'delete', id: 'p_api' },
    status: 403,
    error: 'Deleting projects is not available through the API.',
  },
  {
    rule: 'delete of an unknown id is refused the same',
    body: { operation: 'delete', id: 'p_nope' },
    status: 403,
    error: 'Deleting projects is not available through the API.',
  },
  {
    rule: 'unknown operation',
    body: { operation: 'remove', id: 'p_api' },
    status: 400,
    error: 'operation must be one of: list, create, update, delete, archive',
  },
  {
    rule: 'archived must be a boolean',
    body: { operation: 'list', archived: 'yes' },
    status: 400,
    error: 'archived must be of type boolean',
  },
];

forEachDialect('POST /project (deprecated)', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createProjectsApp(dialect);
  });
  after(() => t.close());

  for (const c of failures) {
    test(`${c.rule}: ${c.status} ${c.error}`, async () => {
      const before = await call(t.app, 'GET', '/projects?includeArchived=true', { key: K.aliceAll });
      const res = await legacy(t, c.body);
      assert.deepEqual([res.status, res.json], [c.status, { success: false, error: c.error, message: c.error }]);
      const after = await call(t.app, 'GET', '/projects?includeArchived=true', { key: K.aliceAll });
      assert.deepEqual(after.json, before.json, 'a failed operation changes nothing');
    });
  }

  test('an empty body, no body and operation list all list the same project objects as /projects', async () => {
    const modern = await call(t.app, 'GET', '/projects', { key: K.aliceAll });
    for (const body of [{}, undefined, { operation: 'list' }, { operation: 'list', archived: false }]) {
      const res = await legacy(t, body);
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, { success: true, projects: modern.json.projects }, JSON.stringify(body));
    }
  });

  test('list with archived: true includes archived projects', async () => {
    const modern = await call(t.app, 'GET', '/projects?includeArchived=true', { key: K.aliceAll });
    const res = await legacy(t, { operation: 'list', archived: true });
    assert.deepEqual(res.json, { success: true, projects: modern.json.projects });
    assert.ok(res.json.projects.some((p: Body) => p.id === 'p_old'));
  });

  test('create answers 200 with message and projectId, and the project has every given field', async () => {
    const res = await legacy(t, {
      operation: 'create',
      name: 'Legacy made',
      description: 'from an old integration',
      color: '#845EC2',
      team: ' Engineering ',
      portfolio: 'Q4 Bets',
      private: true,
      confidential: true,
    });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.json).sort(), ['message', 'projectId', 'success']);
    assert.equal(res.json.success, true);
    assert.equal(typeof res.json.message, 'string');
    const project = await read(t, res.json.projectId);
    assert.deepEqual(
      [
        project.name,
        project.description,
        project.color,
        project.teamId,
        project.portfolioId,
        project.private,
        project.confidential,
        project.status,
      ],
      ['Legacy made', 'from an old integration', '#845EC2', 't_eng', 'pf_bets', true, true, 'active'],
    );
  });

  test('create with "" for optional strings leaves them empty', async () => {
    const res = await legacy(t, {
      operation: 'create',
      name: 'Bare',
      description: '',
      color: '',
      team: '',
      portfolio: '',
    });
    const project = await read(t, res.json.projectId);
    assert.deepEqual(
      [project.description, project.color, project.teamId, project.portfolioId],
      [null, null, null, null],
    );
  });

  test('update: omitted fields stay, "" and null clear string fields', async () => {
    const created = await createProjectVia(t, {
      name: 'To clear',
      description: 'text',
      color: '#FFB623',
      team: 't_eng',
      portfolio: 'pf_bets',
    });
    const kept = await legacy(t, { operation: 'update', id: created.id, private: true });
    assert.deepEqual(
      [kept.status, kept.json],
      [200, { success: true, message: kept.json.message, projectId: created.id }],
    );
    assert.equal(typeof kept.json.message, 'string');
    const afterKeep = await read(t, created.id);
    assert.deepEqual(
      [afterKeep.name, afterKeep.description, afterKeep.color, afterKeep.private],
      ['To clear', 'text', '#FFB623', true],
    );

    await legacy(t, { operation: 'update', id: created.id, description: '', color: null, portfolio: '' });
    const cleared = await read(t, created.id);
    assert.deepEqual(
      [cleared.description, cleared.color, cleared.portfolioId, cleared.teamId],
      [null, null, null, 't_eng'],
    );

    await legacy(t, { operation: 'update', id: created.id, team: '' });
    assert.equal((await read(t, created.id)).teamId, null);
  });

  test('update: a team change resets contributorIds', async () => {
    const created = await createProjectVia(t, { name: 'Contributors', team: 't_eng', contributorIds: ['bob'] });
    await legacy(t, { operation: 'update', id: created.id, team: 't_design' });
    const project = await read(t, created.id);
    assert.deepEqual([project.teamId, project.contributorIds], ['t_design', null]);
  });

  test('update: name cannot be cleared', async () => {
    const res = await legacy(t, { operation: 'update', id: 'p_api', name: '' });
    assert.deepEqual(
      [res.status, res.json],
      [400, { success: false, error: 'name must not be empty', message: 'name must not be empty' }],
    );
  });

  test('archive defaults to archived: true; archived: false unarchives', async () => {
    const created = await createProjectVia(t, { name: 'Archive me' });
    const archived = await legacy(t, { operation: 'archive', id: created.id });
    assert.equal(archived.status, 200);
    assert.deepEqual(Object.keys(archived.json).sort(), ['message', 'success']);
    assert.equal((await read(t, created.id)).status, 'archived');
    const listed = await legacy(t, {});
    assert.ok(!listed.json.projects.some((p: Body) => p.id === created.id));

    const restored = await legacy(t, { operation: 'archive', id: created.id, archived: false });
    assert.deepEqual(Object.keys(restored.json).sort(), ['message', 'success']);
    assert.equal((await read(t, created.id)).status, 'active');
  });

  test('needs projects:write even to list, and the Core plan', async () => {
    const scope = await legacy(t, {}, K.aliceReadOnly);
    assert.deepEqual(
      [scope.status, scope.json],
      [
        403,
        {
          success: false,
          error: 'API key missing required scope: projects:write',
          message: 'API key missing required scope: projects:write',
        },
      ],
    );
    const plan = await legacy(t, {}, K.frankFree);
    assert.deepEqual(
      [plan.status, plan.json],
      [
        403,
        {
          success: false,
          error: 'This endpoint requires the Core plan or higher.',
          message: 'This endpoint requires the Core plan or higher.',
        },
      ],
    );
  });

  test('every answer, success or failure, carries Deprecation and a Link to /projects (RFC 9745)', async () => {
    const answers = [
      await legacy(t, {}),
      await legacy(t, { operation: 'create', name: 'Deprecated but working' }),
      await legacy(t, { operation: 'create' }),
      await legacy(t, { operation: 'update', id: 'p_nope', name: 'x' }),
      await legacy(t, { operation: 'delete', id: 'p_api' }),
      await legacy(t, {}, K.aliceReadOnly),
      await legacy(t, {}, K.frankFree),
      await call(t.app, 'POST', '/project', { body: {} }),
      await call(t.app, 'POST', '/project', {
        key: K.aliceAll,
        body: '{"operation":',
        headers: { 'content-type': 'application/json' },
      }),
      await call(t.app, 'POST', '/project', {
        key: K.aliceAll,
        body: 'operation=list',
        headers: { 'content-type': 'text/plain' },
      }),
      await legacy(t, { operation: 'create', name: 'x', description: 'd'.repeat(1024 * 1024) }),
    ];
    assert.deepEqual(
      answers.map((res) => res.status),
      [200, 200, 400, 404, 403, 403, 403, 401, 400, 415, 413],
    );
    for (const res of answers) {
      assert.equal(res.headers.deprecation, '@1795305600', `${res.status} ${res.body}`);
      assert.equal(res.headers.link, '</projects>; rel="successor-version"', `${res.status} ${res.body}`);
    }
    const successor = await call(t.app, 'GET', '/projects', { key: K.aliceAll });
    assert.deepEqual(
      [successor.status, successor.headers.deprecation, successor.headers.link],
      [200, undefined, undefined],
    );
  });

  test('other methods are 405', async () => {
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await call(t.app, method, '/project', { key: K.aliceAll });
      assert.deepEqual(
        [res.status, res.json],
        [405, { success: false, error: 'Method Not Allowed', message: 'Method Not Allowed' }],
        method,
      );
    }
  });
});
