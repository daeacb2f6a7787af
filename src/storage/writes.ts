/**
 * Writes of records, for the importer and for any other writer: one transaction, and one
 * place that keeps right what follows from the records.
 *
 * - Day rollups and the search index: the database's triggers (migrations 0002–0004) on every
 *   path; in a bulk session on SQLite the activities' triggers are off while activities are
 *   written and their work is done set-wise before the transaction commits
 *   (`activity-bulk.ts`).
 * - A project's `usedAt` is read from its activities' `effective_project_id`, which the writes
 *   of activities and tasks keep equal to the activity's project, else its task's.
 * - Summaries: every (user, local day) a write adds to, takes from or renames something in is
 *   stamped in `changed_days`, inside the transaction and once more after it commits
 *   (`restampChangedDays`), so the next summary run rebuilds the summaries covering it.
 *
 * `writeRecords` opens the transaction and a `WriteSession`; the functions that write each kind
 * of record take the session: `upsertActivities`, `deleteActivities` (activities.ts),
 * `upsertTasks`, `deleteTasks` (tasks.ts), `upsertDayComments` (day-comments.ts), and the
 * importer's users, teams, keys (accounts.ts), portfolios, categories and projects
 * (projects.ts). Each writes a list of rows with a fixed number of statements.
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import {
  type PreviousActivity,
  markChangedDays,
  markDaysNaming,
  refreshAutoTaskCreatedAt,
  resetEmptiedAutoTaskCreatedAt,
  restampChangedDays,
} from './activities.ts';
import { DeferredActivityUpkeep } from './activity-bulk.ts';
import { type Dialect, type Storage, writeTransaction } from './database.ts';
import type { Database } from './schema.ts';
import { textList } from './text-list.ts';

type Db = Kysely<Database> | Transaction<Database>;

export interface WriteOptions {
  /**
   * Many rows (an import): activities' triggers are taken off on SQLite while they are written
   * and caught up set-wise, and at the end every task whose `createdAt` follows its first
   * activity is refreshed rather than those written.
   */
  bulk?: boolean;
  /** The clock that stamps changed days (default: Date.now). */
  clock?: () => number;
  /**
   * How many records the caller is about to write, when it knows: on PostgreSQL a write of more
   * than LARGE_WRITE_RECORDS (or a bulk one) waits for one of the process's DAYBOOK_PG_WRITERS
   * turns (writeTransaction).
   */
  records?: number;
}

/** Records a write holds at most and still runs without waiting for a turn on PostgreSQL. */
const LARGE_WRITE_RECORDS = 100;

/** What a write session changed so far, for its end. */
export class WriteSession {
  readonly db: Db;
  readonly dialect: Dialect;
  readonly bulk: boolean;
  private onlyOwnActivities: boolean;
  private activitiesWritten = false;
  private deferred: DeferredActivityUpkeep | null = null;
  private readonly days = new Set<string>();
  private readonly renamedThings = {
    projects: new Set<string>(),
    categories: new Set<string>(),
    tasks: new Set<string>(),
  };
  /** Tasks whose activities changed (sessions that are not bulk): their derived `createdAt` is refreshed. */
  private readonly tasks = new Set<string>();
  /** Tasks that lost activities (every session): one left with none goes back to noon of its date. */
  private readonly leftTasks = new Set<string>();

  /** Stored activities looked up by id (activityOwners) for the upsert that follows. */
  private lookedUp: { ids: Set<string>; rows: PreviousActivity[] } | null = null;

  constructor(db: Db, dialect: Dialect, bulk: boolean, fresh: boolean) {
    this.db = db;
    this.dialect = dialect;
    this.bulk = bulk;
    this.onlyOwnActivities = fresh;
  }

  /**
   * Bulk sessions: true while `activities` holds only rows this session wrote since it began
   * empty, so no earlier row needs looking up.
   */
  get fresh(): boolean {
    return this.onlyOwnActivities;
  }

  /** Whether the database works on one statement while this process builds the next (PostgreSQL). */
  get writesAside(): boolean {
    return this.dialect === 'postgres';
  }

  /** `rows` are the stored activities among `ids`, read in this session with nothing written since. */
  lookedUpActivities(ids: Iterable<string>, rows: PreviousActivity[]): void {
    this.lookedUp = { ids: new Set(ids), rows };
  }

  /**
   * The stored activities among `ids` when they were all looked up last (lookedUpActivities),
   * else null: once, as the write that follows changes them.
   */
  takeLookedUpActivities(ids: readonly string[]): PreviousActivity[] | null {
    const looked = this.lookedUp;
    this.lookedUp = null;
    if (!looked || !ids.every((id) => looked.ids.has(id))) return null;
    const wanted = new Set(ids);
    return looked.rows.filter((r) => wanted.has(r.id));
  }

  /** These users' local days changed. */
  daysChanged(days: Iterable<{ user_id: string; local_date: string }>): void {
    // Every write tells its days: what was looked up before it may be out of date.
    this.lookedUp = null;
    for (const d of days) this.days.add(`${d.user_id}\u0000${d.local_date}`);
  }

  /**
   * Activities of these days changed through a statement other than their upsert (a task's
   * project): while the triggers are off, their rollups are summed again at the end.
   */
  activitiesChangedOn(days: { user_id: string; local_date: string }[]): void {
    this.daysChanged(days);
    this.deferred?.touch(days);
  }

  /** Summaries show the name of these projects, categories or tasks, which changed. */
  renamed(kind: 'projects' | 'categories' | 'tasks', id: string): void {
    this.renamedThings[kind].add(id);
  }

  /** These tasks gained or lost activities. */
  tasksTouched(ids: Iterable<string | null | undefined>): void {
    if (this.bulk) return;
    for (const id of ids) if (id) this.tasks.add(id);
  }

  /** Activities of these tasks were deleted or moved to another task. */
  tasksLeft(ids: Iterable<string | null | undefined>): void {
    for (const id of ids) if (id) this.leftTasks.add(id);
  }

  /** Activities are about to be written: on SQLite in bulk, the row triggers go off first. */
  async beforeActivityWrite(): Promise<DeferredActivityUpkeep | null> {
    if (!this.deferred && this.bulk && this.dialect === 'sqlite') {
      this.deferred = await DeferredActivityUpkeep.begin(this.db, this.fresh);
    }
    this.activitiesWritten = true;
    return this.deferred;
  }

  /**
   * Brings the rollups and the search index up to date and puts the triggers back: before a
   * statement that relies on them (a user's new zone moves activities through them, a delete).
   */
  async endDeferredUpkeep(): Promise<void> {
    const deferred = this.deferred;
    this.deferred = null;
    await deferred?.end();
    // A later deferred write no longer starts from an empty table.
    if (this.activitiesWritten) this.onlyOwnActivities = false;
  }

  /** Completes the derived data and stamps the changed days at `at`, inside the transaction. */
  async finish(at: number): Promise<void> {
    await this.endDeferredUpkeep();
    await refreshAutoTaskCreatedAt(this.db, this.bulk ? undefined : this.tasks);
    await resetEmptiedAutoTaskCreatedAt(this.db, this.leftTasks);
    // After the rollups are caught up: they say which days show the renamed things.
    await markDaysNaming(this.db, this.renamedThings, at);
    await markChangedDays(
      this.db,
      [...this.days].map((key) => {
        const [userId, date] = key.split('\u0000') as [string, string];
        return { userId, date };
      }),
      at,
    );
  }
}

/**
 * PostgreSQL: holds a lock on each of these ids of activities or tasks until the transaction
 * ends, so that two API writes naming one id run one after the other and the second sees the
 * first's row when it asks who owns it. SQLite's write transactions already run one at a time.
 */
export async function lockIds(
  session: WriteSession,
  kind: 'activity' | 'task' | 'heartbeats of user',
  ids: readonly string[],
): Promise<void> {
  if (session.dialect !== 'postgres' || ids.length === 0) return;
  const keys = ids.map((id) => `${kind}:${id}`);
  // In the order of the keys, so two batches naming the same ids cannot wait for each other.
  await sql`select pg_advisory_xact_lock(k) from (select distinct hashtextextended(value, 0) as k from ${textList(session.db, keys)} as ids(value) order by k) as locks`.execute(
    session.db,
  );
}

/**
 * Runs `work` in one write transaction (see writeTransaction) with a session for its writes,
 * then stamps the days they changed and commits. The stamp is taken when `work` is done, so a
 * summary built while it ran counts as older than the change; after the commit the stamps move
 * to the time then, for a summary run that read the data just before the commit.
 */
export async function writeRecords<T>(
  storage: Storage,
  options: WriteOptions,
  work: (session: WriteSession) => Promise<T>,
): Promise<T> {
  const clock = options.clock ?? Date.now;
  let stampedAt = 0;
  const result = await writeTransaction(
    storage,
    async (trx) => {
      const bulk = options.bulk ?? false;
      const fresh = bulk && (await trx.selectFrom('activities').select('id').limit(1).execute()).length === 0;
      const session = new WriteSession(trx, storage.dialect, bulk, fresh);
      const value = await work(session);
      stampedAt = clock();
      await session.finish(stampedAt);
      if (storage.dialect === 'sqlite' && !bulk) await mergeSearchIndex(storage, trx, options.records ?? 1);
      return value;
    },
    // A restamp lost at a power cut leaves the first stamps, as a process that dies before it
    // does: its commit need not wait for the disk (on SQLite; one fsync less per write).
    (db) => {
      const restamp = () => restampChangedDays(db, stampedAt, clock());
      return storage.sqlite ? storage.sqlite.unsynced(restamp) : restamp();
    },
    { large: (options.bulk ?? false) || (options.records ?? 0) > LARGE_WRITE_RECORDS },
  );
  return result;
}

/** Pages of the full-text index a merge writes at least, and at most (mergeSearchIndex). */
const SEARCH_MERGE_PAGES = { least: 16, most: 200 } as const;
/** A write of at least this many records merges at once; smaller ones every SMALL_WRITES_PER_MERGE-th. */
const LARGE_MERGE_RECORDS = 100;
const SMALL_WRITES_PER_MERGE = 8;

/** Per database handle: what the writes since its last merge held. */
const unmerged = new WeakMap<Storage, { writes: number; records: number }>();

/**
 * SQLite: merges part of the full-text index's segments, in a write's transaction. FTS5's own
 * merging is off (migration 0009): it works in steps that grow with the index's levels (64 pages
 * × levels at once). Instead the writes merge up to a tenth of a page per record written since
 * the last merge (100 pages for 1,000 activities, which write about 12 leaf pages, merged again
 * on each of 4–5 levels), at least SEARCH_MERGE_PAGES.least and at most .most: a large write at
 * once, small ones every SMALL_WRITES_PER_MERGE-th (a merge statement costs each write that runs
 * one about 0.2 ms, where FTS5's own merging ran once per 64 pages written). Only levels holding
 * 4 or more segments are merged (FTS5's `usermerge`), so a merge that finds nothing to do writes
 * nothing, and a merge of large segments goes on across the writes that follow. A writer that
 * does not merge (an import, which ends with an `optimize`) leaves at most 15 segments a level
 * (FTS5's `crisismerge`).
 */
async function mergeSearchIndex(storage: Storage, db: Db, records: number): Promise<void> {
  const since = unmerged.get(storage) ?? { writes: 0, records: 0 };
  since.writes += 1;
  since.records += records;
  unmerged.set(storage, since);
  if (records < LARGE_MERGE_RECORDS && since.writes < SMALL_WRITES_PER_MERGE) return;
  const pages = Math.min(SEARCH_MERGE_PAGES.most, Math.max(SEARCH_MERGE_PAGES.least, Math.ceil(since.records / 10)));
  // A literal: FTS5 takes the count as an integer only, and a bound number is a real to better-sqlite3.
  await sql`insert into search_index (search_index, rank) values ('merge', ${sql.lit(pages)})`.execute(db);
  unmerged.delete(storage);
}

/**
 * After a bulk write of many records:
 * - PostgreSQL would plan the queries right after it on the old statistics (autovacuum gets to
 *   them later, or never where it is off: a year of reports then took twice as long). ANALYZE
 *   samples each table, a few seconds on millions of rows.
 * - SQLite's full-text index holds the write as many segments, and every search term is looked
 *   up in each of them: merging them into one ('optimize', 1.2 s for 2.4 million records) made
 *   a 7-day search 2.7 times faster on the benchmark dataset. SQLite keeps no statistics unless
 *   asked and its queries are written for its plans without them, so there is nothing to analyse.
 */
export async function tidyAfterBulkWrite(storage: Storage): Promise<void> {
  if (storage.dialect === 'postgres') await sql`analyze`.execute(storage.db);
  else await sql`insert into search_index (search_index) values ('optimize')`.execute(storage.db);
}
