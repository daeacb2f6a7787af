/**
 * Writes of activities (see writes.ts), and the upkeep of what follows from activity data:
 * changed days, local days after a timezone change, tasks' derived `createdAt`.
 */
import { CompiledQuery, type Insertable, type Kysely, PostgresAdapter, sql, type Transaction } from 'kysely';
import { localDateOf, localNoon } from '../lib/time.ts';
import { fixedQuery } from './fixed-query.ts';
import type { ActivitiesTable, Database } from './schema.ts';
import { postgresSearchWords } from './search.ts';
import { textList } from './text-list.ts';
import type { WriteSession } from './writes.ts';

type Db = Kysely<Database> | Transaction<Database>;

export type ActivityWrite = Insertable<ActivitiesTable>;

const ACTIVITY_COLUMNS = [
  'id',
  'user_id',
  'start',
  'duration_minutes',
  'headline',
  'description',
  'task_id',
  'project_id',
  'effective_project_id',
  'category_id',
  'local_date',
] as const satisfies readonly (keyof ActivitiesTable)[];

// Imports write activities in batches of a few sizes; building and compiling the same upsert
// for every batch cost more than running it, so it is a fixed query per batch size (values: the
// rows' columns in ACTIVITY_COLUMNS order, row after row).
const SQLITE_UPSERT = fixedQuery((db, values, shape) => {
  const width = ACTIVITY_COLUMNS.length;
  const rows = Array.from(
    { length: Number(shape) },
    (_, r) =>
      Object.fromEntries(ACTIVITY_COLUMNS.map((c, i) => [c, values[r * width + i]])) as unknown as ActivityWrite,
  );
  return db
    .insertInto('activities')
    .values(rows)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        user_id: eb.ref('excluded.user_id'),
        start: eb.ref('excluded.start'),
        duration_minutes: eb.ref('excluded.duration_minutes'),
        headline: eb.ref('excluded.headline'),
        description: eb.ref('excluded.description'),
        task_id: eb.ref('excluded.task_id'),
        project_id: eb.ref('excluded.project_id'),
        effective_project_id: eb.ref('excluded.effective_project_id'),
        category_id: eb.ref('excluded.category_id'),
        local_date: eb.ref('excluded.local_date'),
      })),
    );
});

/** PostgreSQL types of ACTIVITY_COLUMNS, for the arrays of the unnest upsert. */
const POSTGRES_TYPES = [
  'text',
  'text',
  'bigint',
  'double precision',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
  'text',
];

/**
 * PostgreSQL: one array parameter per column, spread back into rows by unnest. The same
 * statement text for every batch size, and 12 parameters instead of 11 per row, which the
 * server parses and plans far faster than a VALUES list of thousands of placeholders. The 12th
 * holds each row's search lexemes, joined by spaces (migration 0004).
 */
const POSTGRES_UPSERT = `insert into activities (${ACTIVITY_COLUMNS.join(', ')}, search_words)
  select ${ACTIVITY_COLUMNS.map((c) => `a.${c}`).join(', ')}, array_to_tsvector(string_to_array(a.words, ' '))
  from unnest(${ACTIVITY_COLUMNS.map((_, i) => `$${i + 1}::${POSTGRES_TYPES[i]}[]`).join(', ')}, $${ACTIVITY_COLUMNS.length + 1}::text[])
    as a(${ACTIVITY_COLUMNS.join(', ')}, words)
  on conflict (id) do update set ${[...ACTIVITY_COLUMNS.slice(1), 'search_words'].map((c) => `${c} = excluded.${c}`).join(', ')}`;

/**
 * The same, replacing only rows of the same user: an activity another transaction gave another
 * user after this one looked (an import that takes no locks) is left as it is, and its id is
 * not returned.
 */
const POSTGRES_OWN_UPSERT = `${POSTGRES_UPSERT} where activities.user_id = excluded.user_id returning id`;

/** The statement that inserts or replaces `rows` (at least one, distinct ids) by id. */
function activityUpsert(db: Db, rows: ActivityWrite[], ownOnly = false): CompiledQuery {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const columns: unknown[][] = ACTIVITY_COLUMNS.map((column) => rows.map((row) => row[column] ?? null));
    // The search words, computed here rather than by the database (migration 0004).
    columns.push(
      rows.map((row) => postgresSearchWords(row.user_id, Number(row.start), row.headline, row.description ?? null)),
    );
    return CompiledQuery.raw(ownOnly ? POSTGRES_OWN_UPSERT : POSTGRES_UPSERT, columns);
  }
  const parameters: unknown[] = [];
  for (const row of rows) for (const column of ACTIVITY_COLUMNS) parameters.push(row[column] ?? null);
  return SQLITE_UPSERT.compile(db, String(rows.length), parameters);
}

/** Rows to upsert with their statement, built ahead (see prepareActivityUpsert). */
export interface ActivityUpsert {
  rows: ActivityWrite[];
  statement: CompiledQuery;
}

/**
 * The upsert of `rows` (at least one, distinct ids) built without running it: an import builds
 * a batch's statement (on PostgreSQL with its search words, most of the work) while the
 * database writes the batch before.
 */
export function prepareActivityUpsert(session: WriteSession, rows: ActivityWrite[]): ActivityUpsert {
  return { rows, statement: activityUpsert(session.db, rows) };
}

/**
 * Inserts or replaces activities by id (distinct ids), in one statement: their days before and
 * after are changed, their rollups and search entries follow.
 */
export async function upsertActivities(session: WriteSession, batch: ActivityWrite[] | ActivityUpsert): Promise<void> {
  if (Array.isArray(batch) && batch.length === 0) return;
  await writeActivities(session, Array.isArray(batch) ? prepareActivityUpsert(session, batch) : batch);
}

/** Runs an upsert of activities and tells the session what it changed; the statement's rows. */
async function writeActivities(session: WriteSession, { rows, statement }: ActivityUpsert): Promise<unknown[]> {
  const deferred = await session.beforeActivityWrite();
  // A replaced activity may leave its day and its task: those changed too.
  const ids = rows.map((r) => r.id);
  const previous = session.fresh
    ? []
    : (session.takeLookedUpActivities(ids) ?? (await previousActivities(session.db, ids)));
  session.daysChanged(rows);
  session.daysChanged(previous);
  session.tasksTouched(rows.map((r) => r.task_id));
  session.tasksTouched(previous.map((p) => p.task_id));
  const taskOf = new Map(rows.map((r) => [r.id, r.task_id ?? null]));
  session.tasksLeft(previous.filter((p) => taskOf.get(p.id) !== p.task_id).map((p) => p.task_id));
  await deferred?.beforeWrite(rows, previous);
  return (await session.db.executeQuery(statement)).rows;
}

/**
 * Inserts the user's activities or replaces those already the user's (distinct ids, one user),
 * as upsertActivities does. Returns the ids it did not write because they belong to another
 * user. The caller looked the owners up first; on PostgreSQL an import, which takes no id locks,
 * may have given one to another user since, and that row is then left alone (SQLite runs one
 * write transaction at a time, so what the caller looked up still holds).
 */
export async function upsertOwnActivities(session: WriteSession, rows: ActivityWrite[]): Promise<string[]> {
  if (rows.length === 0) return [];
  if (session.dialect !== 'postgres') {
    await upsertActivities(session, rows);
    return [];
  }
  const written = new Set(
    (
      (await writeActivities(session, { rows, statement: activityUpsert(session.db, rows, true) })) as { id: string }[]
    ).map((r) => r.id),
  );
  return rows.filter((r) => !written.has(r.id)).map((r) => r.id);
}

/** The user's activities among `ids` are deleted; returns the ids deleted. */
export async function deleteActivities(
  session: WriteSession,
  userId: string,
  ids: readonly string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  // The delete triggers keep the rollups and the search index.
  await session.endDeferredUpkeep();
  const deleted = await session.db
    .deleteFrom('activities')
    .where('user_id', '=', userId)
    .where('id', 'in', textList(session.db, ids))
    .returning(['id', 'user_id', 'local_date', 'task_id'])
    .execute();
  session.daysChanged(deleted);
  session.tasksTouched(deleted.map((d) => d.task_id));
  session.tasksLeft(deleted.map((d) => d.task_id));
  return deleted.map((d) => d.id);
}

/** A stored activity as an upsert replaces it. */
export interface PreviousActivity {
  id: string;
  user_id: string;
  local_date: string;
  task_id: string | null;
}

/** The stored rows among `ids` (at most a batch), for their day and task before an upsert. */
async function previousActivities(db: Db, ids: string[]): Promise<PreviousActivity[]> {
  return db
    .selectFrom('activities')
    .select(['id', 'user_id', 'local_date', 'task_id'])
    .where('id', 'in', ids)
    .execute();
}

/** Records that these users' local days changed, so summaries covering them are rebuilt. */
export async function markChangedDays(db: Db, days: { userId: string; date: string }[], at: number): Promise<void> {
  for (let i = 0; i < days.length; i += 500) {
    await db
      .insertInto('changed_days')
      .values(days.slice(i, i + 500).map((d) => ({ user_id: d.userId, local_date: d.date, changed_at: at })))
      .onConflict((oc) => oc.columns(['user_id', 'local_date']).doUpdateSet({ changed_at: at }))
      .execute();
  }
}

/** Projects, categories and tasks whose names changed: the summaries that show them are stale. */
export interface RenamedThings {
  projects?: Iterable<string>;
  categories?: Iterable<string>;
  tasks?: Iterable<string>;
}

/**
 * Marks every local day with tracked time of a renamed project, category or task as changed at
 * `at`, so the next summary run rebuilds the summaries that name it (docs/api.md, "GET / POST /message"). The days
 * come from the rollups, which hold each day's time by project, category and task.
 */
export async function markDaysNaming(db: Db, renamed: RenamedThings, at: number): Promise<void> {
  const projects = [...(renamed.projects ?? [])];
  const categories = [...(renamed.categories ?? [])];
  const tasks = [...(renamed.tasks ?? [])];
  if (projects.length + categories.length + tasks.length === 0) return;
  await db
    .insertInto('changed_days')
    .columns(['user_id', 'local_date', 'changed_at'])
    .expression(
      db
        .selectFrom('day_rollups')
        .select(['user_id', 'local_date', sql.lit(at).as('changed_at')])
        .distinct()
        .where((eb) =>
          eb.or([
            eb('project_key', 'in', textList(db, projects)),
            eb('category_key', 'in', textList(db, categories)),
            eb('task_key', 'in', textList(db, tasks)),
          ]),
        ),
    )
    .onConflict((oc) => oc.columns(['user_id', 'local_date']).doUpdateSet({ changed_at: at }))
    .execute();
}

/**
 * Changed days are stamped inside the writing transaction, before it commits: a summary run that
 * starts after the stamp but reads the data as it was before the commit would count as newer
 * than the change and never be rebuilt. Once the transaction has committed, the writer moves its
 * stamps (`stampedAt`) to `at`, a time after the commit, so such a run is rebuilt by the next
 * one. (A process that dies in between leaves the first stamps, as before.)
 */
export async function restampChangedDays(db: Db, stampedAt: number, at: number): Promise<void> {
  if (at <= stampedAt) return;
  await db.updateTable('changed_days').set({ changed_at: at }).where('changed_at', '=', stampedAt).execute();
}

/**
 * A user's timezone changed: every activity moves to its local day in the new zone. Returns the
 * local dates that lost or gained activities, for the caller to mark changed.
 */
export async function recomputeLocalDates(db: Db, userId: string, timezone: string): Promise<string[]> {
  const changed = new Set<string>();
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('activities')
      .select(['id', 'start', 'local_date'])
      .where('user_id', '=', userId)
      .where('id', '>', after)
      .orderBy('id')
      .limit(1000)
      .execute();
    if (rows.length === 0) break;
    // One update per new date rather than per activity: a page spans only a few days.
    const idsByDate = new Map<string, string[]>();
    for (const row of rows) {
      const date = localDateOf(row.start, timezone);
      if (date !== row.local_date) {
        changed.add(row.local_date).add(date);
        const ids = idsByDate.get(date);
        if (ids) ids.push(row.id);
        else idsByDate.set(date, [row.id]);
      }
    }
    for (const [date, ids] of idsByDate) {
      await db.updateTable('activities').set({ local_date: date }).where('id', 'in', ids).execute();
    }
    after = rows[rows.length - 1]!.id;
  }
  return [...changed];
}

/**
 * Tasks imported without `createdAt` take the start of their first activity: all of them, or
 * those among `taskIds`.
 */
export async function refreshAutoTaskCreatedAt(db: Db, taskIds?: ReadonlySet<string>): Promise<void> {
  if (taskIds?.size === 0) return;
  const among = taskIds ? sql`and id in ${textList(db, taskIds)}` : sql``;
  await sql`
    update tasks set created_at = (select min(a.start) from activities a where a.task_id = tasks.id)
    where created_at_auto = 1 ${among}
      and exists (select 1 from activities a where a.task_id = tasks.id)
      and created_at <> (select min(a.start) from activities a where a.task_id = tasks.id)
  `.execute(db);
}

/**
 * Tasks among `taskIds` imported without `createdAt` that have no activity left take noon of
 * their date again (in their user's timezone), as a task that never had one: their last activity
 * was deleted or moved to another task. refreshAutoTaskCreatedAt leaves a task without
 * activities alone, so without this the start of an activity that is gone would stay.
 */
export async function resetEmptiedAutoTaskCreatedAt(db: Db, taskIds: ReadonlySet<string>): Promise<void> {
  if (taskIds.size === 0) return;
  const rows = await db
    .selectFrom('tasks as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.id', 't.date', 't.created_at', 'u.timezone'])
    .where('t.id', 'in', textList(db, taskIds))
    .where('t.created_at_auto', '=', 1)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('activities as a').select('a.id').whereRef('a.task_id', '=', 't.id'))),
    )
    .execute();
  const stale = rows.flatMap((r) => {
    const noon = localNoon(r.date, r.timezone);
    return noon === Number(r.created_at) ? [] : [{ id: r.id, noon }];
  });
  // One statement per 500 tasks; the cast types the parameters for PostgreSQL.
  const instant = (ms: number) => sql<number>`cast(${ms} as bigint)`;
  for (let i = 0; i < stale.length; i += 500) {
    const chunk = stale.slice(i, i + 500);
    await db
      .updateTable('tasks')
      .set((eb) => {
        const [first, ...rest] = chunk as [(typeof chunk)[number], ...typeof chunk];
        let value = eb.case().when('id', '=', first.id).then(instant(first.noon));
        for (const r of rest) value = value.when('id', '=', r.id).then(instant(r.noon));
        return { created_at: value.else(eb.ref('created_at')).end() };
      })
      .where(
        'id',
        'in',
        textList(
          db,
          chunk.map((r) => r.id),
        ),
      )
      .execute();
  }
}

/** The owner of each stored activity among `ids` (at most a batch). */
export async function activityOwners(session: WriteSession, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await session.db
    .selectFrom('activities')
    .select(['id', 'user_id', 'local_date', 'task_id'])
    .where('id', 'in', textList(session.db, ids))
    .execute();
  // The upsert of these ids that usually follows needs the same rows: it is spared reading them again.
  session.lookedUpActivities(ids, rows);
  return new Map(rows.map((r) => [r.id, r.user_id]));
}
