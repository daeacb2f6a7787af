/**
 * The world of the project tests: the example dataset plus test/fixtures/projects-world.json
 * (a second team named "t_eng", a team where alice's membership is inactive, portfolios alice
 * cannot use, and keys for erin, dave and a free-plan user).
 */
import { join } from 'node:path';
import { importDataset } from '../../src/dataset/import.ts';
import type { Dialect } from '../../src/storage/database.ts';
import { DEFAULT_NOW, KEYS, type TestApp, call, createTestApp, fixturesDir } from '../helper.ts';

const WORLD = join(fixturesDir, 'projects-world.json');

export const PROJECT_KEYS = {
  ...KEYS,
  erin: 'dbk_projects_erin_0123456789abcdef',
  dave: 'dbk_projects_dave_0123456789abcdef',
  frankFree: 'dbk_projects_frank_0123456789abcdef',
} as const;

export async function createProjectsApp(dialect: Dialect): Promise<TestApp> {
  const t = await createTestApp(dialect);
  await importDataset(t.storage, WORLD, { now: () => DEFAULT_NOW });
  return t;
}

/** Creates a project through the API and returns it; fails the test if creation fails. */
export async function createProjectVia(t: TestApp, body: Record<string, unknown>, key: string = KEYS.aliceAll) {
  const res = await call(t.app, 'POST', '/projects', { key, body });
  if (res.status !== 201)
    throw new Error(`setup: POST /projects ${JSON.stringify(body)} gave ${res.status} ${res.body}`);
  return res.json.project as Record<string, unknown> & { id: string };
}
