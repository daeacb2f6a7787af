/**
 * The request sequence a typical integration replays on every sync: list with archived projects,
 * find by exact name, update it or create it, read it back by id, archive it. Running the sync
 * twice must find the same project again, never create a duplicate.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestApp, call, forEachDialect } from '../helper.ts';
import { PROJECT_KEYS as K, createProjectsApp } from './world.ts';

interface Project {
  id: string;
  name: string;
  description: string | null;
  color: string | null;
  teamId: string | null;
  status: string;
}

/** One sync over `/projects` as an integration writes it. Returns the project's id. */
async function syncWithProjects(t: TestApp, key: string, name: string, fields: Record<string, unknown>) {
  const list = await call(t.app, 'GET', '/projects?includeArchived=true', { key });
  assert.equal(list.status, 200);
  const existing = (list.json.projects as Project[]).find((p) => p.name === name);
  let id: string;
  if (existing) {
    const updated = await call(t.app, 'POST', `/projects/${existing.id}`, {
      key,
      body: { ...fields, archived: false },
    });
    assert.equal(updated.status, 200, updated.body);
    id = existing.id;
  } else {
    const created = await call(t.app, 'POST', '/projects', { key, body: { name, ...fields } });
    assert.equal(created.status, 201, created.body);
    id = created.json.project.id;
  }
  const read = await call(t.app, 'GET', `/projects/${id}`, { key });
  assert.equal(read.status, 200);
  assert.equal(read.json.project.name, name);
  for (const [field, value] of Object.entries(fields)) {
    if (field !== 'team') assert.deepEqual(read.json.project[field], value, field);
  }
  const archived = await call(t.app, 'POST', `/projects/${id}`, { key, body: { archived: true } });
  assert.deepEqual([archived.status, archived.json.project.status], [200, 'archived']);
  return id;
}

/** The same sync over the deprecated `/project`. */
async function syncWithLegacy(t: TestApp, key: string, name: string, fields: Record<string, unknown>) {
  const list = await call(t.app, 'POST', '/project', { key, body: { operation: 'list', archived: true } });
  const existing = (list.json.projects as Project[]).find((p) => p.name === name);
  let id: string;
  if (existing) {
    const updated = await call(t.app, 'POST', '/project', {
      key,
      body: { operation: 'update', id: existing.id, ...fields },
    });
    assert.deepEqual([updated.status, updated.json.projectId], [200, existing.id]);
    id = existing.id;
  } else {
    const created = await call(t.app, 'POST', '/project', { key, body: { operation: 'create', name, ...fields } });
    assert.equal(created.status, 200, created.body);
    id = created.json.projectId;
  }
  const read = await call(t.app, 'GET', `/projects/${id}`, { key });
  assert.equal(read.json.project.name, name);
  const archived = await call(t.app, 'POST', '/project', { key, body: { operation: 'archive', id } });
  assert.equal(archived.status, 200);
  return id;
}

const named = (projects: Project[], name: string) => projects.filter((p) => p.name === name);

forEachDialect('integration sync sequence', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createProjectsApp(dialect);
  });
  after(() => t.close());

  test('an existing archived project is found by exact name, revived, updated, read and archived again', async () => {
    const id = await syncWithProjects(t, K.aliceAll, 'Legacy migration', { description: 'synced', color: '#00B8A9' });
    assert.equal(id, 'p_old');
    const project = (await call(t.app, 'GET', '/projects/p_old', { key: K.aliceAll })).json.project;
    assert.deepEqual([project.description, project.color, project.status], ['synced', '#00B8A9', 'archived']);
  });

  test('a missing project is created the first time and found, not duplicated, the second time', async () => {
    const fields = { description: 'client work', color: '#FF9F1C', team: 'Engineering' };
    const first = await syncWithProjects(t, K.aliceAll, 'Client portal', fields);
    const second = await syncWithProjects(t, K.aliceAll, 'Client portal', { ...fields, description: 'second sync' });
    assert.equal(second, first);
    const all = await call(t.app, 'GET', '/projects?includeArchived=true', { key: K.aliceAll });
    assert.equal(named(all.json.projects, 'Client portal').length, 1);
    const active = await call(t.app, 'GET', '/projects', { key: K.aliceAll });
    assert.equal(named(active.json.projects, 'Client portal').length, 0, 'archived at the end of the sync');
    // A teammate's integration finds the same team project by name.
    const bob = await syncWithProjects(t, K.bob, 'Client portal', { description: 'bob synced' });
    assert.equal(bob, first);
  });

  test('names match exactly: a differently cased or padded name is another project', async () => {
    const exact = await syncWithProjects(t, K.aliceAll, 'Garden', {});
    assert.equal(exact, 'p_garden');
    const other = await syncWithProjects(t, K.aliceAll, 'garden', {});
    assert.notEqual(other, 'p_garden');
  });

  test('the same sequence over the deprecated /project', async () => {
    const first = await syncWithLegacy(t, K.aliceAll, 'Old-style sync', { description: 'v1', team: 't_eng' });
    const second = await syncWithLegacy(t, K.aliceAll, 'Old-style sync', { description: 'v2' });
    assert.equal(second, first);
    const project = (await call(t.app, 'GET', `/projects/${first}`, { key: K.aliceAll })).json.project;
    assert.deepEqual([project.description, project.teamId, project.status], ['v2', 't_eng', 'archived']);
  });
});
