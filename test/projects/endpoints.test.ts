/**
 * `GET /projects`, `GET /projects/:id`, `DELETE /projects/:id` and the HTTP rules around them:
 * defaults, sorting, archived projects, usedAt, visibility, scopes, plans and 405s.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import { DEFAULT_NOW, type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';
import { PROJECT_KEYS as K, createProjectsApp } from './world.ts';

const ids = (res: { json: { projects: { id: string }[] } }) => res.json.projects.map((p) => p.id);

forEachDialect('GET /projects', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createProjectsApp(dialect);
  });
  after(() => t.close());

  test('no parameters: active visible projects, newest createdAt first', async () => {
    const res = await call(t.app, 'GET', '/projects', { key: K.aliceAll });
    assert.equal(res.status, 200);
    assert.equal(res.json.success, true);
    assert.deepEqual(ids(res), ['p_secret', 'p_garden', 'p_onb', 'p_api']);
  });

  test('sort=createdAt and includeArchived=false are the defaults', async () => {
    const res = await call(t.app, 'GET', '/projects?sort=createdAt&includeArchived=false', { key: K.aliceAll });
    assert.deepEqual(ids(res), ['p_secret', 'p_garden', 'p_onb', 'p_api']);
  });

  test('includeArchived=true adds archived projects', async () => {
    const res = await call(t.app, 'GET', '/projects?includeArchived=true', { key: K.aliceAll });
    assert.deepEqual(ids(res), ['p_secret', 'p_garden', 'p_onb', 'p_api', 'p_old']);
    assert.equal(res.json.projects.at(-1).status, 'archived');
  });

  test('sort=usedAt: most recently used first, never-used last', async () => {
    const res = await call(t.app, 'GET', '/projects?sort=usedAt&includeArchived=true', { key: K.aliceAll });
    assert.deepEqual(ids(res), ['p_secret', 'p_api', 'p_garden', 'p_onb', 'p_old']);
    assert.equal(res.json.projects.at(-1).usedAt, null);
  });

  test('sort=updatedAt: null values last, ties by id; an update moves a project to the front', async () => {
    const before = await call(t.app, 'GET', '/projects?sort=updatedAt', { key: K.bob });
    assert.deepEqual(ids(before), ['p_api', 'p_bob_own', 'p_onb', 'p_secret']);
    await call(t.app, 'POST', '/projects/p_secret', { key: K.bob, body: { description: 'touched' } });
    const res = await call(t.app, 'GET', '/projects?sort=updatedAt', { key: K.bob });
    assert.deepEqual(ids(res), ['p_secret', 'p_api', 'p_bob_own', 'p_onb']);
    assert.equal(res.json.projects[0].updatedAt, new Date(DEFAULT_NOW).toISOString());
  });

  test("each caller sees its own personal projects and its active teams' projects only", async () => {
    assert.deepEqual(ids(await call(t.app, 'GET', '/projects?includeArchived=true', { key: K.bob })), [
      'p_bob_own',
      'p_secret',
      'p_onb',
      'p_api',
    ]);
    // dave is active in Ops but inactive in Engineering.
    assert.deepEqual(ids(await call(t.app, 'GET', '/projects?includeArchived=true', { key: K.dave })), ['p_ops']);
    assert.deepEqual(ids(await call(t.app, 'GET', '/projects?includeArchived=true', { key: K.erin })), []);
  });

  test('invalid query parameters are 400 naming the parameter', async () => {
    const sort = await call(t.app, 'GET', '/projects?sort=name', { key: K.aliceAll });
    assert.deepEqual(
      [sort.status, sort.json],
      [
        400,
        {
          success: false,
          error: 'sort must be one of: createdAt, updatedAt, usedAt',
          message: 'sort must be one of: createdAt, updatedAt, usedAt',
        },
      ],
    );
    for (const value of ['yes', '1', '']) {
      const res = await call(t.app, 'GET', `/projects?includeArchived=${value}`, { key: K.aliceAll });
      assert.deepEqual([res.status, res.json.error], [400, 'includeArchived must be of type boolean'], value);
    }
  });
});

forEachDialect('GET /projects/:id', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createProjectsApp(dialect);
  });
  after(() => t.close());

  test('returns every field of the project', async () => {
    const res = await call(t.app, 'GET', '/projects/p_api', { key: K.aliceReadOnly });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      success: true,
      project: {
        id: 'p_api',
        name: 'Public API',
        description: 'The HTTP API',
        color: '#6C63FF',
        portfolioId: 'pf_bets',
        teamId: 't_eng',
        private: false,
        confidential: false,
        contributorIds: null,
        status: 'active',
        createdAt: '2026-10-01T08:00:00.000Z',
        updatedAt: null,
        usedAt: '2026-11-18T14:20:00.000Z',
        createdBy: 'u_alice',
        updatedBy: 'u_alice',
      },
    });
  });

  test('contributorIds are user ids; updatedBy of a never-updated project is its creator', async () => {
    const res = await call(t.app, 'GET', '/projects/p_onb', { key: K.aliceAll });
    assert.deepEqual(
      [res.json.project.contributorIds, res.json.project.createdBy, res.json.project.updatedBy],
      [['u_alice'], 'u_bob', 'u_bob'],
    );
  });

  test('an archived project is readable by id', async () => {
    const res = await call(t.app, 'GET', '/projects/p_old', { key: K.aliceAll });
    assert.deepEqual([res.status, res.json.project.status], [200, 'archived']);
  });

  test("a project outside the caller's visibility is the same 404 as an unknown id", async () => {
    const expected = { success: false, error: 'Project not found', message: 'Project not found' };
    for (const [key, id] of [
      [K.bob, 'p_garden'], // alice's personal project
      [K.bob, 'p_old'],
      [K.dave, 'p_api'], // inactive membership in Engineering
      [K.aliceAll, 'p_ops'], // a team alice is not in
      [K.aliceAll, 'p_ghost'], // a team where alice's membership is inactive
      [K.aliceAll, 'p_bob_own'],
      [K.aliceAll, 'p_does_not_exist'],
    ] as const) {
      const res = await call(t.app, 'GET', `/projects/${id}`, { key });
      assert.deepEqual([res.status, res.json], [404, expected], `${id}`);
    }
  });

  test("usedAt is the start of the latest activity of the project (own project before the task's)", async () => {
    const file = join(tmpdir(), `daybook-usedat-${dialect}-${process.pid}.ndjson`);
    await writeFile(
      file,
      [
        // On a p_api task but logged to p_garden itself: counts for p_garden only.
        {
          type: 'activity',
          id: 'a_used_1',
          userId: 'u_alice',
          start: '2026-11-21T10:00:00Z',
          durationMinutes: 5,
          headline: 'x',
          taskId: 'k_alice_0_0',
          projectId: 'p_garden',
        },
        {
          type: 'activity',
          id: 'a_used_2',
          userId: 'u_bob',
          start: '2026-11-20T09:00:00Z',
          durationMinutes: 5,
          headline: 'y',
          taskId: 'k_bob_0_0',
        },
      ]
        .map((r) => JSON.stringify(r))
        .join('\n'),
    );
    await importDataset(t.storage, file, { now: () => DEFAULT_NOW });
    const garden = await call(t.app, 'GET', '/projects/p_garden', { key: K.aliceAll });
    const api = await call(t.app, 'GET', '/projects/p_api', { key: K.aliceAll });
    assert.equal(garden.json.project.usedAt, '2026-11-21T10:00:00.000Z');
    assert.equal(api.json.project.usedAt, '2026-11-20T09:00:00.000Z');
  });
});

forEachDialect('/projects methods, scopes and plans', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createProjectsApp(dialect);
  });
  after(() => t.close());

  test('DELETE /projects/:id is refused with 403, whether or not the project exists', async () => {
    const expected = {
      success: false,
      error: 'Deleting projects is not available through the API.',
      message: 'Deleting projects is not available through the API.',
    };
    for (const id of ['p_api', 'p_ops', 'p_nope']) {
      const res = await call(t.app, 'DELETE', `/projects/${id}`, { key: K.aliceAll });
      assert.deepEqual([res.status, res.json], [403, expected], id);
    }
    assert.equal((await call(t.app, 'GET', '/projects/p_api', { key: K.aliceAll })).status, 200);
  });

  test('DELETE /projects/:id needs projects:write first', async () => {
    const res = await call(t.app, 'DELETE', '/projects/p_api', { key: K.aliceReadOnly });
    assert.deepEqual(
      [res.status, res.json],
      [
        403,
        {
          success: false,
          error: 'API key missing required scope: projects:write',
          message: 'API key missing required scope: projects:write',
        },
      ],
    );
    assert.equal((await call(t.app, 'DELETE', '/projects/p_api')).status, 401);
  });

  for (const [method, url] of [
    ['PUT', '/projects'],
    ['PATCH', '/projects'],
    ['DELETE', '/projects'],
    ['PUT', '/projects/p_api'],
    ['PATCH', '/projects/p_api'],
  ] as const) {
    test(`${method} ${url} is 405 Method Not Allowed`, async () => {
      const res = await call(t.app, method, url, { key: K.aliceAll, body: { name: 'x' } });
      assert.deepEqual(
        [res.status, res.json],
        [405, { success: false, error: 'Method Not Allowed', message: 'Method Not Allowed' }],
      );
    });
  }

  test('projects:read lists and reads but cannot write', async () => {
    assert.equal((await call(t.app, 'GET', '/projects', { key: K.aliceReadOnly })).status, 200);
    assert.equal((await call(t.app, 'GET', '/projects/p_api', { key: K.aliceReadOnly })).status, 200);
    const missing = {
      success: false,
      error: 'API key missing required scope: projects:write',
      message: 'API key missing required scope: projects:write',
    };
    for (const url of ['/projects', '/projects/p_api']) {
      const res = await call(t.app, 'POST', url, { key: K.aliceReadOnly, body: { name: 'nope' } });
      assert.deepEqual([res.status, res.json], [403, missing], url);
    }
    const list = await call(t.app, 'GET', '/projects', { key: K.aliceReadOnly });
    assert.ok(!list.json.projects.some((p: { name: string }) => p.name === 'nope'));
  });

  test('projects:write also grants the reads', async () => {
    assert.equal((await call(t.app, 'GET', '/projects', { key: K.bob })).status, 200);
    assert.equal((await call(t.app, 'GET', '/projects/p_api', { key: K.bob })).status, 200);
  });

  test('a key without project scopes gets 403 naming projects:read', async () => {
    const res = await call(t.app, 'GET', '/projects', { key: K.carolFree });
    assert.deepEqual([res.status, res.json.error], [403, 'API key missing required scope: projects:read']);
  });

  test('a free-plan key gets 403 on every /projects route', async () => {
    const expected = {
      success: false,
      error: 'This endpoint requires the Core plan or higher.',
      message: 'This endpoint requires the Core plan or higher.',
    };
    for (const [method, url] of [
      ['GET', '/projects'],
      ['GET', '/projects/p_api'],
      ['POST', '/projects'],
      ['POST', '/projects/p_api'],
      ['DELETE', '/projects/p_api'],
    ] as const) {
      const res = await call(t.app, method, url, { key: K.frankFree, body: method === 'POST' ? {} : undefined });
      assert.deepEqual([res.status, res.json], [403, expected], `${method} ${url}`);
    }
  });
});

forEachDialect('project access and the key cache', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { config: { keyCacheMs: 2000 } });
  });
  after(() => t.close());

  test('a team membership given up reaches project access once the cache time has passed', async () => {
    const cachedAt = Date.parse('2026-11-22T13:00:00Z');
    t.setNow(cachedAt);
    assert.equal((await call(t.app, 'GET', '/projects/p_api', { key: K.aliceAll })).status, 200);
    await t.storage.db
      .updateTable('team_members')
      .set({ status: 'inactive' })
      .where('team_id', '=', 't_eng')
      .where('user_id', '=', 'u_alice')
      .execute();
    t.setNow(cachedAt + 2001);
    const read = await call(t.app, 'GET', '/projects/p_api', { key: K.aliceAll });
    assert.deepEqual([read.status, read.json.error], [404, 'Project not found']);
    const update = await call(t.app, 'POST', '/projects/p_api', { key: K.aliceAll, body: { description: 'gone' } });
    assert.deepEqual([update.status, update.json.error], [404, 'Project not found']);
    const create = await call(t.app, 'POST', '/projects', { key: K.aliceAll, body: { team: 'Engineering' } });
    assert.deepEqual([create.status, create.json.error], [400, 'Team not found: "Engineering"']);
  });
});
