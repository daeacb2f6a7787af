import { after, before } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import type { Dialect } from '../../src/storage/database.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import { DEFAULT_NOW, type TestApp, type TestDatabase, createTestApp, createTestDatabase } from '../helper.ts';

/** The users, teams, projects and keys the recording tests write as and against. */
export const ALICE = 'dbk_test_recording_alice_0123456789abcdef';
export const ALICE_NO_WRITE = 'dbk_test_recording_alice_nowrite_0123456789';
export const BOB = 'dbk_test_recording_bob_0123456789abcdef01';
export const CAROL_FREE = 'dbk_test_recording_carol_0123456789abcdef';
const READS = ['reports:read', 'summaries:read', 'projects:read', 'projects:write', 'search:read', 'user:read'];

export const world = {
  version: 1,
  users: [
    { id: 'u_alice', email: 'alice@example.com', plan: 'core', timezone: 'Europe/Berlin' },
    { id: 'u_bob', email: 'bob@example.com', plan: 'pro' },
    { id: 'u_carol', email: 'carol@example.com', plan: 'free' },
    { id: 'u_dave', email: 'dave@example.com', plan: 'core' },
  ],
  teams: [
    {
      id: 't_eng',
      name: 'Engineering',
      members: [
        { userId: 'u_alice', status: 'active' },
        { userId: 'u_bob', status: 'active' },
      ],
    },
    { id: 't_ops', name: 'Ops', members: [{ userId: 'u_dave', status: 'active' }] },
  ],
  categories: [
    { id: 'c_focus', name: 'Focus work' },
    { id: 'c_meet', name: 'Meetings' },
  ],
  projects: [
    { id: 'p_team', name: 'Team project', teamId: 't_eng', createdBy: 'u_bob' },
    { id: 'p_bobonly', name: 'Bob only', teamId: 't_eng', contributorIds: ['u_bob'], createdBy: 'u_bob' },
    { id: 'p_old', name: 'Old', archived: true, createdBy: 'u_alice' },
    { id: 'p_bobs', name: 'Bob personal', createdBy: 'u_bob' },
    { id: 'p_ops', name: 'Ops work', teamId: 't_ops', createdBy: 'u_dave' },
  ],
  tasks: [
    { id: 'k_alice', userId: 'u_alice', date: '2026-11-20', title: 'Alice task', projectId: 'p_team' },
    { id: 'k_alice_old', userId: 'u_alice', date: '2026-11-20', title: 'Old task', projectId: 'p_old' },
    { id: 'k_bob', userId: 'u_bob', date: '2026-11-20', title: 'Bob task', projectId: 'p_team' },
  ],
  activities: [
    { id: 'a_bob', userId: 'u_bob', start: '2026-11-20T10:00:00Z', durationMinutes: 10, headline: 'Bob secret work' },
  ],
  apiKeys: [
    { userId: 'u_alice', name: 'w', key: ALICE, scopes: [...READS, 'activity:write'] },
    { userId: 'u_alice', name: 'r', key: ALICE_NO_WRITE, scopes: READS },
    { userId: 'u_bob', name: 'w', key: BOB, scopes: [...READS, 'activity:write'] },
    { userId: 'u_carol', name: 'w', key: CAROL_FREE, scopes: ['activity:write'] },
  ],
};

/**
 * Registers before/after hooks that give each test of the suite an app on a new database of
 * `dialect` holding `dataset` (imported as a file, as `daybook import` would), and removes both
 * afterwards. `use` receives them once they are ready.
 */
export function appOnDataset(
  dialect: Dialect,
  name: string,
  dataset: object,
  use: (made: { database: TestDatabase; t: TestApp }) => void,
): void {
  const files = tempFiles();
  let made: { database: TestDatabase; t: TestApp } | undefined;
  before(async () => {
    const database = await createTestDatabase(dialect);
    await importDataset(database.storage, files.write(`${name}-${dialect}.json`, dataset), { now: () => DEFAULT_NOW });
    made = { database, t: await createTestApp(dialect, { database, dataset: null }) };
    use(made);
  });
  after(async () => {
    await made?.t.close();
    await made?.database.drop();
    files.remove();
  });
}
