/**
 * Bulk activity writes on SQLite (a bulk write session, writes.ts: the importer).
 *
 * The search index and the day rollups follow `activities` through row triggers (migrations
 * 0002 and 0003): right for every write path, but for each row they cost more than the row
 * itself. For a bulk write, `DeferredActivityUpkeep` takes those triggers off inside the
 * session's transaction, lets the rows go in bare, then brings the index and the rollups up to
 * date set-wise and puts the triggers back, before the transaction commits. No other
 * connection ever sees the table without its triggers (they read the last commit), and an
 * import that fails rolls all of it back, triggers included.
 *
 * What the catch-up must cover:
 * - rollups: every (user, local day) that held a written row before or after the write is
 *   summed again from `activities`;
 * - search: every written row gets its entry; a row that was already indexed when the write
 *   began loses its old entry first (its text or day may change).
 * A write into an empty table (a first import) needs no look-up of earlier rows at all.
 *
 * PostgreSQL needs none of this: its rollup triggers are per statement and the writer computes
 * the search words (see activities.ts for its own fast path).
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import type { ActivityWrite, PreviousActivity } from './activities.ts';
import { scopeOf } from './migrations/0002-search.ts';
import { KEY as ROLLUP_KEY, keyOf as rollupKeyOf } from './migrations/0003-day-rollups.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** The triggers whose work is done set-wise at the end instead. */
const DEFERRED_TRIGGERS = [
  'activities_search_insert',
  'activities_search_update',
  'activities_search_delete',
  'activities_rollup_insert',
  'activities_rollup_update',
  'activities_rollup_delete',
];

/** Ids of rows written while deferred (only when the table held rows before). */
const WRITTEN = 'temp.daybook_bulk_written';
/** (user, local day) pairs whose rollups are summed again. */
const DAYS = 'temp.daybook_bulk_days';

const CHUNK = 5000;

export class DeferredActivityUpkeep {
  private readonly db: Db;
  private readonly triggers: { name: string; sql: string }[];
  /** True when the table was empty when the write began: every row in it is a written row. */
  private readonly fresh: boolean;
  private readonly days = new Set<string>();

  private constructor(db: Db, triggers: { name: string; sql: string }[], fresh: boolean) {
    this.db = db;
    this.triggers = triggers;
    this.fresh = fresh;
  }

  /** Takes the triggers off; the caller must be inside a transaction and call end() in it. */
  static async begin(db: Db, fresh: boolean): Promise<DeferredActivityUpkeep> {
    const { rows: triggers } = await sql<{ name: string; sql: string }>`
      select name, sql from sqlite_master
      where type = 'trigger' and tbl_name = 'activities' and name in (${sql.join(DEFERRED_TRIGGERS)})
      order by name`.execute(db);
    for (const t of triggers) await sql`drop trigger ${sql.ref(t.name)}`.execute(db);
    if (!fresh) await sql.raw(`create table ${WRITTEN} (id text primary key) without rowid`).execute(db);
    return new DeferredActivityUpkeep(db, triggers, fresh);
  }

  /**
   * Before `rows` are upserted: `previous` are the stored rows with the same ids (empty for a
   * fresh table). Their days are summed again, and the index entries of those indexed before
   * this write began are removed.
   */
  async beforeWrite(rows: ActivityWrite[], previous: PreviousActivity[]): Promise<void> {
    for (const r of rows) this.days.add(`${r.user_id}\u0000${r.local_date}`);
    for (const p of previous) this.days.add(`${p.user_id}\u0000${p.local_date}`);
    if (this.fresh) return;
    if (previous.length > 0) {
      const ids = JSON.stringify(previous.map((p) => p.id));
      await sql`
        delete from search_index where rowid in (
          select d.doc from search_documents d
          where d.source = 'activity'
            and d.record_id in (select value from json_each(${ids}))
            and d.record_id not in (select id from ${sql.raw(WRITTEN)}))`.execute(this.db);
    }
    await sql`insert or ignore into ${sql.raw(WRITTEN)} (id) select value from json_each(${JSON.stringify(rows.map((r) => r.id))})`.execute(
      this.db,
    );
  }

  /** Rows changed by other statements while deferred (a task's project): their days are summed again. */
  touch(days: { user_id: string; local_date: string }[]): void {
    for (const d of days) this.days.add(`${d.user_id}\u0000${d.local_date}`);
  }

  /** Brings rollups and the search index up to date and puts the triggers back. */
  async end(): Promise<void> {
    await this.catchUpRollups();
    await this.catchUpSearch();
    for (const t of this.triggers) await sql.raw(t.sql).execute(this.db);
    if (!this.fresh) await sql.raw(`drop table ${WRITTEN}`).execute(this.db);
  }

  private async catchUpRollups(): Promise<void> {
    await sql
      .raw(`create table ${DAYS} (user_id text, local_date text, primary key (user_id, local_date)) without rowid`)
      .execute(this.db);
    const days = [...this.days];
    for (let i = 0; i < days.length; i += CHUNK) {
      const pairs = JSON.stringify(days.slice(i, i + CHUNK).map((d) => d.split('\u0000')));
      await sql`insert or ignore into ${sql.raw(DAYS)} (user_id, local_date)
        select value ->> 0, value ->> 1 from json_each(${pairs})`.execute(this.db);
    }
    await sql
      .raw(`delete from day_rollups where (user_id, local_date) in (select user_id, local_date from ${DAYS})`)
      .execute(this.db);
    // Into a table that was empty, every row counts: one pass over the table groups them faster
    // than looking each day up through the index (3.3 against 4.2 s in a 2.3-million-activity import).
    const rows = this.fresh
      ? 'activities a'
      : `${DAYS} d join activities a on a.user_id = d.user_id and a.local_date = d.local_date`;
    await sql
      .raw(`insert into day_rollups (${ROLLUP_KEY}, minutes, activities)
        select ${rollupKeyOf('a')}, sum(a.duration_minutes), count(*)
        from ${rows}
        group by ${rollupKeyOf('a')}`)
      .execute(this.db);
    await sql.raw(`drop table ${DAYS}`).execute(this.db);
  }

  private async catchUpSearch(): Promise<void> {
    const written = this.fresh ? 'activities' : `(select a.* from ${WRITTEN} w join activities a on a.id = w.id)`;
    await sql
      .raw(`insert into search_documents (source, record_id) select 'activity', r.id from ${written} r
        where true on conflict (source, record_id) do nothing`)
      .execute(this.db);
    // In document order: FTS5 appends to its newest segment instead of merging at random.
    await sql
      .raw(`insert into search_index (rowid, scope, title, description)
        select d.doc, ${scopeOf('r', 'a', 'start')}, r.headline, r.description
        from ${written} r join search_documents d on d.source = 'activity' and d.record_id = r.id
        order by d.doc`)
      .execute(this.db);
  }
}
