/**
 * `mayLogTime`: the contributor rule that every live write of time must pass. The API has no
 * time-ingest endpoint yet, so the policy is tested as a function; imports deliberately skip
 * it (dataset README rule 6), which the last test checks through HTTP.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { importDataset } from '../../src/dataset/import.ts';
import { canSeeProject, mayLogTime, type Viewer } from '../../src/services/projects/access.ts';
import { DEFAULT_NOW, KEYS, call, createTestApp, forEachDialect } from '../helper.ts';

const member = (userId: string, ...teams: string[]): Viewer => ({ userId, activeTeamIds: new Set(teams) });

const cases: { rule: string; project: Parameters<typeof mayLogTime>[0]; viewer: Viewer; may: boolean }[] = [
  {
    rule: 'null lets every active member',
    project: { teamId: 't', createdBy: 'a', contributorIds: null },
    viewer: member('b', 't'),
    may: true,
  },
  {
    rule: '[] lets nobody, not even the creator',
    project: { teamId: 't', createdBy: 'a', contributorIds: [] },
    viewer: member('a', 't'),
    may: false,
  },
  {
    rule: 'a list lets a listed member',
    project: { teamId: 't', createdBy: 'a', contributorIds: ['b', 'c'] },
    viewer: member('c', 't'),
    may: true,
  },
  {
    rule: 'a list shuts out an unlisted member',
    project: { teamId: 't', createdBy: 'a', contributorIds: ['b'] },
    viewer: member('a', 't'),
    may: false,
  },
  {
    rule: 'a listed user who left the team may not',
    project: { teamId: 't', createdBy: 'a', contributorIds: ['b'] },
    viewer: member('b'),
    may: false,
  },
  {
    rule: 'null does not let non-members',
    project: { teamId: 't', createdBy: 'a', contributorIds: null },
    viewer: member('z', 'other'),
    may: false,
  },
  {
    rule: "a personal project takes its owner's time",
    project: { teamId: null, createdBy: 'a', contributorIds: null },
    viewer: member('a'),
    may: true,
  },
  {
    rule: 'a personal project refuses anyone else',
    project: { teamId: null, createdBy: 'a', contributorIds: null },
    viewer: member('b', 't'),
    may: false,
  },
];

for (const c of cases) {
  test(`mayLogTime: ${c.rule}`, () => {
    assert.equal(mayLogTime(c.project, c.viewer), c.may);
  });
}

test('mayLogTime (property): only visible projects, and a list is exactly who may log to a team project', () => {
  const ids = fc.constantFrom('a', 'b', 'c', 'd');
  const teams = fc.constantFrom('t1', 't2');
  fc.assert(
    fc.property(
      fc.record({
        teamId: fc.option(teams),
        createdBy: ids,
        contributorIds: fc.option(fc.uniqueArray(ids, { maxLength: 4 })),
      }),
      fc.record({ userId: ids, activeTeamIds: fc.uniqueArray(teams).map((list) => new Set(list)) }),
      (project, viewer) => {
        const may = mayLogTime(project, viewer);
        if (!canSeeProject(project, viewer)) return !may;
        if (project.teamId === null || project.contributorIds === null) return may;
        return may === project.contributorIds.includes(viewer.userId);
      },
    ),
  );
});

forEachDialect('contributors and imports', (dialect) => {
  test('an import restores time of someone who is no contributor today', async () => {
    const t = await createTestApp(dialect);
    try {
      const before = await call(t.app, 'GET', '/projects/p_onb', { key: KEYS.bob });
      assert.deepEqual(before.json.project.contributorIds, ['u_alice'], 'only alice may log time to p_onb');
      const file = join(tmpdir(), `daybook-history-${dialect}-${process.pid}.ndjson`);
      await writeFile(
        file,
        [
          {
            type: 'task',
            id: 'k_bob_history',
            userId: 'u_bob',
            date: '2026-11-19',
            title: 'Old onboarding work',
            projectId: 'p_onb',
          },
          {
            type: 'activity',
            id: 'a_bob_history',
            userId: 'u_bob',
            start: '2026-11-19T15:00:00Z',
            durationMinutes: 30,
            headline: 'h',
            taskId: 'k_bob_history',
          },
        ]
          .map((r) => JSON.stringify(r))
          .join('\n'),
      );
      await importDataset(t.storage, file, { now: () => DEFAULT_NOW });
      const after = await call(t.app, 'GET', '/projects/p_onb', { key: KEYS.bob });
      assert.equal(after.json.project.usedAt, '2026-11-19T15:00:00.000Z');
      assert.deepEqual(after.json.project.contributorIds, ['u_alice']);
    } finally {
      await t.close();
    }
  });
});
