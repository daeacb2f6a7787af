/**
 * Large imports: on SQLite the importer takes the search and rollup triggers off while it
 * writes activities and catches both up set-wise (storage/activity-bulk.ts). Whatever the
 * path, after any sequence of imports — first import, re-imports that move, rewrite and add
 * activities, the same activity twice in one file, activities interleaved with task changes —
 * the rollups equal a fresh GROUP BY, the search index holds exactly what a rebuild from the
 * tables would, the triggers are back, and the days an activity left are marked changed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { ImportError, importDataset } from '../../src/dataset/import.ts';
import type { Storage } from '../../src/storage/database.ts';
import { DEFAULT_NOW, type TestDatabase, createTestDatabase, forEachDialect } from '../helper.ts';
import { tempFiles } from './dataset-files.ts';

const WORDS = [
  'deploy',
  'café',
  'Müller',
  'review',
  'naïve',
  'release',
  'Σίσυφος',
  'backlog',
  'standup',
  'läuft',
  '🚀',
  'notes',
];
const USERS = [
  { id: 'u_one', tz: 'UTC' },
  { id: 'u_two', tz: 'America/Sao_Paulo' },
  { id: 'u_three', tz: 'Asia/Kathmandu' },
];
const DAY = 86_400_000;
const BASE = Date.parse('2026-10-01T00:00:00Z');

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  return {
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
    words: (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' '),
  };
}

function header(): string[] {
  return [
    ...USERS.map((u) => JSON.stringify({ type: 'user', id: u.id, email: `${u.id}@example.com`, timezone: u.tz })),
    JSON.stringify({ type: 'category', id: 'c_a', name: 'Build' }),
    JSON.stringify({ type: 'category', id: 'c_b', name: 'Talk' }),
    JSON.stringify({ type: 'project', id: 'p_a', name: 'Alpha', createdBy: 'u_one' }),
    JSON.stringify({ type: 'project', id: 'p_b', name: 'Beta', createdBy: 'u_two' }),
    ...USERS.flatMap((u) =>
      [0, 1, 2].map((i) =>
        JSON.stringify({
          type: 'task',
          id: `k_${u.id}_${i}`,
          userId: u.id,
          date: '2026-10-02',
          title: `Task ${i} review`,
          projectId: i === 2 ? null : 'p_a',
        }),
      ),
    ),
  ];
}

function activity(r: ReturnType<typeof random>, id: string, userId?: string): string {
  const user = userId ?? r.pick(USERS).id;
  return JSON.stringify({
    type: 'activity',
    id,
    userId: user,
    start: new Date(BASE + r.int(20) * DAY + r.int(DAY)).toISOString(),
    durationMinutes: 1 + r.int(60),
    headline: r.words(1 + r.int(4)),
    ...(r.int(3) === 0 ? {} : { description: r.words(r.int(6)) }),
    ...(r.int(2) === 0 ? { taskId: `k_${user}_${r.int(3)}` } : {}),
    ...(r.int(4) === 0 ? { projectId: r.pick(['p_a', 'p_b']) } : {}),
    ...(r.int(3) === 0 ? { categoryId: r.pick(['c_a', 'c_b']) } : {}),
  });
}

/** day_rollups as stored, and as a fresh GROUP BY over activities would make them. */
async function rollupsAndExpected(storage: Storage): Promise<[string[], string[]]> {
  const show = (rows: Record<string, unknown>[]) =>
    rows
      .map(
        (r) =>
          `${r.user_id}|${r.local_date}|${r.project_key}|${r.category_key}|${r.task_key}|${Number(r.minutes)}|${Number(r.activities)}`,
      )
      .sort();
  const stored = await sql<Record<string, unknown>>`select * from day_rollups`.execute(storage.db);
  const fresh = await sql<Record<string, unknown>>`
    select user_id, local_date, coalesce(effective_project_id, '') as project_key, coalesce(category_id, '') as category_key,
      coalesce(task_id, '') as task_key, sum(duration_minutes) as minutes, count(*) as activities
    from activities group by 1, 2, 3, 4, 5`.execute(storage.db);
  return [show(stored.rows), show(fresh.rows)];
}

/**
 * SQLite: the index's entries, column by column and word by word, against an index rebuilt
 * from the tables with the same definition. Each word of the rebuilt index is looked up in the
 * real one (a lookup honours deletions), and the real one may hold no word the rebuilt lacks.
 */
async function searchIndexDifferences(storage: Storage): Promise<string[]> {
  const db = storage.db;
  const {
    rows: [definition],
  } = await sql<{ sql: string }>`select sql from sqlite_master where name = 'search_index'`.execute(db);
  await sql`drop table if exists temp.rebuilt_words`.execute(db);
  await sql`drop table if exists temp.rebuilt`.execute(db);
  await sql
    .raw(definition!.sql.replace(/create virtual table search_index/i, 'create virtual table temp.rebuilt'))
    .execute(db);
  const scope = (letter: string, time: string) =>
    `'${letter}' || hex(r.user_id) || 'd' || strftime('%Y%m%d', r.${time} / 1000, 'unixepoch')`;
  await sql
    .raw(`insert into temp.rebuilt (rowid, scope, title, description)
    select d.doc, ${scope('t', 'created_at')}, r.title, r.description from tasks r join search_documents d on d.source = 'tasks' and d.record_id = r.id`)
    .execute(db);
  await sql
    .raw(`insert into temp.rebuilt (rowid, scope, title, description)
    select d.doc, ${scope('a', 'start')}, r.headline, r.description from activities r join search_documents d on d.source = 'activity' and d.record_id = r.id`)
    .execute(db);
  const differences: string[] = [];
  const { rows: docs } = await sql<{ n: number; records: number }>`
    select (select count(*) from search_documents) as n,
      (select count(*) from tasks) + (select count(*) from activities) as records`.execute(db);
  if (docs[0]!.n !== docs[0]!.records)
    differences.push(`${docs[0]!.n} search documents for ${docs[0]!.records} records`);
  await sql`create virtual table temp.rebuilt_words using fts5vocab(temp, rebuilt, col)`.execute(db);
  const { rows: words } = await sql<{ term: string; col: string }>`select term, col from temp.rebuilt_words`.execute(
    db,
  );
  for (const { term, col } of words) {
    const query = `{${col}} : "${term.replaceAll('"', '""')}"`;
    const ids = async (table: string) =>
      (
        await sql<{
          rowid: number;
        }>`select rowid from ${sql.raw(table)} where ${sql.raw(table.replace('temp.', ''))} match ${query} order by rowid`.execute(
          db,
        )
      ).rows
        .map((r) => r.rowid)
        .join(',');
    const [actual, expected] = [await ids('search_index'), await ids('temp.rebuilt')];
    if (actual !== expected) differences.push(`${col}:${term} found in [${actual}], rebuilt index has [${expected}]`);
  }
  await sql`drop table temp.rebuilt_words`.execute(db);
  await sql`drop table temp.rebuilt`.execute(db);
  return differences;
}

async function triggersOnActivities(storage: Storage): Promise<string[]> {
  if (storage.dialect === 'postgres') {
    const { rows } = await sql<{
      name: string;
    }>`select tgname as name from pg_trigger where tgrelid = 'activities'::regclass and not tgisinternal order by 1`.execute(
      storage.db,
    );
    return rows.map((r) => r.name);
  }
  const { rows } = await sql<{
    name: string;
  }>`select name from sqlite_master where type = 'trigger' and tbl_name = 'activities' order by 1`.execute(storage.db);
  return rows.map((r) => r.name);
}

async function indexesOnActivities(storage: Storage): Promise<string[]> {
  if (storage.dialect === 'postgres') {
    const { rows } = await sql<{
      name: string;
    }>`select indexname as name from pg_indexes where tablename = 'activities' order by 1`.execute(storage.db);
    return rows.map((r) => r.name);
  }
  const { rows } = await sql<{
    name: string;
  }>`select name from sqlite_master where type = 'index' and tbl_name = 'activities' order by 1`.execute(storage.db);
  return rows.map((r) => r.name);
}

forEachDialect('bulk import upkeep', (dialect) => {
  let database: TestDatabase;
  const files = tempFiles();
  const now = () => DEFAULT_NOW;
  let triggers: string[];
  let indexes: string[];

  before(async () => {
    database = await createTestDatabase(dialect);
    triggers = await triggersOnActivities(database.storage);
    indexes = await indexesOnActivities(database.storage);
    assert.ok(indexes.includes('activities_user_start') && indexes.includes('activities_task'), indexes.join(', '));
  });
  after(async () => {
    await database.drop();
    files.remove();
  });

  async function assertConsistent(when: string): Promise<void> {
    const [stored, fresh] = await rollupsAndExpected(database.storage);
    assert.deepEqual(stored, fresh, `${when}: rollups equal a fresh GROUP BY`);
    if (dialect === 'sqlite')
      assert.deepEqual(await searchIndexDifferences(database.storage), [], `${when}: search index`);
    assert.deepEqual(await triggersOnActivities(database.storage), triggers, `${when}: the triggers are all there`);
    assert.deepEqual(await indexesOnActivities(database.storage), indexes, `${when}: the indexes are all there`);
  }

  test('a first import of many activities', async () => {
    const r = random(1);
    const lines = [...header(), ...Array.from({ length: 1500 }, (_, i) => activity(r, `a_${i}`))];
    await importDataset(database.storage, files.write('first.ndjson', lines.join('\n')), { now });
    const { rows } = await sql<{ n: number }>`select count(*) as n from activities`.execute(database.storage.db);
    assert.equal(Number(rows[0]!.n), 1500);
    await assertConsistent('after the first import');
  });

  test('a first import in which a task changes project after its activities were written', async () => {
    // A database of its own: the activities table starts empty, as on a first import.
    const first = await createTestDatabase(dialect);
    try {
      const r = random(7);
      const lines = [
        ...header(),
        ...Array.from({ length: 600 }, (_, i) => activity(r, `f_${i}`, 'u_one')),
        JSON.stringify({
          type: 'task',
          id: 'k_u_one_2',
          userId: 'u_one',
          date: '2026-10-02',
          title: 'Moved early',
          projectId: 'p_b',
        }),
        ...Array.from({ length: 600 }, (_, i) => activity(r, `g_${i}`)),
      ];
      await importDataset(first.storage, files.write('first-moves.ndjson', lines.join('\n')), { now });
      const { rows } = await sql<{ project: string | null; n: number }>`
        select effective_project_id as project, count(*) as n from activities
        where task_id = 'k_u_one_2' and project_id is null group by 1`.execute(first.storage.db);
      assert.deepEqual(
        rows.map((row) => [row.project, Number(row.n) > 0]),
        [['p_b', true]],
        "the task's activities follow it",
      );
      const [stored, fresh] = await rollupsAndExpected(first.storage);
      assert.deepEqual(stored, fresh, 'rollups equal a fresh GROUP BY');
      if (dialect === 'sqlite') assert.deepEqual(await searchIndexDifferences(first.storage), []);
      assert.deepEqual(await triggersOnActivities(first.storage), triggers);
      assert.deepEqual(await indexesOnActivities(first.storage), indexes);
    } finally {
      await first.drop();
    }
  });

  test('re-imports that rewrite, move and add activities, with the same id twice and task changes between', async () => {
    for (const seed of [2, 3]) {
      const r = random(seed);
      const lines = [
        ...Array.from({ length: 700 }, () => activity(r, `a_${r.int(2000)}`)),
        // A task moves to another project: its activities without their own project follow.
        JSON.stringify({
          type: 'task',
          id: 'k_u_one_0',
          userId: 'u_one',
          date: '2026-10-02',
          title: `Moved ${seed}`,
          projectId: seed === 2 ? 'p_b' : null,
        }),
        ...Array.from({ length: 700 }, () => activity(r, `a_${r.int(2000)}`)),
      ];
      await importDataset(database.storage, files.write(`again-${seed}.ndjson`, lines.join('\n')), { now });
      await assertConsistent(`after re-import ${seed}`);
    }
  });

  test("a task moved to another project after a full batch of activities moves its activities' minutes", async () => {
    const r = random(5);
    const moved = await database.storage.db
      .selectFrom('activities')
      .select('id')
      .where('task_id', '=', 'k_u_one_1')
      .where('project_id', 'is', null)
      .execute();
    assert.ok(moved.length > 0, 'the task has activities that follow its project');
    const lines = [
      // More than one batch of another user's activities: the task comes while they are written.
      ...Array.from({ length: 600 }, (_, i) => activity(r, `b_${i}`, 'u_two')),
      JSON.stringify({
        type: 'task',
        id: 'k_u_one_1',
        userId: 'u_one',
        date: '2026-10-02',
        title: 'Moved',
        projectId: 'p_b',
      }),
    ];
    await importDataset(database.storage, files.write('task-moves.ndjson', lines.join('\n')), { now });
    await assertConsistent('after the task moved');
  });

  test('a small import into a large table rewrites one activity', async () => {
    const line = JSON.stringify({
      type: 'activity',
      id: 'a_5',
      userId: 'u_one',
      start: '2026-10-20T10:00:00Z',
      durationMinutes: 10,
      headline: 'zebra crossing',
      description: null,
    });
    await importDataset(database.storage, files.write('one.ndjson', line), { now });
    const { rows } = await sql<{
      c: number;
    }>`select count(*) as c from activities where id = 'a_5' and headline = 'zebra crossing'`.execute(
      database.storage.db,
    );
    assert.equal(Number(rows[0]!.c), 1);
    await assertConsistent('after rewriting one activity');
  });

  test('an activity moved to another day marks the day it left as changed', async () => {
    const before = await database.storage.db
      .selectFrom('activities')
      .select(['user_id', 'local_date'])
      .where('id', '=', 'a_7')
      .executeTakeFirstOrThrow();
    const newDay = before.local_date === '2026-11-15' ? '2026-11-16' : '2026-11-15';
    await sql`delete from changed_days`.execute(database.storage.db);
    const line = JSON.stringify({
      type: 'activity',
      id: 'a_7',
      userId: before.user_id,
      start: `${newDay}T12:00:00+05:45`,
      headline: 'moved',
    });
    await importDataset(database.storage, files.write('move.ndjson', line), { now });
    const changed = await database.storage.db.selectFrom('changed_days').select(['user_id', 'local_date']).execute();
    const days = changed.map((c) => `${c.user_id} ${c.local_date}`).sort();
    assert.ok(
      days.includes(`${before.user_id} ${before.local_date}`),
      `the day left (${before.local_date}) is in ${days.join(', ')}`,
    );
    await assertConsistent('after moving an activity');
  });

  test('an import that fails halfway leaves data, index, rollups and triggers as they were', async () => {
    const [rollupsBefore] = await rollupsAndExpected(database.storage);
    const r = random(4);
    const lines = [
      ...Array.from({ length: 900 }, () => activity(r, `a_${r.int(3000)}`)),
      JSON.stringify({ type: 'activity', id: 'bad', userId: 'u_nobody', start: '2026-10-03T00:00:00Z', headline: 'x' }),
    ];
    await assert.rejects(
      importDataset(database.storage, files.write('bad.ndjson', lines.join('\n')), { now }),
      ImportError,
    );
    const [rollupsAfter] = await rollupsAndExpected(database.storage);
    assert.deepEqual(rollupsAfter, rollupsBefore);
    await assertConsistent('after a failed import');
  });

  if (dialect === 'postgres') {
    test('an import of 10,000 records or more leaves the planner statistics fresh', async () => {
      const analyzed = async () =>
        (
          await sql<{
            at: Date | null;
          }>`select last_analyze as at from pg_stat_user_tables where relname = 'activities'`.execute(
            database.storage.db,
          )
        ).rows[0]!.at;
      const r = random(6);
      const small = Array.from({ length: 50 }, (_, i) => activity(r, `c_${i}`));
      await importDataset(database.storage, files.write('small.ndjson', small.join('\n')), { now });
      const before = await analyzed();
      const large = Array.from({ length: 10_000 }, (_, i) => activity(r, `d_${i}`));
      await importDataset(database.storage, files.write('large.ndjson', large.join('\n')), { now });
      const after = await analyzed();
      assert.ok(after !== null, 'activities analyzed after the large import');
      assert.ok(
        before === null || after.getTime() > before.getTime(),
        'analyzed again by the large import, not the small one',
      );
      await assertConsistent('after a large import');
    });
  }

  if (dialect === 'sqlite') {
    test('an import of 10,000 records or more leaves the search index as one segment', async () => {
      // FTS5 numbers the rows of its data table by segment id << 37 (and page); segment 0 holds
      // the index's own records.
      const segments = async () =>
        (
          await sql<{
            n: number;
          }>`select count(distinct id >> 37) as n from search_index_data where id >> 37 > 0`.execute(
            database.storage.db,
          )
        ).rows[0]!.n;
      const r = random(6);
      for (let batch = 0; batch < 3; batch++) {
        const small = Array.from({ length: 50 }, (_, i) => activity(r, `c_${batch}_${i}`));
        await importDataset(database.storage, files.write('small.ndjson', small.join('\n')), { now });
      }
      assert.ok((await segments()) > 1, 'small imports add segments');
      const large = Array.from({ length: 10_000 }, (_, i) => activity(r, `d_${i}`));
      await importDataset(database.storage, files.write('large.ndjson', large.join('\n')), { now });
      assert.equal(await segments(), 1);
      await assertConsistent('after a large import');
    });
  }

  test('after an import, writes outside the importer still keep rollups and index', async () => {
    await sql`update activities set duration_minutes = 33, headline = 'quokka sighting' where id = 'a_9'`.execute(
      database.storage.db,
    );
    await sql`delete from activities where id = 'a_10'`.execute(database.storage.db);
    await assertConsistent('after direct writes');
  });
});
