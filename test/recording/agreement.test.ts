/**
 * Property: the write API and the importer agree (decisions §7). A random sequence of writes
 * through HTTP (POST /activities, DELETE /activities/:id, POST /tasks, POST /tasks/:id,
 * DELETE /tasks/:id, POST /day-comments) by two users leaves a database that answers exactly as
 * a fresh database that imported the records those writes should have left: every report
 * level (own and team), search, and the projects' `usedAt`. The test keeps those records in
 * the dataset's own format, changed by each write as the contract says, so it checks the
 * contract as well as the two paths against each other. Both databases, and on SQLite also with
 * the writes on the write thread (services/recording/recorder.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { importDataset } from '../../src/dataset/import.ts';
import type { App } from '../../src/http/types.ts';
import type { Dialect } from '../../src/storage/database.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import {
  DEFAULT_NOW,
  type TestApp,
  call,
  createSharedTestDatabase,
  createTestApp,
  createTestDatabase,
  forEachDialect,
} from '../helper.ts';
import { ALICE, BOB, world } from './world.ts';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** Writes fall on the ten days before DEFAULT_NOW (2026-11-22T12:00Z) and on its own day. */
const FIRST_DAY = Date.parse('2026-11-12T00:00:00Z');
const DAYS = 11;
/** The latest start of a random activity: any duration (≤ 60 minutes) then ends before now. */
const START_SPAN = DEFAULT_NOW - 60 * MINUTE - FIRST_DAY;
const SLACK = 5 * MINUTE;

interface Project {
  id: string;
  name: string;
}

/** A user who writes: Alice in Europe/Berlin (UTC+1 all through these days), Bob in UTC. */
interface Writer {
  id: string;
  key: string;
  offsetMinutes: number;
  /** The projects the user may log time to (visible, not archived, a contributor). */
  projects: Project[];
}

const TEAM: Project = { id: 'p_team', name: 'Team project' };
const WRITERS: Writer[] = [
  { id: 'u_alice', key: ALICE, offsetMinutes: 60, projects: [TEAM] },
  {
    id: 'u_bob',
    key: BOB,
    offsetMinutes: 0,
    projects: [TEAM, { id: 'p_bobonly', name: 'Bob only' }, { id: 'p_bobs', name: 'Bob personal' }],
  },
];
const CATEGORIES = world.categories;
const WORDS = ['zephyr', 'quokka', 'marimba', 'tundra', 'saffron'];
const ACTIVITY_POOL = 6;
const TASK_POOL = 4;

const localMidnight = (date: string, w: Writer) => Date.parse(`${date}T00:00:00Z`) - w.offsetMinutes * MINUTE;
const dayOf = (day: number) => new Date(FIRST_DAY + day * DAY).toISOString().slice(0, 10);
const iso = (ms: number) => new Date(ms).toISOString();

type StartFormat = 'z' | 'offset' | 'ms';

/** An instant as the API takes it: ISO 8601 in UTC, ISO 8601 with the writer's offset, or Unix ms. */
function startValue(ms: number, format: StartFormat, w: Writer): string | number {
  if (format === 'ms') return ms;
  if (format === 'z') return iso(ms);
  const local = new Date(ms + w.offsetMinutes * MINUTE).toISOString().slice(0, 23);
  const hours = String(Math.abs(w.offsetMinutes) / 60).padStart(2, '0');
  return `${local}${w.offsetMinutes < 0 ? '-' : '+'}${hours}:00`;
}

// --- The records, in the dataset's format ---------------------------------------------------

interface ActivityRecord {
  id: string;
  userId: string;
  start: string;
  durationMinutes: number;
  headline: string;
  description: string | null;
  taskId: string | null;
  projectId: string | null;
  categoryId: string | null;
}

interface TaskRecord {
  id: string;
  userId: string;
  date: string;
  title: string;
  description: string | null;
  projectId: string | null;
  visible: boolean;
}

interface DayCommentRecord {
  userId: string;
  date: string;
  comment: string;
}

/** What the writes should have left: the world's records and every write's, as records. */
class Model {
  readonly activities = new Map<string, ActivityRecord>();
  readonly tasks = new Map<string, TaskRecord>();
  readonly dayComments = new Map<string, DayCommentRecord>();

  constructor() {
    for (const t of world.tasks) this.tasks.set(t.id, { description: null, visible: true, ...t });
    for (const a of world.activities)
      this.activities.set(a.id, {
        description: null,
        taskId: null,
        projectId: null,
        categoryId: null,
        ...a,
        start: iso(Date.parse(a.start)),
      });
  }

  activitiesOf(w: Writer): ActivityRecord[] {
    return [...this.activities.values()].filter((a) => a.userId === w.id).sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  tasksOf(w: Writer): TaskRecord[] {
    return [...this.tasks.values()].filter((t) => t.userId === w.id).sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  deleteTask(id: string): void {
    this.tasks.delete(id);
    for (const [activityId, a] of this.activities) if (a.taskId === id) this.activities.delete(activityId);
  }

  dataset() {
    return {
      version: 1,
      users: world.users,
      teams: world.teams,
      categories: world.categories,
      projects: world.projects,
      tasks: [...this.tasks.values()],
      activities: [...this.activities.values()],
      dayComments: [...this.dayComments.values()],
      apiKeys: world.apiKeys,
    };
  }
}

// --- The writes, as choices the model turns into valid requests -----------------------------

/** A project of those the writer may log time to (index modulo their number), by id or name. */
interface ProjectChoice {
  index: number;
  byName: boolean;
}

interface ItemSpec {
  /** new: no id; pool: a_p<n> unless another user holds it; existing: one of the writer's. */
  id: 'new' | 'pool' | 'existing';
  pick: number;
  start: number;
  format: StartFormat;
  durationMinutes: number;
  headline: string;
  description: string | null | undefined;
  /** One of the writer's tasks, or none (null sent as null, undefined left out). */
  task: number | null | undefined;
  project: number | null | undefined;
  category: { index: number; byName: boolean } | null | undefined;
}

type Action =
  | { kind: 'record'; user: number; items: ItemSpec[] }
  | { kind: 'deleteActivity'; user: number; pick: number; existing: boolean }
  | {
      kind: 'createTask';
      user: number;
      /** k_p<n> when no task has that id yet, else a made id. */
      pool: number | null;
      day: number;
      omitDate: boolean;
      title: string;
      description: string | null | undefined;
      project: ProjectChoice | null | undefined;
      visible: boolean | undefined;
      minutes: number | undefined;
      /** Local minute of the day where the minutes begin (default 09:00). */
      startMinute: number | undefined;
      format: StartFormat;
    }
  | {
      kind: 'updateTask';
      user: number;
      pick: number;
      changes: { title?: string; description?: string | null; project?: ProjectChoice | null; visible?: boolean };
    }
  | { kind: 'deleteTask'; user: number; pick: number; existing: boolean }
  | { kind: 'comment'; user: number; day: number; comment: string };

const userArb = fc.integer({ min: 0, max: WRITERS.length - 1 });
const pickArb = fc.nat({ max: 1000 });
const formatArb = fc.constantFrom<StartFormat>('z', 'offset', 'ms');
const textArb = fc
  .tuple(
    fc.constantFrom('Tuned', 'Reviewed', 'Drafted', 'Fixed'),
    fc.constantFrom(...WORDS),
    fc.constantFrom('', ' notes', ' rollout', ' and zephyrs'),
  )
  .map(([verb, word, tail]) => `${verb} ${word}${tail}`);
const descriptionArb = fc.option(
  fc.oneof(
    fc.constant(null),
    fc.constantFrom(...WORDS).map((w) => `Also about ${w}.`),
  ),
  { nil: undefined },
);
const startArb = fc.oneof(
  fc.integer({ min: 0, max: START_SPAN / MINUTE }).map((m) => FIRST_DAY + m * MINUTE),
  // Around midnight in Berlin (23:00Z) and in UTC.
  fc
    .tuple(fc.integer({ min: 0, max: DAYS - 2 }), fc.integer({ min: -90, max: 90 }))
    .map(([d, m]) => FIRST_DAY + d * DAY + (23 * 60 + m) * MINUTE),
  fc.integer({ min: 0, max: START_SPAN }).map((ms) => FIRST_DAY + ms),
);
const durationArb = fc.oneof(
  fc.integer({ min: 1, max: 60 }),
  fc.integer({ min: 1, max: 600 }).map((q) => q / 10),
);
const projectChoiceArb: fc.Arbitrary<ProjectChoice> = fc.record({ index: fc.nat({ max: 5 }), byName: fc.boolean() });
const optionalNull = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, fc.constant(null), fc.constant(undefined));

const itemArb: fc.Arbitrary<ItemSpec> = fc.record({
  id: fc.constantFrom<ItemSpec['id']>('new', 'pool', 'existing'),
  pick: pickArb,
  start: startArb,
  format: formatArb,
  durationMinutes: durationArb,
  headline: textArb,
  description: descriptionArb,
  task: optionalNull(pickArb),
  project: optionalNull(fc.nat({ max: 5 })),
  category: optionalNull(fc.record({ index: fc.nat({ max: CATEGORIES.length - 1 }), byName: fc.boolean() })),
});

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant('record'),
      user: userArb,
      items: fc.array(itemArb, { minLength: 1, maxLength: 5 }),
    }),
    weight: 4,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('deleteActivity'), user: userArb, pick: pickArb, existing: fc.boolean() }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('createTask'),
      user: userArb,
      pool: fc.option(fc.nat({ max: TASK_POOL - 1 })),
      day: fc.nat({ max: DAYS - 1 }),
      omitDate: fc.boolean(),
      title: textArb,
      description: descriptionArb,
      project: optionalNull(projectChoiceArb),
      visible: fc.option(fc.boolean(), { nil: undefined }),
      minutes: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined }),
      startMinute: fc.option(fc.integer({ min: 0, max: 24 * 60 - 1 }), { nil: undefined }),
      format: formatArb,
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('updateTask'),
      user: userArb,
      pick: pickArb,
      changes: fc.record(
        {
          title: textArb,
          description: fc.oneof(
            fc.constant(null),
            fc.constantFrom(...WORDS).map((w) => `Now about ${w}`),
          ),
          project: fc.option(projectChoiceArb),
          visible: fc.boolean(),
        },
        { requiredKeys: [] },
      ),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('deleteTask'), user: userArb, pick: pickArb, existing: fc.boolean() }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('comment'),
      user: userArb,
      day: fc.nat({ max: DAYS - 1 }),
      comment: fc.constantFrom('', 'Offsite', 'Sick half day', 'Release day'),
    }),
    weight: 1,
  },
);

const projectOf = (w: Writer, choice: ProjectChoice) => w.projects[choice.index % w.projects.length]!;
const projectValue = (w: Writer, choice: ProjectChoice) => {
  const p = projectOf(w, choice);
  return choice.byName ? p.name : p.id;
};
const mayLog = (w: Writer, projectId: string | null) =>
  projectId === null || w.projects.some((p) => p.id === projectId);

/** Sends one write, asserts it succeeded, and changes the model as the contract says. */
async function apply(t: TestApp, model: Model, action: Action, label: string): Promise<void> {
  const app = t.app;
  const w = WRITERS[action.user]!;
  const key = w.key;

  if (action.kind === 'record') {
    const used = new Set<string>();
    const body: Record<string, unknown>[] = [];
    const records: Omit<ActivityRecord, 'id'>[] = [];
    const wanted: (string | undefined)[] = [];
    for (const spec of action.items) {
      const own = model.activitiesOf(w);
      let id: string | undefined;
      if (spec.id === 'pool') {
        const candidate = `a_p${spec.pick % ACTIVITY_POOL}`;
        const holder = model.activities.get(candidate)?.userId;
        if (holder === undefined || holder === w.id) id = candidate;
      } else if (spec.id === 'existing' && own.length > 0) id = own[spec.pick % own.length]!.id;
      if (id !== undefined && used.has(id)) id = undefined;
      if (id !== undefined) used.add(id);

      const tasks = model.tasksOf(w);
      const task = typeof spec.task === 'number' && tasks.length > 0 ? tasks[spec.task % tasks.length]! : null;
      let projectId = typeof spec.project === 'number' ? w.projects[spec.project % w.projects.length]!.id : null;
      // The activity's project (its own, else its task's) must be one the writer may log to.
      if (projectId === null && task !== null && !mayLog(w, task.projectId)) projectId = TEAM.id;
      const category = spec.category ? CATEGORIES[spec.category.index]! : null;

      const item: Record<string, unknown> = {
        start: startValue(spec.start, spec.format, w),
        durationMinutes: spec.durationMinutes,
        headline: spec.headline,
      };
      if (id !== undefined) item.id = id;
      if (spec.description !== undefined) item.description = spec.description;
      if (task !== null) item.taskId = task.id;
      else if (spec.task === null) item.taskId = null;
      if (projectId !== null) item.projectId = projectId;
      else if (spec.project === null) item.projectId = null;
      if (category !== null) item.category = spec.category!.byName ? category.name : category.id;
      else if (spec.category === null) item.category = null;
      body.push(item);
      wanted.push(id);
      records.push({
        userId: w.id,
        start: iso(spec.start),
        durationMinutes: spec.durationMinutes,
        headline: spec.headline,
        description: spec.description ?? null,
        taskId: task?.id ?? null,
        projectId,
        categoryId: category?.id ?? null,
      });
    }
    const res = await call(app, 'POST', '/activities', { key, body: { activities: body } });
    assert.equal(res.status, 200, `${label}: ${res.body}`);
    const updated = wanted.filter((id) => id !== undefined && model.activities.has(id)).length;
    assert.deepEqual([res.json.created, res.json.updated], [body.length - updated, updated], label);
    assert.equal(res.json.ids.length, body.length, label);
    records.forEach((record, i) => {
      const id = res.json.ids[i] as string;
      if (wanted[i] !== undefined) assert.equal(id, wanted[i], label);
      else assert.ok(!model.activities.has(id), `${label}: a made id is new`);
      model.activities.set(id, { id, ...record });
    });
    return;
  }

  if (action.kind === 'deleteActivity') {
    const own = model.activitiesOf(w);
    const others = [...model.activities.values()].filter((a) => a.userId !== w.id);
    const id = action.existing
      ? own.length > 0
        ? own[action.pick % own.length]!.id
        : 'a_never'
      : others.length > 0 && action.pick % 2 === 0
        ? others[action.pick % others.length]!.id
        : `a_p${action.pick % ACTIVITY_POOL}`;
    const res = await call(app, 'DELETE', `/activities/${id}`, { key });
    if (model.activities.get(id)?.userId === w.id) {
      assert.deepEqual([res.status, res.json], [200, { success: true }], label);
      model.activities.delete(id);
    } else {
      assert.deepEqual([res.status, res.json?.error], [404, 'Activity not found'], label);
    }
    return;
  }

  if (action.kind === 'createTask') {
    const date = dayOf(action.day);
    const body: Record<string, unknown> = { title: action.title };
    const poolId = action.pool === null ? undefined : `k_p${action.pool}`;
    const id = poolId !== undefined && !model.tasks.has(poolId) ? poolId : undefined;
    if (id !== undefined) body.id = id;
    if (action.description !== undefined) body.description = action.description;
    if (action.project) body.project = projectValue(w, action.project);
    else if (action.project === null) body.project = null;
    if (action.visible !== undefined) body.visible = action.visible;

    // The time: back to back from `start` (default 09:00 local), within the local day and
    // ending no later than five minutes from now; less when the day has no room.
    const midnight = localMidnight(date, w);
    let from = midnight + 9 * 60 * MINUTE;
    let start: number | undefined;
    if (action.startMinute !== undefined && midnight + action.startMinute * MINUTE <= DEFAULT_NOW) {
      start = midnight + action.startMinute * MINUTE;
      from = start;
    }
    let minutes = action.minutes;
    if (minutes !== undefined) {
      const room = Math.floor((Math.min(midnight + DAY, DEFAULT_NOW + SLACK) - from) / MINUTE);
      minutes = Math.min(minutes, room);
      if (minutes < 1) minutes = undefined;
    }
    if (start !== undefined) body.start = startValue(start, action.format, w);
    if (start === undefined || !action.omitDate) body.date = date;
    if (minutes !== undefined) body.minutes = minutes;

    const res = await call(app, 'POST', '/tasks', { key, body });
    assert.equal(res.status, 201, `${label}: ${JSON.stringify(body)} ${res.body}`);
    const task: TaskRecord = {
      id: id ?? res.json.task.id,
      userId: w.id,
      date,
      title: action.title,
      description: action.description ?? null,
      projectId: action.project ? projectOf(w, action.project).id : null,
      visible: action.visible ?? true,
    };
    if (id === undefined) assert.ok(!model.tasks.has(task.id), `${label}: a made id is new`);
    assert.deepEqual(
      res.json.task,
      {
        id: task.id,
        title: task.title,
        description: task.description,
        date,
        projectId: task.projectId,
        visible: task.visible,
        minutes: minutes ?? 0,
        createdAt: iso(minutes === undefined ? midnight + 12 * 60 * MINUTE : from),
      },
      label,
    );
    model.tasks.set(task.id, task);
    if (minutes !== undefined) {
      // The activities' ids are made by the server: read them, and check their spans.
      const rows = await t.storage.db
        .selectFrom('activities')
        .select(['id', 'start', 'duration_minutes'])
        .where('task_id', '=', task.id)
        .orderBy('start')
        .execute();
      const expected = [];
      for (let done = 0; done < minutes; done += 60)
        expected.push([from + done * MINUTE, Math.min(60, minutes - done)]);
      assert.deepEqual(
        rows.map((r) => [Number(r.start), Number(r.duration_minutes)]),
        expected,
        `${label}: the minutes as activities`,
      );
      for (const r of rows)
        model.activities.set(r.id, {
          id: r.id,
          userId: w.id,
          start: iso(Number(r.start)),
          durationMinutes: Number(r.duration_minutes),
          headline: task.title,
          description: null,
          taskId: task.id,
          projectId: null,
          categoryId: null,
        });
    }
    return;
  }

  if (action.kind === 'updateTask') {
    const tasks = model.tasksOf(w);
    if (tasks.length === 0) return;
    const task = tasks[action.pick % tasks.length]!;
    const { title, description, project, visible } = action.changes;
    const body: Record<string, unknown> = {};
    if (title !== undefined) body.title = title;
    if (description !== undefined) body.description = description;
    if (project !== undefined) body.project = project === null ? null : projectValue(w, project);
    if (visible !== undefined) body.visible = visible;
    const res = await call(app, 'POST', `/tasks/${task.id}`, { key, body });
    assert.equal(res.status, 200, `${label}: ${JSON.stringify(body)} ${res.body}`);
    if (title !== undefined) task.title = title;
    if (description !== undefined) task.description = description;
    if (project !== undefined) task.projectId = project === null ? null : projectOf(w, project).id;
    if (visible !== undefined) task.visible = visible;
    assert.deepEqual(
      [res.json.task.title, res.json.task.description, res.json.task.projectId, res.json.task.visible],
      [task.title, task.description, task.projectId, task.visible],
      label,
    );
    return;
  }

  if (action.kind === 'deleteTask') {
    const tasks = model.tasksOf(w);
    const others = [...model.tasks.values()].filter((t) => t.userId !== w.id);
    const id =
      action.existing && tasks.length > 0
        ? tasks[action.pick % tasks.length]!.id
        : others.length > 0 && action.pick % 2 === 0
          ? others[action.pick % others.length]!.id
          : 'k_never';
    const res = await call(app, 'DELETE', `/tasks/${id}`, { key });
    if (model.tasks.get(id)?.userId === w.id) {
      assert.deepEqual([res.status, res.json], [200, { success: true }], label);
      model.deleteTask(id);
    } else {
      assert.deepEqual([res.status, res.json?.error], [404, 'Task not found'], label);
    }
    return;
  }

  const date = dayOf(action.day);
  const res = await call(app, 'POST', '/day-comments', { key, body: { date, comment: action.comment } });
  assert.deepEqual(
    [res.status, res.json],
    [200, { success: true, date, comment: action.comment }],
    `${label}: ${res.body}`,
  );
  if (action.comment === '') model.dayComments.delete(`${w.id} ${date}`);
  else model.dayComments.set(`${w.id} ${date}`, { userId: w.id, date, comment: action.comment });
}

// --- What is compared ---------------------------------------------------------------------

const RANGE = { from: Date.parse('2026-11-01T00:00:00Z'), to: Date.parse('2026-11-23T00:00:00Z') };

/** The reads that must answer alike, each as [label, method, url, key, body]. */
function reads(): [string, 'GET' | 'POST', string, string, unknown][] {
  const out: [string, 'GET' | 'POST', string, string, unknown][] = [];
  for (const w of WRITERS) {
    for (const aggregationLevel of ['day', 'task', 'week', 'activity'])
      for (const sort of [undefined, 'asc'])
        out.push([
          `${w.id} ${aggregationLevel} report${sort ? ' (asc)' : ''}`,
          'POST',
          '/report',
          w.key,
          { dateRange: RANGE, aggregationLevel, ...(sort ? { sort } : {}) },
        ]);
    out.push([
      `${w.id} day report of p_team`,
      'POST',
      '/report',
      w.key,
      { dateRange: RANGE, aggregationLevel: 'day', projectIds: ['p_team'] },
    ]);
    for (const aggregationLevel of ['day', 'task', 'week'])
      out.push([
        `${w.id} team ${aggregationLevel} report`,
        'POST',
        '/report',
        w.key,
        { dateRange: RANGE, aggregationLevel, teamIds: ['t_eng'] },
      ]);
    for (const query of [...WORDS, 'zephyr notes', 'about'])
      out.push([`${w.id} search "${query}"`, 'POST', '/search', w.key, { query, days: 30, limit: 50 }]);
    out.push([`${w.id} projects`, 'GET', '/projects?includeArchived=true', w.key, undefined]);
    for (const p of w.projects) out.push([`${w.id} project ${p.id}`, 'GET', `/projects/${p.id}`, w.key, undefined]);
  }
  return out;
}

/** Each writer's activity report lists exactly the model's activities of that writer, as recorded. */
async function checkModel(app: App, model: Model, label: string): Promise<void> {
  for (const w of WRITERS) {
    const res = await call(app, 'POST', '/report', {
      key: w.key,
      body: { dateRange: RANGE, aggregationLevel: 'activity' },
    });
    assert.equal(res.status, 200, res.body);
    const row = (a: ActivityRecord) => ({
      id: `activity:${a.id}`,
      timestampIso: a.start,
      duration: a.durationMinutes,
      headline: a.headline,
      description: a.description,
      task_id: a.taskId,
      project_id: a.projectId ?? (a.taskId === null ? null : model.tasks.get(a.taskId)!.projectId),
      category: CATEGORIES.find((c) => c.id === a.categoryId)?.name ?? null,
    });
    assert.deepEqual(
      res.json.rows.map((r: ReturnType<typeof row>) => ({
        id: r.id,
        timestampIso: r.timestampIso,
        duration: r.duration,
        headline: r.headline,
        description: r.description,
        task_id: r.task_id,
        project_id: r.project_id,
        category: r.category,
      })),
      model.activitiesOf(w).map(row),
      `${label}: ${w.id}'s activities are the model's`,
    );
  }
}

/** Every read answers the same on both apps. */
async function compare(written: App, imported: App, label: string): Promise<void> {
  await Promise.all(
    reads().map(async ([what, method, url, key, body]) => {
      const [a, b] = await Promise.all([
        call(written, method, url, { key, body }),
        call(imported, method, url, { key, body }),
      ]);
      assert.equal(a.status, 200, `${what}: ${a.body}`);
      assert.deepEqual(a.json, b.json, `${label}: ${what} differs between the API's database and the imported one`);
    }),
  );
}

forEachDialect('the write API and the importer agree (property)', (dialect) => {
  const files = tempFiles();
  let worldFile: string;
  before(() => {
    worldFile = files.write('world.json', world);
  });
  after(() => files.remove());

  test("a task that loses its last activity is created at noon of its date again, as an import's", async () => {
    const written = await createTestApp(dialect, { dataset: worldFile });
    try {
      const model = new Model();
      const steps: Action[] = [
        // Alice's world task k_alice_old (2026-11-20, no createdAt) gains an activity, then loses it.
        {
          kind: 'record',
          user: 0,
          items: [
            {
              id: 'pool',
              pick: 0,
              start: Date.parse('2026-11-21T23:30:00Z'),
              format: 'z',
              durationMinutes: 20,
              headline: 'Tuned zephyr',
              description: undefined,
              task: 1,
              project: 0,
              category: undefined,
            },
          ],
        },
        { kind: 'deleteActivity', user: 0, pick: 0, existing: true },
        // Bob's k_bob gains one that then moves to another task of his.
        {
          kind: 'createTask',
          user: 1,
          pool: 0,
          day: 8,
          omitDate: false,
          title: 'Fixed tundra',
          description: undefined,
          project: undefined,
          visible: undefined,
          minutes: undefined,
          startMinute: undefined,
          format: 'z',
        },
      ];
      for (const [step, action] of steps.entries()) await apply(written, model, action, `step ${step}`);
      const move = (taskId: string) =>
        call(written.app, 'POST', '/activities', {
          key: BOB,
          body: { activities: [{ id: 'a_p1', start: '2026-11-19T07:00:00Z', headline: 'Tuned zephyr', taskId }] },
        });
      assert.equal((await move('k_bob')).status, 200);
      assert.equal((await move('k_p0')).status, 200);
      const found = async (key: string, query: string) =>
        (await call(written.app, 'POST', '/search', { key, body: { query, days: 30 } })).json.results.map(
          (r: { id: string; timestamp: string }) => [r.id, r.timestamp],
        );
      assert.deepEqual(await found(ALICE, 'old'), [['k_alice_old', '2026-11-20T11:00:00.000Z']]);
      assert.deepEqual(await found(BOB, 'bob task'), [['k_bob', '2026-11-20T12:00:00.000Z']]);
      assert.deepEqual(await found(BOB, 'fixed tundra'), [['k_p0', '2026-11-19T07:00:00.000Z']]);
      // An import that moves the activity back leaves k_p0 without one: noon of its date in UTC.
      const back = files.write('move-back.json', {
        version: 1,
        activities: [{ id: 'a_p1', userId: 'u_bob', start: '2026-11-19T07:00:00Z', headline: 'x', taskId: 'k_bob' }],
      });
      await importDataset(written.storage, back, { now: () => DEFAULT_NOW });
      assert.deepEqual(await found(BOB, 'fixed tundra'), [['k_p0', '2026-11-20T12:00:00.000Z']]);
      assert.deepEqual(await found(BOB, 'bob task'), [['k_bob', '2026-11-19T07:00:00.000Z']]);
    } finally {
      await written.close();
    }
  });

  test('any sequence of writes leaves what an import of its records leaves: reports, search, usedAt', () =>
    agreeWithImport(dialect, files, () => worldFile, { numRuns: 12 }));
});

describe('the write API on its own thread (a SQLite file) and the importer agree (property)', () => {
  const files = tempFiles();
  let worldFile: string;
  before(() => {
    worldFile = files.write('world.json', world);
  });
  after(() => files.remove());

  test('any sequence of writes through the write thread leaves what an import of its records leaves', () =>
    agreeWithImport('sqlite', files, () => worldFile, { numRuns: 6, thread: true }));
});

/**
 * The property: random sequences of API writes, then every report level, search and `usedAt`
 * compared with a fresh database that imported the resulting records. `thread`: the written
 * database is a SQLite file and the writes run on the write thread (services/recording/recorder.ts).
 */
async function agreeWithImport(
  dialect: Dialect,
  files: ReturnType<typeof tempFiles>,
  worldFile: () => string,
  { numRuns, thread = false }: { numRuns: number; thread?: boolean },
): Promise<void> {
  let run = 0;
  // Databases are dropped while the next runs go on, and awaited at the end.
  const drops: Promise<void>[] = [];
  await fc
    .assert(
      fc.asyncProperty(fc.array(actionArb, { minLength: 5, maxLength: 25 }), async (actions) => {
        const n = run++;
        const databases = await Promise.all([
          thread ? createSharedTestDatabase(dialect) : createTestDatabase(dialect),
          createTestDatabase(dialect),
        ]);
        const [writtenDb, importedDb] = databases;
        let written: TestApp | undefined;
        let imported: TestApp | undefined;
        try {
          written = await createTestApp(dialect, {
            database: writtenDb,
            dataset: worldFile(),
            config: { writeThread: thread },
          });
          const model = new Model();
          for (const [step, action] of actions.entries())
            await apply(written, model, action, `step ${step} (${action.kind})`);
          const file = files.write(`records-${thread ? 't' : ''}${n}.json`, model.dataset());
          imported = await createTestApp(dialect, { database: importedDb, dataset: file });
          await checkModel(written.app, model, `run ${n}`);
          await compare(written.app, imported.app, `run ${n}`);
        } finally {
          await Promise.all([written?.close(), imported?.close()]);
          drops.push(...databases.map((d) => d.drop()));
        }
      }),
      // A failure shrinks (each try a run of its own) for at most a few minutes.
      { numRuns, interruptAfterTimeLimit: 5 * 60_000, markInterruptAsFailure: true },
    )
    .finally(() => Promise.all(drops));
}
