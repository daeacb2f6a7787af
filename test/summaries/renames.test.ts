/**
 * docs/api.md, "GET / POST /message": a summary whose data changed later is rebuilt on the next run. Summaries name
 * projects, categories and tasks, so renaming one (by an import, or a project through the API)
 * makes the summaries of every day with its time stale, and /message then shows the new name.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import { type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import { fetchMessage, generate } from './support.ts';

const KEY = 'dbk_test_renames_0123456789abcdef';
/** Friday 2026-11-20, noon UTC: the days below have ended. */
const NOW = Date.parse('2026-11-20T12:00:00Z');
const HOUR = 3_600_000;

const world = {
  version: 1,
  users: [{ id: 'u_rn', email: 'rn@example.com', name: 'Rena', plan: 'core' }],
  categories: [{ id: 'c_rn', name: 'Meet', emoji: null }],
  projects: [{ id: 'p_rn', name: 'Alpha', createdBy: 'u_rn' }],
  tasks: [
    // Dated the 10th, worked on the 17th: a rename must reach the day of the work.
    { id: 'k_rn', userId: 'u_rn', date: '2026-11-10', title: 'Old title', projectId: 'p_rn' },
  ],
  activities: [
    {
      id: 'a_rn1',
      userId: 'u_rn',
      start: '2026-11-16T09:00:00Z',
      durationMinutes: 60,
      headline: 'plan',
      categoryId: 'c_rn',
      projectId: 'p_rn',
    },
    {
      id: 'a_rn3',
      userId: 'u_rn',
      start: '2026-11-16T10:00:00Z',
      durationMinutes: 30,
      headline: 'plan',
      categoryId: 'c_rn',
      projectId: 'p_rn',
    },
    {
      id: 'a_rn2',
      userId: 'u_rn',
      start: '2026-11-17T09:00:00Z',
      durationMinutes: 20,
      headline: 'work',
      taskId: 'k_rn',
    },
  ],
  apiKeys: [{ userId: 'u_rn', name: 'k', key: KEY, scopes: ['summaries:read', 'projects:write'] }],
};

forEachDialect('summaries after renames', (dialect) => {
  let t: TestApp;
  let files: ReturnType<typeof tempFiles>;
  before(async () => {
    files = tempFiles();
    t = await createTestApp(dialect, { dataset: files.write(`renames-${dialect}.json`, world), now: NOW });
    await generate(t.storage, NOW);
  });
  after(async () => {
    await t.close();
    files.remove();
  });

  const text = async (query: Record<string, string>) => {
    const res = await fetchMessage(t.app, KEY, { format: 'text', ...query });
    assert.equal(res.status, 200, res.body);
    return res.json.content as string;
  };

  test('an import that renames a category, a project and a task rebuilds the summaries that name them', async () => {
    assert.match(await text({ date: '2026-11-16' }), /Alpha — 1 h 30 min/);
    assert.match(await text({ date: '2026-11-16' }), /Meet — 1 h 30 min/);
    assert.match(await text({ date: '2026-11-17' }), /Old title/);

    t.setNow(NOW + HOUR);
    const renames = {
      version: 1,
      categories: [{ id: 'c_rn', name: 'Meetings', emoji: '📅' }],
      projects: [{ id: 'p_rn', name: 'Alpha Renamed', createdBy: 'u_rn' }],
      tasks: [{ id: 'k_rn', userId: 'u_rn', date: '2026-11-10', title: 'New title', projectId: 'p_rn' }],
    };
    await importDataset(t.storage, files.write(`renames-2-${dialect}.json`, renames), { now: () => NOW + HOUR });
    const stats = await generate(t.storage, NOW + 2 * HOUR);
    assert.ok(stats.built > 0, JSON.stringify(stats));

    const day16 = await text({ date: '2026-11-16' });
    assert.match(day16, /Alpha Renamed — 1 h 30 min/);
    assert.match(day16, /Meetings — 1 h 30 min/);
    assert.doesNotMatch(day16, /Meet —/);
    const day17 = await text({ date: '2026-11-17' });
    assert.match(day17, /New title/);
    assert.doesNotMatch(day17, /Old title/);
  });

  test('an import that changes nothing shown leaves the summaries current', async () => {
    const same = {
      version: 1,
      categories: [{ id: 'c_rn', name: 'Meetings', emoji: '📅' }],
      projects: [{ id: 'p_rn', name: 'Alpha Renamed', createdBy: 'u_rn', description: 'new text' }],
    };
    await importDataset(t.storage, files.write(`renames-same-${dialect}.json`, same), { now: () => NOW + 3 * HOUR });
    const stats = await generate(t.storage, NOW + 4 * HOUR);
    assert.equal(stats.built, 0, JSON.stringify(stats));
  });

  test('renaming a project through the API rebuilds the summaries of the days with its time', async () => {
    t.setNow(NOW + 5 * HOUR);
    const res = await call(t.app, 'POST', '/projects/p_rn', { key: KEY, body: { name: 'Gamma' } });
    assert.equal(res.status, 200, res.body);
    const stats = await generate(t.storage, NOW + 6 * HOUR);
    assert.ok(stats.built > 0, JSON.stringify(stats));
    assert.match(await text({ date: '2026-11-16' }), /Gamma — 1 h 30 min/);
    assert.match(await text({ date: '2026-11-17' }), /New title \(Gamma\)|Gamma/);
  });

  test('a name with markdown is escaped in the Discord title and plain in the subject', async () => {
    await t.storage.db.updateTable('users').set({ name: '*Re_na* `x`' }).where('id', '=', 'u_rn').execute();
    const res = await fetchMessage(t.app, KEY, { date: '2026-11-16', format: 'discord' });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json.content.title, "\\*Re\\_na\\*'s daily summary: Nov 16");
    assert.equal(res.json.metadata.subject, "*Re_na*'s daily summary: Nov 16");
  });
});
