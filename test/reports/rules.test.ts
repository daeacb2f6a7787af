/**
 * The rules of report rows as functions, without a database (docs/api.md, POST /report):
 * `duration_relative`, the order of `{name, minutes}` lists and of rows, and the names another
 * member's rows show in a team report. test/reports/* check the same rules through HTTP.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { NamedProject, NamedTask } from '../../src/storage/aggregates.ts';
import { sortRows, type TimedRow } from '../../src/services/reports/context.ts';
import { HIDDEN_TASK, MASKED_PROJECT, type NameLookup, ReportLabels } from '../../src/services/reports/labels.ts';
import type { ReportRow } from '../../src/schemas/report.ts';
import { Tally, cleanMinutes, percentOfTarget } from '../../src/services/reports/tally.ts';

describe('duration_relative: 100 × minutes ÷ target, rounded half up to one decimal', () => {
  test('whole and fractional percentages of the daily target', () => {
    assert.equal(percentOfTarget(480, 480), 100);
    assert.equal(percentOfTarget(240, 480), 50);
    assert.equal(percentOfTarget(600, 480), 125);
    assert.equal(percentOfTarget(0, 480), 0);
    assert.equal(percentOfTarget(1, 3), 33.3);
    assert.equal(percentOfTarget(2, 3), 66.7);
  });

  test('a value exactly halfway between two tenths rounds up, though its float product lies just below', () => {
    // 100 × 4.56 ÷ 480 is exactly 0.95; in doubles it comes out as 0.9499…, which rounds to 0.9.
    assert.equal(Math.round(((100 * 4.56) / 480) * 10) / 10, 0.9);
    assert.equal(percentOfTarget(4.56, 480), 1);
    assert.equal(percentOfTarget(9.45, 420), 2.3);
    assert.equal(percentOfTarget(0.24, 480), 0.1, '0.05 rounds up to 0.1');
    assert.equal(percentOfTarget(0.2399, 480), 0, '0.0499… rounds down');
  });

  test('a week is measured against five daily targets', () => {
    assert.equal(percentOfTarget(2400, 5 * 480), 100);
    assert.equal(percentOfTarget(1234.5, 5 * 480), 51.4);
  });

  test('years of minutes, beyond 2^53 in the intermediate products, stay exact', () => {
    assert.equal(percentOfTarget(1e12, 1), 1e14);
    assert.equal(percentOfTarget(1e12 + 0.5, 1_000_000), 100_000_000);
    assert.equal(percentOfTarget(3e11, 7), 4285714285714.3);
  });

  test('(property) the result is the nearest tenth of the exact percentage, and halfway goes up', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 1, max: 1440 }),
        (tenthsOfMinutes, target) => {
          const percent = percentOfTarget(tenthsOfMinutes / 10, target);
          const tenths = Math.round(percent * 10);
          assert.ok(Math.abs(percent * 10 - tenths) < 1e-6, `${percent} is a whole number of tenths`);
          // The exact percentage in tenths is 100 × tenthsOfMinutes ÷ target; compared in integers.
          const off = tenths * target - 100 * tenthsOfMinutes;
          assert.ok(
            2 * Math.abs(off) <= target,
            `${tenthsOfMinutes / 10} of ${target}: ${percent} is more than half a tenth off`,
          );
          assert.notEqual(2 * off, -target, `${tenthsOfMinutes / 10} of ${target}: halfway rounded down to ${percent}`);
        },
      ),
    );
  });
});

describe('lists of {name, minutes}: minutes descending, then name; the same thing once', () => {
  const label = (key: string, name: string) => ({ key, name, id: key });

  test('more minutes first; equal minutes by name in plain code-unit order, not by locale', () => {
    const tally = new Tally();
    tally.add(label('p1', 'beta'), 30);
    tally.add(label('p2', 'Alpha'), 30);
    tally.add(label('p3', 'zeta'), 90);
    tally.add(label('p4', 'Zeta'), 30);
    tally.add(label('p5', 'Äpfel'), 30);
    assert.deepEqual(tally.list(), [
      { name: 'zeta', minutes: 90 },
      { name: 'Alpha', minutes: 30 },
      { name: 'Zeta', minutes: 30 },
      { name: 'beta', minutes: 30 },
      { name: 'Äpfel', minutes: 30 },
    ]);
  });

  test('minutes of the same thing add up into one entry; time without a label is in no entry', () => {
    const tally = new Tally();
    tally.add(label('p1', 'Website'), 20);
    tally.add(null, 600);
    tally.add(label('p2', 'Backend'), 30);
    tally.add(label('p1', 'Website'), 25);
    assert.deepEqual(tally.list(), [
      { name: 'Website', minutes: 45 },
      { name: 'Backend', minutes: 30 },
    ]);
  });

  test('two things of the same name stay two entries', () => {
    const tally = new Tally();
    tally.add(label('p1', 'Support'), 10);
    tally.add(label('p2', 'Support'), 10);
    assert.deepEqual(tally.list(), [
      { name: 'Support', minutes: 10 },
      { name: 'Support', minutes: 10 },
    ]);
  });

  test('sums of fractional minutes carry no binary noise (0.1 + 0.2 is 0.3)', () => {
    const tally = new Tally();
    tally.add(label('p1', 'Website'), 0.1);
    tally.add(label('p1', 'Website'), 0.2);
    assert.deepEqual(tally.list(), [{ name: 'Website', minutes: 0.3 }]);
    assert.equal(cleanMinutes(0.1 + 0.2), 0.3);
    assert.equal(cleanMinutes(1 / 3), 0.333333);
  });

  test('task lists are {title, duration} in the same order', () => {
    const tally = new Tally();
    tally.add(label('k1', 'Review'), 5);
    tally.add(label('k2', 'Deploy'), 50);
    assert.deepEqual(
      tally.sorted((title, duration) => ({ title, duration })),
      [
        { title: 'Deploy', duration: 50 },
        { title: 'Review', duration: 5 },
      ],
    );
  });
});

describe('the order of rows', () => {
  const rows = (...entries: [string, number | string][]): TimedRow[] =>
    entries.map(([id, time]) => ({ row: { id } as ReportRow, time }));
  const ids = (sorted: ReportRow[]) => sorted.map((r) => r.id);

  test('without sort: by id as a plain string comparison', () => {
    const sorted = sortRows(rows(['task:b', 1], ['task:B', 3], ['task:a', 2], ['task:10', 0], ['task:9', 4]), null);
    assert.deepEqual(ids(sorted), ['task:10', 'task:9', 'task:B', 'task:a', 'task:b']);
  });

  test('sort asc: oldest first; rows of the same time by id ascending', () => {
    const sorted = sortRows(
      rows(
        ['day:2026-11-02:u2', '2026-11-02'],
        ['day:2026-11-03:u1', '2026-11-03'],
        ['day:2026-11-02:u1', '2026-11-02'],
      ),
      'asc',
    );
    assert.deepEqual(ids(sorted), ['day:2026-11-02:u1', 'day:2026-11-02:u2', 'day:2026-11-03:u1']);
  });

  test('sort desc: newest first; rows of the same time still by id ascending', () => {
    const sorted = sortRows(
      rows(['activity:b', 1000], ['activity:c', 2000], ['activity:a', 1000], ['activity:d', 500]),
      'desc',
    );
    assert.deepEqual(ids(sorted), ['activity:c', 'activity:a', 'activity:b', 'activity:d']);
  });
});

describe("team reports: what another member's rows show of projects and tasks", () => {
  const CALLER = 'u_me';
  const OTHER = 'u_other';
  const project = (id: string, fields: Partial<NamedProject> = {}): NamedProject => ({
    id,
    name: `Project ${id}`,
    teamId: 't_shared',
    createdBy: OTHER,
    private: false,
    confidential: false,
    ...fields,
  });
  const task = (id: string, fields: Partial<NamedTask> = {}): NamedTask => ({
    id,
    userId: OTHER,
    title: `Task ${id}`,
    date: '2026-11-20',
    projectId: null,
    visible: 1,
    ...fields,
  });
  const names: NameLookup = {
    projects: new Map(
      [
        project('p_team'),
        project('p_private', { private: true }),
        project('p_confidential', { confidential: true }),
        project('p_elsewhere', { teamId: 't_not_mine' }),
        project('p_personal', { teamId: null }),
        project('p_mine_private', { teamId: null, createdBy: CALLER, private: true }),
      ].map((p) => [p.id, p]),
    ),
    categories: new Map([['c1', { id: 'c1', name: 'Meetings', emoji: '📅' }]]),
    tasks: new Map(
      [
        task('k_visible', { projectId: 'p_team' }),
        task('k_invisible', { projectId: 'p_team', visible: 0 }),
        task('k_confidential', { projectId: 'p_confidential' }),
        task('k_private_project', { projectId: 'p_private' }),
      ].map((k) => [k.id, k]),
    ),
  };
  const labels = () => new ReportLabels({ userId: CALLER, activeTeamIds: new Set(['t_shared']) }, names);

  test('a project of a shared team keeps its name and id', () => {
    assert.deepEqual(labels().project(OTHER, 'p_team'), { key: 'id:p_team', name: 'Project p_team', id: 'p_team' });
  });

  test("a private project, a project of a team the caller is not in, and someone's personal project read Other, id null", () => {
    const l = labels();
    for (const id of ['p_private', 'p_elsewhere', 'p_personal', 'p_unknown']) {
      assert.deepEqual(l.project(OTHER, id), { key: `masked:${MASKED_PROJECT}`, name: 'Other', id: null }, id);
    }
  });

  test('a task that is not visible, or of a confidential project, reads Hidden task, id null', () => {
    const l = labels();
    for (const id of ['k_invisible', 'k_confidential']) {
      const label = l.task(OTHER, id);
      assert.deepEqual(
        [label?.name, label?.id, label?.hidden, label?.date],
        [HIDDEN_TASK, null, true, '2026-11-20'],
        id,
      );
    }
    assert.deepEqual(l.task(OTHER, 'k_confidential')?.project, {
      key: 'id:p_confidential',
      name: 'Project p_confidential',
      id: 'p_confidential',
    });
  });

  test('a visible task keeps its title, and its project is shown as the caller may see it', () => {
    const l = labels();
    const visible = l.task(OTHER, 'k_visible');
    assert.deepEqual([visible?.name, visible?.id, visible?.hidden], ['Task k_visible', 'k_visible', false]);
    const inPrivate = l.task(OTHER, 'k_private_project');
    assert.deepEqual(
      [inPrivate?.name, inPrivate?.project?.name, inPrivate?.project?.id],
      ['Task k_private_project', 'Other', null],
    );
  });

  test("the caller's own rows are never masked", () => {
    const l = labels();
    assert.deepEqual(l.project(CALLER, 'p_private'), {
      key: 'id:p_private',
      name: 'Project p_private',
      id: 'p_private',
    });
    assert.deepEqual(l.project(CALLER, 'p_mine_private')?.name, 'Project p_mine_private');
    assert.equal(l.task(CALLER, 'k_invisible')?.name, 'Task k_invisible');
    assert.equal(l.task(CALLER, 'k_confidential')?.hidden, false);
    assert.equal(l.project(CALLER, 'p_unknown'), null, 'an unknown project of the caller is no label at all');
  });

  test('masked names merge into one entry of a list, beside a real project called Other', () => {
    const l = labels();
    const tally = new Tally();
    tally.add(l.project(OTHER, 'p_private'), 30);
    tally.add(l.project(OTHER, 'p_elsewhere'), 15);
    tally.add({ key: 'id:p_called_other', name: 'Other', id: 'p_called_other' }, 20);
    tally.add(l.task(OTHER, 'k_invisible'), 1);
    assert.deepEqual(tally.list(), [
      { name: 'Other', minutes: 45 },
      { name: 'Other', minutes: 20 },
      { name: 'Hidden task', minutes: 1 },
    ]);
  });

  test('categories are never masked', () => {
    assert.deepEqual(labels().category('c1'), { key: 'id:c1', name: 'Meetings', id: 'c1', emoji: '📅' });
  });
});
