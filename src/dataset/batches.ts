/**
 * Batching an import's records: each type waits in a batch of its own, up to BATCH records,
 * and a flush writes every type in dependency order (users before tasks before activities), so
 * a file that interleaves a day's tasks and activities still writes full batches and every
 * reference is written before the records that hold it.
 *
 * Where the database is another process (PostgreSQL), it writes one batch while this process
 * reads, checks and builds the next, on two cores: queries on the import's connection run in
 * the order they are issued, so whatever is read after a batch is sent sees it.
 */
import { createLocalDateMemo } from '../lib/time.ts';
import { upsertApiKeys, upsertTeams, upsertUsers } from '../storage/accounts.ts';
import {
  type ActivityWrite,
  type ActivityUpsert,
  prepareActivityUpsert,
  upsertActivities,
} from '../storage/activities.ts';
import { upsertDayComments } from '../storage/day-comments.ts';
import { upsertCategories, upsertPortfolios, upsertProjects } from '../storage/projects.ts';
import { upsertTasks } from '../storage/tasks.ts';
import type { WriteSession } from '../storage/writes.ts';
import { placedError } from './import-error.ts';
import type {
  ActivityRecord,
  ApiKeyRecord,
  CategoryRecord,
  DayCommentRecord,
  PortfolioRecord,
  ProjectRecord,
  TaskRecord,
  TeamRecord,
  UserRecord,
} from './records.ts';
import type { ReferenceChecks } from './references.ts';
import {
  activityRow,
  apiKeyId,
  apiKeyRow,
  categoryRow,
  dayCommentRow,
  keyHashOf,
  portfolioRow,
  projectRow,
  taskRow,
  teamRows,
  userRow,
} from './rows.ts';
import { RECORD_TYPES, type RecordType } from './schema.ts';

const BATCH = 500;
/**
 * The bulk of a file: records of these types are read and checked while the batch before them
 * is written. Any other record waits for that batch, so a batch is written with the users, zones
 * and ids known when it was taken.
 */
const WRITTEN_WHILE_READ: ReadonlySet<RecordType> = new Set(['task', 'activity', 'dayComment']);

export type ImportCounts = Record<RecordType, number>;

/** Records of one type taken for writing; for activities, their rows and statement when built already. */
interface PendingBatch {
  type: RecordType;
  records: unknown[];
  activities: ActivityUpsert | null;
}

export class ImportBatches {
  readonly counts = Object.fromEntries(RECORD_TYPES.map((t) => [t, 0])) as ImportCounts;
  /** Tasks this import gives to another user, with where each was named: checked at the end. */
  readonly movedTasks = new Map<string, string>();
  private readonly session: WriteSession;
  private readonly references: ReferenceChecks;
  private readonly now: number;
  private readonly onProgress?: (records: number) => void;
  private applied = 0;
  private readonly localDateOf = createLocalDateMemo();
  /** Records waiting to be written, by type. */
  private readonly pending = new Map<RecordType, unknown[]>(RECORD_TYPES.map((t) => [t, []]));
  /** Keys of the pending records: a repeated record flushes first, so the later version wins. */
  private readonly pendingKeys = new Map<RecordType, Set<string>>(RECORD_TYPES.map((t) => [t, new Set()]));
  /** Where each pending task record was read, for a task that changes hands. */
  private readonly whereOfTask = new WeakMap<object, string>();
  /**
   * The batch being written while the next one is read (see flushBefore): it settles with null,
   * or with the error that stopped it. At most one is under way.
   */
  private writing: Promise<unknown> | null = null;

  /** `now`: the creation time of new projects and keys whose records have none. */
  constructor(session: WriteSession, references: ReferenceChecks, now: number, onProgress?: (records: number) => void) {
    this.session = session;
    this.references = references;
    this.now = now;
    this.onProgress = onProgress;
  }

  /** Checks a record (see references.ts) and queues it. `where` names the record in errors. */
  async add(type: RecordType, record: unknown, where: string): Promise<void> {
    // What the writes read of the checks (users' zones, known ids) changes only with these.
    if (!WRITTEN_WHILE_READ.has(type)) await this.settle();
    const key = recordKey(type, record);
    const keys = this.pendingKeys.get(type)!;
    if (keys.has(key)) await this.flushBefore(where);
    // A task looked up in the database may be in the batch under way: it is written first.
    if (this.references.looksUp(type, record)) await this.settle();
    await this.references.check(type, record, where);
    const pending = this.pending.get(type)!;
    pending.push(record);
    if (type === 'task') this.whereOfTask.set(record as object, where);
    keys.add(key);
    this.counts[type]++;
    if (pending.length >= BATCH) await this.flushBefore(where);
  }

  /** Writes every pending record, after the batch under way. */
  async flush(): Promise<void> {
    const batches = this.takePending();
    await this.settle();
    await this.writeBatches(batches);
  }

  /**
   * Waits for the batch under way and forgets its outcome: before a failed import rolls back,
   * none of its statements may still be on their way to the connection.
   */
  async quiesce(): Promise<void> {
    await this.writing;
    this.writing = null;
  }

  /**
   * Writes the pending records. On PostgreSQL it returns while they are written, once the batch
   * before them is. A database error belongs to one of the batch, not to the record that filled
   * it: the message says so rather than blame that record.
   */
  private async flushBefore(where: string): Promise<void> {
    const batches = this.takePending();
    await this.settle();
    this.writing = this.writeBatches(batches).then(
      () => null,
      (err: unknown) => placedError(err, `writing the records read up to ${where}`),
    );
    // better-sqlite3 runs each statement on this thread: nothing to overlap.
    if (!this.session.writesAside) await this.settle();
  }

  /** Waits for the batch under way, if any, and throws its error. */
  private async settle(): Promise<void> {
    const writing = this.writing;
    if (!writing) return;
    this.writing = null;
    const err = await writing;
    if (err) throw err;
  }

  /**
   * Takes the records pending now, type by type in dependency order, with the activities' rows
   * and statement built already where they can be (every task known), so that building them
   * does not wait for the batch under way. Records added later wait for the next batch.
   */
  private takePending(): PendingBatch[] {
    const batches: PendingBatch[] = [];
    for (const type of RECORD_TYPES) {
      const records = this.pending.get(type)!;
      if (records.length === 0) continue;
      this.pending.set(type, []);
      this.pendingKeys.get(type)!.clear();
      const rows = type === 'activity' ? this.knownActivityRows(records as ActivityRecord[]) : null;
      batches.push({ type, records, activities: rows ? prepareActivityUpsert(this.session, rows) : null });
    }
    // No task is pending now: every one checked is written before the database is asked for it.
    this.references.forgetTasksIfMany();
    return batches;
  }

  private async writeBatches(batches: PendingBatch[]): Promise<void> {
    for (const batch of batches) await this.write(batch);
  }

  private async write({ type, records, activities }: PendingBatch): Promise<void> {
    const session = this.session;
    switch (type) {
      case 'user':
        await upsertUsers(session, (records as UserRecord[]).map(userRow));
        break;
      case 'team': {
        const { teams, members } = teamRows(records as TeamRecord[]);
        await upsertTeams(session, teams, members);
        break;
      }
      case 'portfolio':
        await upsertPortfolios(session, (records as PortfolioRecord[]).map(portfolioRow));
        break;
      case 'category':
        await upsertCategories(session, (records as CategoryRecord[]).map(categoryRow));
        break;
      case 'project':
        await upsertProjects(
          session,
          (records as ProjectRecord[]).map((p) => projectRow(p, this.now)),
        );
        break;
      case 'task':
        await this.writeTasks(records as TaskRecord[]);
        break;
      case 'activity':
        await upsertActivities(session, activities ?? (await this.activityRows(records as ActivityRecord[])));
        break;
      case 'dayComment':
        await upsertDayComments(session, (records as DayCommentRecord[]).map(dayCommentRow));
        break;
      case 'apiKey':
        await upsertApiKeys(
          session,
          (records as ApiKeyRecord[]).map((k) => apiKeyRow(k, this.now)),
        );
        break;
    }
    this.applied += records.length;
    this.onProgress?.(this.applied);
  }

  private async writeTasks(records: TaskRecord[]): Promise<void> {
    const rows = records.map((t) => taskRow(t, this.references.timezoneOf(t.userId) ?? 'UTC'));
    const moved = new Set((await upsertTasks(this.session, rows)).moved);
    for (const t of records) {
      if (moved.has(t.id)) this.movedTasks.set(t.id, this.whereOfTask.get(t) ?? `task "${t.id}"`);
    }
  }

  /** The rows of `records`, or null when one names a task not in memory (see activityRows). */
  private knownActivityRows(records: ActivityRecord[]): ActivityWrite[] | null {
    const projects: (string | null)[] = [];
    for (const a of records) {
      const task = a.taskId ? this.references.knownTask(a.taskId) : undefined;
      if (a.taskId && !task) return null;
      projects.push(task?.projectId ?? null);
    }
    return records.map((a, i) => this.activityRow(a, projects[i]!));
  }

  /** The rows of `records`, looking up in the database the tasks not in memory. */
  private async activityRows(records: ActivityRecord[]): Promise<ActivityWrite[]> {
    const rows: ActivityWrite[] = [];
    for (const a of records) {
      const task = a.taskId ? await this.references.findTask(a.taskId) : undefined;
      rows.push(this.activityRow(a, task?.projectId ?? null));
    }
    return rows;
  }

  private activityRow(a: ActivityRecord, taskProject: string | null): ActivityWrite {
    return activityRow(a, this.references.timezoneOf(a.userId) ?? 'UTC', taskProject, this.localDateOf);
  }
}

/** What identifies a record for its upsert. */
function recordKey(type: RecordType, record: unknown): string {
  if (type === 'dayComment') {
    const c = record as DayCommentRecord;
    return `${c.userId}\u0000${c.date}`;
  }
  if (type === 'apiKey') return apiKeyId(record as ApiKeyRecord, keyHashOf(record as ApiKeyRecord));
  return (record as { id: string }).id;
}
