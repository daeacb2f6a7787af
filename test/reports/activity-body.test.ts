/**
 * Activity-level reports are read from the database already in response order and written
 * straight into UTF-8 chunks (services/reports/activity.ts). Their body must be byte for byte
 * what the plain way gives: every row read at once, built as an object, sorted in JS and the
 * envelope passed to JSON.stringify (the implementation this one replaced, kept here as the
 * model). Rows here carry emoji, quotes, backslashes, control characters, U+2028, lone
 * surrogates and fractional minutes, share start instants, and have ids whose plain order
 * differs from a locale's.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import pg from 'pg';
import { Utf8Chunks } from '../../src/lib/utf8-chunks.ts';
import { localTimeOf } from '../../src/lib/time.ts';
import { encodeActivityReport } from '../../src/services/reports/activity.ts';
import type { ActivityRow, ReportBody } from '../../src/schemas/report.ts';
import { parseReportRequest } from '../../src/services/reports/request.ts';
import { migrate, openStorage, type Storage } from '../../src/storage/database.ts';
import {
  DEFAULT_NOW,
  DIALECTS,
  EXAMPLE,
  KEYS,
  PG_ADMIN_URL,
  type TestApp,
  type TestDatabase,
  call,
  createTestApp,
  forEachDialect,
} from '../helper.ts';

const ALICE = { id: 'u_alice', timezone: 'Europe/Berlin' };
const DAY = 86_400_000;
const RANGE = { from: DEFAULT_NOW - 89 * DAY, to: DEFAULT_NOW };

// Every kind of text JSON.stringify escapes or passes through: quotes, backslashes, every
// control character but NUL (PostgreSQL text cannot hold it), DEL, line and paragraph
// separators, emoji (astral, joined, with variation selectors), accents, and U+FFFD (what a lone
// surrogate would have become, were it not refused: lib/text-checks.ts).
const CONTROLS = Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join('');
const TEXTS = [
  'Plain headline',
  'She said "ship it" \\o/',
  `controls ${CONTROLS} end`,
  'tab\there, newline\nthere, CR\r, DEL \u007f',
  'separators \u2028 and \u2029',
  '👩‍💻 pairing on 🎯 focus ✉️ mail',
  'Ünïcödé — “typographic” ‘quotes’ …',
  'replacement \ufffd character',
  '</script><b>&amp;</b>',
  'x'.repeat(300),
];
const DESCRIPTIONS = [null, ...TEXTS, `${'🗣️ long '.repeat(400)}\\"`];
// Plain code-unit order of these differs from locale order (case, punctuation).
const ID_STEMS = ['a', 'B', 'b', 'Z', '_', 'a-1', 'a.1', 'a:1', 'a_1', 'A_1', 'a1', 'aa', 'AB'];

interface Generated {
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

/** The example dataset plus ~1,300 activities of Alice over 89 days (and a few of Bob's). */
function dataset(base: Record<string, unknown[]>): Record<string, unknown[]> {
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return Math.floor(seed / 65_536) % n;
  };
  const pick = <T>(items: readonly T[]) => items[next(items.length)]!;
  const tasks = ['k_alice_0_0', 'k_alice_0_1', 'k_alice_0_2', 'k_alice_1_0', 'k_alice_2_2', null, null];
  const projects = ['p_api', 'p_onb', 'p_garden', null, null, null];
  const categories = ['c_focus', 'c_meet', 'c_comms', null];
  const durations = [5, 0.5, 1 / 3, 2.25, 59.999, 60, 0.1 + 0.2];
  const activities: Generated[] = [];
  for (let i = 0; i < 1300; i++) {
    // Many share a start (ties broken by id), some sit on the 2026-10-25 change in Berlin.
    const start = RANGE.from + 3_600_000 + next(89 * 24) * 3_600_000 + pick([0, 0, 0, 60_000, 1_799_999]);
    activities.push({
      id: `${pick(ID_STEMS)}${i % 3 === 0 ? '' : `-${i}`}_${i}`,
      userId: i % 50 === 0 ? 'u_bob' : 'u_alice',
      start: new Date(start).toISOString(),
      durationMinutes: pick(durations),
      headline: pick(TEXTS),
      description: pick(DESCRIPTIONS),
      taskId: i % 50 === 0 ? null : pick(tasks),
      projectId: i % 50 === 0 ? null : pick(projects),
      categoryId: pick(categories),
    });
  }
  return { ...base, activities: [...base.activities!, ...activities] };
}

/** The report as it was built before: all rows at once, sorted in JS, one JSON.stringify. */
async function modelBody(storage: Storage, body: ReportBody): Promise<string> {
  const request = parseReportRequest(body, DEFAULT_NOW);
  let query = storage.db
    .selectFrom('activities as a')
    .leftJoin('tasks as t', 't.id', 'a.task_id')
    .leftJoin('projects as p', 'p.id', 'a.effective_project_id')
    .leftJoin('categories as c', 'c.id', 'a.category_id')
    .select([
      'a.id',
      'a.start',
      'a.duration_minutes',
      'a.headline',
      'a.description',
      'a.task_id',
      't.title',
      'a.effective_project_id',
      'p.name as project_name',
      'c.name as category_name',
      'c.emoji',
    ])
    .where('a.user_id', '=', ALICE.id)
    .where('a.start', '>=', request.from)
    .where('a.start', '<', request.to);
  if (request.projectIds) query = query.where('a.effective_project_id', 'in', request.projectIds);
  const rows = (await query.execute()).map((a) => {
    const row: ActivityRow = {
      id: `${request.activityIdPrefix}:${a.id}`,
      timestamp: a.start,
      timestampIso: new Date(a.start).toISOString(),
      time: localTimeOf(a.start, ALICE.timezone),
      duration: a.duration_minutes,
      headline: a.headline,
      description: a.description,
      task: a.title,
      task_id: a.task_id,
    };
    if (request.includeProjects) {
      row.project = a.project_name;
      row.project_id = a.effective_project_id;
    }
    if (request.includeCategories) {
      row.category = a.category_name;
      row.category_emoji = a.emoji;
    }
    return row;
  });
  const byId = (a: ActivityRow, b: ActivityRow) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const direction = request.sort === 'desc' ? -1 : 1;
  rows.sort(request.sort === null ? byId : (a, b) => direction * (a.timestamp - b.timestamp) || byId(a, b));
  return JSON.stringify({ success: true, rowCount: rows.length, rows });
}

const BODIES: [string, ReportBody][] = [
  ['no sort (id order)', { dateRange: RANGE, aggregationLevel: 'activity' }],
  ['sort asc', { dateRange: RANGE, aggregationLevel: 'activity', sort: 'asc' }],
  ['sort desc', { dateRange: RANGE, aggregationLevel: 'activity', sort: 'desc' }],
  ['legacy minute level', { dateRange: RANGE, aggregationLevel: 'minute', sort: 'desc' }],
  ['without projects', { dateRange: RANGE, aggregationLevel: 'activity', includeProjects: false }],
  ['without categories', { dateRange: RANGE, aggregationLevel: 'activity', includeCategories: false, sort: 'asc' }],
  [
    'without both',
    { dateRange: RANGE, aggregationLevel: 'activity', includeProjects: false, includeCategories: false },
  ],
  ['one project', { dateRange: RANGE, aggregationLevel: 'activity', projectIds: ['p_api'] }],
  [
    'two projects, desc',
    { dateRange: RANGE, aggregationLevel: 'activity', projectIds: ['p_garden', 'p_onb'], sort: 'desc' },
  ],
  // A week or less is one plain query on PostgreSQL instead of a cursor (storage/reports.ts).
  [
    'the last week, no sort',
    { dateRange: { from: DEFAULT_NOW - 7 * DAY, to: DEFAULT_NOW }, aggregationLevel: 'activity' },
  ],
  [
    'the last week, desc',
    { dateRange: { from: DEFAULT_NOW - 7 * DAY, to: DEFAULT_NOW }, aggregationLevel: 'activity', sort: 'desc' },
  ],
  [
    'a range of a few hours',
    {
      dateRange: { from: Date.parse('2026-10-25T00:00:00Z'), to: Date.parse('2026-10-25T05:00:00Z') },
      aggregationLevel: 'activity',
    },
  ],
  [
    'an empty range',
    {
      dateRange: { from: Date.parse('2026-01-01T00:00:00Z'), to: Date.parse('2026-01-02T00:00:00Z') },
      aggregationLevel: 'activity',
    },
  ],
  ['a project without activities', { dateRange: RANGE, aggregationLevel: 'activity', projectIds: ['p_old'] }],
];

let dir: string;
let file: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'daybook-activity-body-'));
  file = join(dir, 'dataset.json');
  await writeFile(file, JSON.stringify(dataset(JSON.parse(await readFile(EXAMPLE, 'utf8')))));
});
after(() => rm(dir, { recursive: true, force: true }));

forEachDialect('POST /report activity body', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { dataset: file });
  });
  after(() => t.close());

  for (const [name, body] of BODIES) {
    test(`byte for byte the plain JSON.stringify of the rows: ${name}`, async () => {
      const expected = await modelBody(t.storage, body);
      const res = await t.app.inject({
        method: 'POST',
        url: '/report',
        headers: { 'x-api-key': KEYS.aliceAll },
        payload: body,
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(res.headers['content-length'], String(Buffer.byteLength(expected)));
      assert.ok(res.rawPayload.equals(Buffer.from(expected)), firstDifference(res.body, expected));
    });
  }

  test('the dataset is what the cases need: many rows, ties, every text', async () => {
    const { rows } = JSON.parse(await modelBody(t.storage, BODIES[0]![1])) as { rows: ActivityRow[] };
    assert.ok(rows.length > 1000, `${rows.length} rows`);
    assert.ok(new Set(rows.map((r) => r.timestamp)).size < rows.length - 100, 'many rows share a start');
    for (const text of TEXTS)
      assert.ok(
        rows.some((r) => r.headline === text),
        text,
      );
  });

  test('any chunk size gives the same bytes, code points split across chunks', async () => {
    for (const [, body] of BODIES.slice(0, 3)) {
      const expected = Buffer.from(await modelBody(t.storage, body));
      for (const chunkBytes of [4, 7, 1000]) {
        const report = await encodeActivityReport(t.storage, parseReportRequest(body, DEFAULT_NOW), ALICE, chunkBytes);
        assert.equal(report.byteLength, expected.length);
        assert.ok(report.chunks.every((c) => c.length > 0 && c.length <= Math.max(chunkBytes, 128)));
        assert.ok(Buffer.concat(report.chunks).equals(expected), `chunks of ${chunkBytes} bytes`);
      }
    }
  });

  test('other levels still answer through the route schema, with the same headers', async () => {
    const res = await call(t.app, 'POST', '/report', {
      key: KEYS.aliceAll,
      body: { dateRange: RANGE, aggregationLevel: 'day' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(res.json.rowCount, res.json.rows.length);
  });

  test('errors before the body is written are the usual envelope', async () => {
    const res = await call(t.app, 'POST', '/report', {
      key: KEYS.aliceAll,
      body: { dateRange: RANGE, aggregationLevel: 'activity', projectIds: ['p_nope'] },
    });
    assert.equal(res.status, 400);
    assert.deepEqual(res.json, {
      success: false,
      error: 'Unknown project id: "p_nope"',
      message: 'Unknown project id: "p_nope"',
    });
  });
});

// A PostgreSQL database whose default collation is ICU's en-US puts "B" between "a" and "b"
// and weighs punctuation last; the rows must still come in plain code-unit order.
describe('POST /report activity rows on a PostgreSQL database with an ICU en-US collation', {
  skip: !DIALECTS.includes('postgres'),
}, () => {
  let database: TestDatabase;
  let t: TestApp;
  before(async () => {
    database = await icuDatabase();
    t = await createTestApp('postgres', { dataset: file, database });
  });
  after(async () => {
    await t?.close();
    await database?.drop();
  });

  test('rows in plain id order, ties by plain id order', async () => {
    const ids = await t.storage.db
      .selectFrom('activities')
      .select('id')
      .where('user_id', '=', ALICE.id)
      .orderBy('id')
      .execute();
    const plain = ids.map((r) => r.id).sort();
    assert.notDeepEqual(
      ids.map((r) => r.id),
      plain,
      'the database collation is not the plain order',
    );
    for (const body of [BODIES[0]![1], BODIES[1]![1], BODIES[2]![1]]) {
      const res = await call(t.app, 'POST', '/report', { key: KEYS.aliceAll, body });
      assert.equal(res.body, await modelBody(t.storage, body));
    }
  });
});

/** A migrated PostgreSQL database with an ICU en-US default collation. */
async function icuDatabase(): Promise<TestDatabase> {
  const name = `daybook_icu_${Math.random().toString(16).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(
    `create database ${name} template template0 locale_provider icu icu_locale 'en-US' locale 'C.UTF-8'`,
  );
  await admin.end();
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const storage = openStorage(url.toString());
  await migrate(storage);
  return {
    url: url.toString(),
    storage,
    drop: async () => {
      await storage.close();
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

test('Utf8Chunks: any text, any chunk size, the bytes of Buffer.from(JSON.stringify(text))', () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ unit: 'binary' }), { maxLength: 8 }),
      fc.integer({ min: 4, max: 40 }),
      (texts, chunkBytes) => {
        const out = new Utf8Chunks(chunkBytes);
        for (const text of texts) out.write(JSON.stringify(text));
        out.prepend('[');
        const expected = Buffer.from(`[${texts.map((s) => JSON.stringify(s)).join('')}`);
        const length = out.byteLength;
        const chunks = out.finish();
        assert.equal(length, expected.length);
        assert.ok(chunks.every((c) => c.length > 0 && c.length <= Math.max(chunkBytes, 1)));
        assert.ok(Buffer.concat(chunks).equals(expected));
      },
    ),
    { numRuns: 300 },
  );
});

test('JSON text of lone surrogates is ASCII: the chunks never see an unpaired surrogate', () => {
  const value = { headline: 'a\ud800b\udfffc\ud83d', description: '\udc00' };
  const out = new Utf8Chunks(5);
  out.write(JSON.stringify(value));
  const bytes = Buffer.concat(out.finish());
  assert.equal(bytes.toString('utf8'), JSON.stringify(value));
  assert.equal(JSON.parse(bytes.toString('utf8')).headline, value.headline);
});

/** Where two long texts first differ, for a readable failure. */
function firstDifference(actual: string, expected: string): string {
  let i = 0;
  while (i < actual.length && actual[i] === expected[i]) i++;
  return `differs at ${i}: got …${JSON.stringify(actual.slice(i - 40, i + 40))}… expected …${JSON.stringify(expected.slice(i - 40, i + 40))}…`;
}
