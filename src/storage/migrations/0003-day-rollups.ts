/**
 * Per-day rollups of tracked time: minutes and activity count per user, local day, project,
 * category and task, so reports and summaries read whole local days without touching every
 * activity (storage/aggregates.ts). The database keeps them itself on every write path: plain
 * inserts, the importer's upserts (re-imports update every column), timezone changes (local_date)
 * and task project changes (effective_project_id), and deletes.
 *
 * The key columns hold '' for "none": a primary key over nullable columns would let two rows
 * for the same group coexist, since NULL never conflicts with NULL.
 *
 * A group is removed when its count reaches 0, so no rounding residue of subtracted minutes
 * outlives its last activity.
 *
 * SQLite: row triggers. PostgreSQL: statement triggers over transition tables, so a multi-row
 * upsert of an import costs one aggregated write per statement instead of one per row.
 */
import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema of their day
type Db = Kysely<any>;

// KEY and keyOf are also used by the importer's set-wise upkeep (storage/activity-bulk.ts).
export const KEY = 'user_id, local_date, project_key, category_key, task_key';

/** The rollup key of an activity row (`new`, `old`, or a table alias) in key-column order. */
export const keyOf = (row: string) =>
  `${row}.user_id, ${row}.local_date, coalesce(${row}.effective_project_id, ''), coalesce(${row}.category_id, ''), coalesce(${row}.task_id, '')`;

/** Matches a day_rollups row `r` to the key of activity row `row`. */
const sameKey = (r: string, row: string) =>
  `${r}.user_id = ${row}.user_id and ${r}.local_date = ${row}.local_date` +
  ` and ${r}.project_key = coalesce(${row}.effective_project_id, '')` +
  ` and ${r}.category_key = coalesce(${row}.category_id, '')` +
  ` and ${r}.task_key = coalesce(${row}.task_id, '')`;

/** The columns whose change moves an activity's minutes between groups. */
const WATCHED = ['user_id', 'local_date', 'effective_project_id', 'category_id', 'task_id', 'duration_minutes'];

async function createTable(db: Db): Promise<void> {
  await db.schema
    .createTable('day_rollups')
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('local_date', 'text', (c) => c.notNull())
    .addColumn('project_key', 'text', (c) => c.notNull())
    .addColumn('category_key', 'text', (c) => c.notNull())
    .addColumn('task_key', 'text', (c) => c.notNull())
    .addColumn('minutes', 'double precision', (c) => c.notNull())
    .addColumn('activities', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('day_rollups_pk', ['user_id', 'local_date', 'project_key', 'category_key', 'task_key'])
    .execute();
}

async function backfill(db: Db): Promise<void> {
  await sql
    .raw(`insert into day_rollups (${KEY}, minutes, activities)
      select ${keyOf('a')}, sum(a.duration_minutes), count(*)
      from activities a
      group by ${keyOf('a')}`)
    .execute(db);
}

async function upSqlite(db: Db): Promise<void> {
  const add = `insert into day_rollups (${KEY}, minutes, activities)
      values (${keyOf('new')}, new.duration_minutes, 1)
      on conflict (${KEY}) do update set minutes = minutes + excluded.minutes, activities = activities + 1;`;
  // Subtract, then drop the group if that was its last activity.
  const remove = `update day_rollups set minutes = minutes - old.duration_minutes, activities = activities - 1
        where ${sameKey('day_rollups', 'old')};
      delete from day_rollups where ${sameKey('day_rollups', 'old')} and activities <= 0;`;
  const changed = WATCHED.map((c) => `old.${c} is not new.${c}`).join(' or ');
  await sql.raw(`create trigger activities_rollup_insert after insert on activities begin ${add} end`).execute(db);
  await sql.raw(`create trigger activities_rollup_delete after delete on activities begin ${remove} end`).execute(db);
  // A re-import rewrites every column with the same values: WHEN skips those rows.
  await sql
    .raw(`create trigger activities_rollup_update after update of ${WATCHED.join(', ')} on activities
      when ${changed} begin ${remove} ${add} end`)
    .execute(db);
}

async function upPostgres(db: Db): Promise<void> {
  const add = (rows: string) => `insert into day_rollups (${KEY}, minutes, activities)
      select ${keyOf('a')}, sum(a.duration_minutes), count(*) from ${rows} a
      group by ${keyOf('a')} order by ${keyOf('a')}
      on conflict (${KEY}) do update set minutes = day_rollups.minutes + excluded.minutes,
        activities = day_rollups.activities + excluded.activities;`;
  // Groups losing their last activities go; the others are reduced.
  const remove = (rows: string) => `
      delete from day_rollups r using (
        select ${keyOf('a')}, count(*) as n from ${rows} a group by ${keyOf('a')}
      ) g (user_id, local_date, effective_project_id, category_id, task_id, n)
      where ${sameKey('r', 'g')} and r.activities <= g.n;
      update day_rollups r set minutes = r.minutes - g.m, activities = r.activities - g.n from (
        select ${keyOf('a')}, sum(a.duration_minutes), count(*) from ${rows} a group by ${keyOf('a')}
      ) g (user_id, local_date, effective_project_id, category_id, task_id, m, n)
      where ${sameKey('r', 'g')};`;
  // Only rows whose group or minutes changed; ids never change.
  const changed = (side: 'o' | 'n') => `(select ${side}.* from old_rows o join new_rows n on n.id = o.id
      where (${WATCHED.map((c) => `o.${c}`).join(', ')}) is distinct from (${WATCHED.map((c) => `n.${c}`).join(', ')}))`;

  await sql
    .raw(`create function daybook_rollup_insert() returns trigger language plpgsql as $$
      begin ${add('new_rows')} return null; end $$`)
    .execute(db);
  await sql
    .raw(`create function daybook_rollup_delete() returns trigger language plpgsql as $$
      begin ${remove('old_rows')} return null; end $$`)
    .execute(db);
  await sql
    .raw(`create function daybook_rollup_update() returns trigger language plpgsql as $$
      begin ${remove(changed('o'))} ${add(changed('n'))} return null; end $$`)
    .execute(db);
  await sql
    .raw(`create trigger activities_rollup_insert after insert on activities
      referencing new table as new_rows for each statement execute function daybook_rollup_insert()`)
    .execute(db);
  await sql
    .raw(`create trigger activities_rollup_delete after delete on activities
      referencing old table as old_rows for each statement execute function daybook_rollup_delete()`)
    .execute(db);
  await sql
    .raw(`create trigger activities_rollup_update after update on activities
      referencing old table as old_rows new table as new_rows for each statement execute function daybook_rollup_update()`)
    .execute(db);
}

export async function up(db: Db): Promise<void> {
  // Triggers first, backfill second, in one transaction (the migrator opens one on PostgreSQL
  // only), so no write can slip between them and be counted twice or not at all.
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`lock table activities in share row exclusive mode`.execute(db);
    await createTable(db);
    await upPostgres(db);
    await backfill(db);
    return;
  }
  await db.transaction().execute(async (trx) => {
    await createTable(trx);
    await upSqlite(trx);
    await backfill(trx);
  });
}

export async function down(db: Db): Promise<void> {
  for (const event of ['insert', 'update', 'delete']) {
    await sql
      .raw(
        `drop trigger if exists activities_rollup_${event}${db.getExecutor().adapter instanceof PostgresAdapter ? ' on activities' : ''}`,
      )
      .execute(db);
  }
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const event of ['insert', 'update', 'delete'])
      await sql.raw(`drop function if exists daybook_rollup_${event}()`).execute(db);
  }
  await db.schema.dropTable('day_rollups').ifExists().execute();
}
