/** The demo generator: deterministic, valid against the dataset schema, realistic, and lazy. */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { RECORD_TYPES, type RecordType, recordValidator, validateDocument } from '../../src/dataset/schema.ts';
import { demoRecords, writeDemoJson, writeDemoNdjson } from '../../src/demo/generate.ts';
import type { DemoOptions } from '../../src/demo/workspace.ts';
import { addDays, localDateOf, localTimeOf, offsetAt, weekdayOf } from '../../src/lib/time.ts';
import { SCOPES } from '../../src/services/scopes.ts';
import { DEFAULT_NOW, FULL_SUITE_ONLY } from '../helper.ts';

const OPTIONS: DemoOptions = { users: 8, days: 28, seed: '7', now: DEFAULT_NOW };

/** A Writable that keeps everything written to it. */
function collector(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

async function ndjson(options: DemoOptions): Promise<string> {
  const out = collector();
  await writeDemoNdjson(options, out.stream);
  return out.text();
}

async function jsonDocument(options: DemoOptions): Promise<string> {
  const out = collector();
  await writeDemoJson(options, out.stream);
  return out.text();
}

type Line = { type: RecordType } & Record<string, any>;
const parse = (text: string): Line[] =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line));

let cached: Line[] | undefined;
async function lines(): Promise<Line[]> {
  cached ??= parse(await ndjson(OPTIONS));
  return cached;
}
const ofType = async (type: RecordType) => (await lines()).filter((l) => l.type === type);

test('the same seed and clock give byte-identical NDJSON and JSON', async () => {
  assert.equal(await ndjson(OPTIONS), await ndjson({ ...OPTIONS }));
  assert.equal(await jsonDocument(OPTIONS), await jsonDocument({ ...OPTIONS }));
});

test('another seed gives other data', async () => {
  assert.notEqual(await ndjson(OPTIONS), await ndjson({ ...OPTIONS, seed: '8' }));
});

test('the JSON document and the NDJSON stream hold the same records', async () => {
  const doc = JSON.parse(await jsonDocument(OPTIONS));
  const fromStream = await lines();
  for (const type of RECORD_TYPES) {
    const array = {
      user: 'users',
      team: 'teams',
      portfolio: 'portfolios',
      category: 'categories',
      project: 'projects',
      task: 'tasks',
      activity: 'activities',
      dayComment: 'dayComments',
      apiKey: 'apiKeys',
    }[type];
    const expected = fromStream.filter((l) => l.type === type).map(({ type: _, ...record }) => record);
    assert.deepEqual(doc[array] ?? [], expected, array);
  }
});

test("the JSON document validates against the product's dataset schema, and every NDJSON line against its record type", async () => {
  const doc = JSON.parse(await jsonDocument(OPTIONS));
  assert.ok(validateDocument(doc), JSON.stringify(validateDocument.errors));
  for (const { type, ...record } of await lines()) {
    const validate = recordValidator(type);
    assert.ok(validate(record), `${type}: ${JSON.stringify(validate.errors)}`);
  }
});

test('NDJSON records refer only to records on earlier lines', async () => {
  const seen = new Set<string>();
  for (const [index, line] of (await lines()).entries()) {
    const refs = [
      line.userId,
      line.ownerId,
      line.createdBy,
      line.teamId,
      line.portfolioId,
      line.projectId,
      line.taskId,
      line.categoryId,
      ...(line.members ?? []).map((m: { userId: string }) => m.userId),
      ...(line.contributorIds ?? []),
    ].filter((ref): ref is string => typeof ref === 'string');
    for (const ref of refs)
      assert.ok(seen.has(ref), `line ${index + 1} (${line.type}) refers to ${ref} before it exists`);
    if (line.id) seen.add(line.id);
  }
});

test('people live east and west of UTC, one week starts on Sunday, and names come from all three sources', async () => {
  const users = await ofType('user');
  const offsets = users.map((u) => offsetAt(DEFAULT_NOW, u.timezone));
  assert.ok(offsets.some((o) => o > 0) && offsets.some((o) => o < 0), String(offsets));
  assert.ok(users.some((u) => u.weekStart === 'sunday'));
  assert.ok(users.some((u) => u.name) && users.some((u) => !u.name && u.displayName));
  assert.equal(new Set(users.map((u) => u.email)).size, users.length);
});

test('teams have an inactive member; portfolios are team and personal', async () => {
  const teams = await ofType('team');
  assert.ok(teams.length >= 1);
  assert.ok(teams.every((t) => t.members.some((m: { status: string }) => m.status === 'inactive')));
  const portfolios = await ofType('portfolio');
  assert.ok(portfolios.some((p) => p.teamId) && portfolios.some((p) => p.teamId === null));
});

test('a workspace of more than 25 people has a 25-member department team across squads', async () => {
  const teams = parse(await ndjson({ ...OPTIONS, users: 30, days: 2 })).filter((l) => l.type === 'team');
  const activeOf = (t: Line) =>
    t.members.filter((m: { status: string }) => m.status === 'active').map((m: { userId: string }) => m.userId);
  const department = teams.find((t) => activeOf(t).length === 25);
  assert.ok(department, `active members per team: ${teams.map((t) => activeOf(t).length).join(', ')}`);
  assert.ok(department.members.some((m: { status: string }) => m.status === 'inactive'));
  // Its members also belong to their own squads.
  const squads = teams.filter((t) => t !== department);
  assert.ok(activeOf(department).every((u: string) => squads.some((t) => activeOf(t).includes(u))));
  // Smaller workspaces (the first-run demo) have squads only.
  assert.ok((await ofType('team')).every((t) => activeOf(t).length < 25));
});

test('projects are team, personal, private, confidential and archived, in the allowed colors', async () => {
  const projects = await ofType('project');
  assert.ok(projects.some((p) => p.teamId));
  assert.ok(projects.some((p) => p.teamId === null));
  assert.ok(projects.some((p) => p.private));
  assert.ok(projects.some((p) => p.confidential));
  assert.ok(projects.some((p) => p.archived));
  assert.ok(projects.some((p) => Array.isArray(p.contributorIds)));
  assert.ok(projects.every((p) => /^#[0-9A-F]{6}$/.test(p.color)));
});

test('categories include Focus work, Meetings, Communication and Planning, each with an emoji', async () => {
  const categories = await ofType('category');
  for (const name of ['Focus work', 'Meetings', 'Communication', 'Planning']) {
    const category = categories.find((c) => c.name === name);
    assert.ok(category?.emoji, name);
  }
});

test("activities come every five minutes in working hours, with breaks, on the person's local days", async () => {
  const users = new Map((await ofType('user')).map((u) => [u.id, u]));
  const byDay = new Map<string, number[]>();
  for (const a of await ofType('activity')) {
    const tz = users.get(a.userId)!.timezone;
    const start = Date.parse(a.start);
    assert.equal(a.durationMinutes, 5);
    const time = localTimeOf(start, tz);
    assert.ok(time >= '07:00' && time < '21:00', `${a.id} at ${time} local`);
    const key = `${a.userId} ${localDateOf(start, tz)}`;
    byDay.set(key, [...(byDay.get(key) ?? []), start]);
  }
  let breaks = 0;
  for (const [key, starts] of byDay) {
    starts.sort((x, y) => x - y);
    for (let i = 1; i < starts.length; i++) {
      const gap = starts[i]! - starts[i - 1]!;
      assert.ok(gap >= 5 * 60_000 && gap % (5 * 60_000) === 0, `${key}: activities ${gap / 60_000} min apart`);
      if (gap > 5 * 60_000) breaks++;
    }
  }
  // Every full working day has at least a lunch break.
  assert.ok(breaks >= [...byDay.values()].filter((s) => s.length > 60).length);
});

test('a working day tracks close to the daily target; weekends are mostly empty', async () => {
  const users = new Map((await ofType('user')).map((u) => [u.id, u]));
  const minutes = new Map<string, number>();
  for (const a of await ofType('activity')) {
    const key = `${a.userId} ${localDateOf(Date.parse(a.start), users.get(a.userId)!.timezone)}`;
    minutes.set(key, (minutes.get(key) ?? 0) + a.durationMinutes);
  }
  let weekend = 0;
  let weekday = 0;
  for (const [key, total] of minutes) {
    const [userId, date] = key.split(' ') as [string, string];
    const dow = weekdayOf(date);
    if (dow === 0 || dow === 6) weekend += total;
    else {
      weekday += total;
      const target = users.get(userId)!.dailyTargetMinutes;
      assert.ok(total >= target * 0.8 && total <= target * 1.15, `${key}: ${total} min against ${target}`);
    }
  }
  assert.ok(weekend < weekday * 0.05, `weekend ${weekend} min, weekdays ${weekday} min`);
});

test('tasks have titles and descriptions, belong to the day of their activities, and some are hidden', async () => {
  const tasks = await ofType('task');
  const users = new Map((await ofType('user')).map((u) => [u.id, u]));
  const taskById = new Map(tasks.map((t) => [t.id, t]));
  assert.ok(tasks.every((t) => t.title.length > 3));
  assert.ok(tasks.filter((t) => t.description).length > tasks.length / 4);
  assert.ok(tasks.some((t) => t.visible === false));
  assert.ok(new Set(tasks.map((t) => t.title)).size > 50, 'titles vary');
  const activities = await ofType('activity');
  assert.ok(
    activities.some((a) => a.taskId === null),
    'some time is logged without a task',
  );
  for (const a of activities.filter((x) => x.taskId)) {
    const task = taskById.get(a.taskId)!;
    assert.equal(task.userId, a.userId);
    assert.equal(task.date, localDateOf(Date.parse(a.start), users.get(a.userId)!.timezone));
  }
});

test("the days end on each person's local yesterday, and some carry a comment", async () => {
  const users = await ofType('user');
  const activities = await ofType('activity');
  assert.ok(activities.every((a) => Date.parse(a.start) < DEFAULT_NOW));
  for (const user of users) {
    const yesterday = addDays(localDateOf(DEFAULT_NOW, user.timezone), -1);
    const tasks = (await ofType('task'))
      .filter((t) => t.userId === user.id)
      .map((t) => t.date)
      .sort();
    assert.ok(tasks.at(-1)! <= yesterday);
    assert.ok(tasks[0]! >= addDays(yesterday, -(OPTIONS.days - 1)));
  }
  const comments = await ofType('dayComment');
  assert.ok(comments.length > 0 && comments.every((c) => c.comment.length > 0));
});

test('every person has an API key with all scopes; one key is revoked', async () => {
  const keys = await ofType('apiKey');
  const users = await ofType('user');
  for (const user of users) {
    assert.ok(
      keys.some((k) => k.userId === user.id && k.scopes.length === SCOPES.length && !k.revoked),
      user.id,
    );
  }
  assert.ok(keys.some((k) => k.revoked));
  assert.equal(new Set(keys.map((k) => k.key)).size, keys.length);
});

/** A full garbage collection, so that heap samples show what is retained, not what is garbage. */
function collectGarbage(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

test('the benchmark size (100 people × 365 days) streams as NDJSON in constant memory', {
  skip: FULL_SUITE_ONLY,
}, async (t) => {
  const gc = collectGarbage();
  const options: DemoOptions = { users: 100, days: 365, seed: '1', now: DEFAULT_NOW };
  let bytes = 0;
  let lines = 0;
  const retained: number[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
      if (bytes > retained.length * 50_000_000) {
        gc();
        retained.push(process.memoryUsage().heapUsed);
      }
      done();
    },
  });
  const counts = await writeDemoNdjson(options, sink);
  assert.equal(
    Object.values(counts).reduce((a, b) => a + b, 0),
    lines,
  );
  assert.ok(counts.activity > 2_000_000, `${counts.activity} activities`);
  assert.ok(bytes > 500_000_000, `${bytes} bytes`);
  // Hundreds of megabytes went through; what stays on the heap does not grow with them.
  const growth = Math.max(...retained) - retained[0]!;
  t.diagnostic(
    `${counts.activity} activities, ${Math.round(bytes / 1e6)} MB, retained heap grew ${(growth / 1e6).toFixed(1)} MB`,
  );
  assert.ok(
    growth < 16 * 1024 * 1024,
    `retained heap samples (MB): ${retained.map((h) => (h / 1e6).toFixed(1)).join(', ')}`,
  );
});

test('the generator is lazy: the first records of a huge workspace come at once', () => {
  const started = Date.now();
  const iterator = demoRecords({ users: 1000, days: 3650, seed: '1', now: DEFAULT_NOW });
  let n = 0;
  for (const _ of iterator) if (++n === 50_000) break;
  assert.equal(n, 50_000);
  assert.ok(Date.now() - started < 15_000);
});
