/**
 * Imports a dataset file (JSON document or NDJSON stream) into the database: upsert by id,
 * all-or-nothing per file, references checked, the JSON Schema enforced (dataset README).
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { type CompiledQuery, type Kysely, PostgresAdapter, SqliteAdapter, sql, type Transaction } from 'kysely';
import { hashApiKey } from '../services/api-keys.ts';
import { currentScopes } from '../services/scopes.ts';
import { fieldHoldingNul, NUL_RULE } from '../lib/nul.ts';
import { createLocalDateMemo, isValidLocalDate, isValidTimezone, localNoon, parseInstant } from '../lib/time.ts';
import { DeferredActivityUpkeep, previousActivities } from '../storage/activity-bulk.ts';
import { type Storage, writeTransaction } from '../storage/database.ts';
import {
  type ActivityRow, activityUpsert, markChangedDays, markDaysNaming, recomputeLocalDates, refreshAutoTaskCreatedAt,
  restampChangedDays,
} from '../storage/activities.ts';
import type { Database } from '../storage/schema.ts';
import { postgresSearchWords } from '../storage/search.ts';
import { textList } from '../storage/text-list.ts';
import type {
  ActivityRecord, ApiKeyRecord, CategoryRecord, DayCommentRecord, PortfolioRecord, ProjectRecord,
  TaskRecord, TeamRecord, UserRecord,
} from './records.ts';
import {
  ARRAY_OF, RECORD_TYPES, type RecordType, describeSchemaError, recordValidator, validateDocument,
} from './schema.ts';

export class ImportError extends Error {
  name = 'ImportError';
}

export type ImportCounts = Record<RecordType, number>;

export interface ImportOptions {
  /** Called now and then with the number of records applied so far. */
  onProgress?: (records: number) => void;
  now?: () => number;
}

const BATCH = 500;
/**
 * The bulk of a file: records of these types are read and checked while the batch before them
 * is written. Any other record waits for that batch, so a batch is written with the users, zones
 * and ids known when it was taken.
 */
const WRITTEN_WHILE_READ: ReadonlySet<RecordType> = new Set(['task', 'activity', 'dayComment']);
const TASK_CACHE_LIMIT = 200_000;

type Db = Kysely<Database> | Transaction<Database>;

function emptyCounts(): ImportCounts {
  return Object.fromEntries(RECORD_TYPES.map((t) => [t, 0])) as ImportCounts;
}

const bool = (value: boolean | undefined, fallback: boolean) => ((value ?? fallback) ? 1 : 0);
/** A checked instant field (see checkInstant) as Unix ms, or null when absent. */
const instant = (value: string | undefined) => (value === undefined ? null : parseInstant(value));

/** Applies validated records in file order, buffering one type at a time into batches. */
class ImportSession {
  readonly counts = emptyCounts();
  private readonly trx: Db;
  private readonly now: number;
  private users = new Map<string, string>(); // id → timezone
  // Unique fields, checked per record so that a clash names its record rather than its batch.
  private readonly emails = new UniqueOwners();
  private readonly handles = new UniqueOwners();
  private readonly keyHashes = new UniqueOwners();
  private teams = new Set<string>();
  private portfolios = new Set<string>();
  private categories = new Set<string>();
  private projects = new Set<string>();
  private tasks = new Map<string, { userId: string; projectId: string | null }>();
  private changedDays = new Set<string>();
  /** Tasks this import gives to another user, with where each was named: checked at the end. */
  private readonly movedTasks = new Map<string, string>();
  /** Stored projects, categories and tasks this import renames: their days' summaries are stale. */
  private readonly renamed = { projects: new Set<string>(), categories: new Set<string>(), tasks: new Set<string>() };
  /** Where each pending task record was read, for a task that changes hands. */
  private readonly whereOfTask = new WeakMap<object, string>();
  /**
   * Records waiting to be written, by type. Files interleave types (a day's tasks, then its
   * activities): each type fills its own batch, and a flush writes every type in dependency
   * order, so references are written before the records that hold them.
   */
  private readonly pending = new Map<RecordType, unknown[]>(RECORD_TYPES.map((t) => [t, []]));
  /** Keys of the pending records: a repeated record flushes first, so the later version wins. */
  private readonly pendingKeys = new Map<RecordType, Set<string>>(RECORD_TYPES.map((t) => [t, new Set()]));
  private readonly onProgress?: (records: number) => void;
  private applied = 0;
  private readonly localDateOf = createLocalDateMemo();
  /** Whether `activities` held rows when the import began (else no activity is replaced). */
  private hadActivities = true;
  private activitiesWritten = false;
  /** SQLite: search index and rollups caught up set-wise while activities are written. */
  private deferred: DeferredActivityUpkeep | null = null;
  /**
   * The batch being written while the next one is read (see flushBefore): it settles with null,
   * or with the error that stopped it. At most one is under way.
   */
  private writing: Promise<unknown> | null = null;
  /** Whether the database writes a batch while the next is read (PostgreSQL's own process). */
  private readonly overlapWrites: boolean;

  constructor(trx: Db, now: number, onProgress?: (records: number) => void) {
    this.trx = trx;
    this.now = now;
    this.onProgress = onProgress;
    this.overlapWrites = trx.getExecutor().adapter instanceof PostgresAdapter;
  }

  async loadExisting(): Promise<void> {
    for (const u of await this.trx.selectFrom('users').select(['id', 'timezone', 'email', 'handle']).execute()) {
      this.users.set(u.id, u.timezone);
      this.emails.claim(u.email, u.id);
      if (u.handle !== null) this.handles.claim(u.handle, u.id);
    }
    for (const k of await this.trx.selectFrom('api_keys').select(['id', 'key_hash']).execute()) {
      this.keyHashes.claim(k.key_hash, k.id);
    }
    for (const t of await this.trx.selectFrom('teams').select('id').execute()) this.teams.add(t.id);
    for (const p of await this.trx.selectFrom('portfolios').select('id').execute()) this.portfolios.add(p.id);
    for (const c of await this.trx.selectFrom('categories').select('id').execute()) this.categories.add(c.id);
    for (const p of await this.trx.selectFrom('projects').select('id').execute()) this.projects.add(p.id);
    this.hadActivities = (await this.trx.selectFrom('activities').select('id').limit(1).execute()).length > 0;
  }

  /** Checks a record's references and queues it. `where` names the record in errors. */
  async add(type: RecordType, record: unknown, where: string): Promise<void> {
    // What the writes read of the session (users' zones, known ids) changes only with these.
    if (!WRITTEN_WHILE_READ.has(type)) await this.settleWriting();
    const key = recordKey(type, record);
    const keys = this.pendingKeys.get(type)!;
    if (keys.has(key)) await this.flushBefore(where);
    await this.check(type, record, where);
    const pending = this.pending.get(type)!;
    pending.push(record);
    if (type === 'task') this.whereOfTask.set(record as object, where);
    keys.add(key);
    this.counts[type]++;
    if (pending.length >= BATCH) await this.flushBefore(where);
  }

  /**
   * Writes the pending records. On PostgreSQL it returns while they are written, once the batch
   * before them is: the server writes one batch while this process reads and checks the next,
   * on two cores. Queries on the import's connection run in the order they are issued, so
   * whatever is read after this sees the batch. A database error belongs to one of the batch,
   * not to the record that filled it: the message says so rather than blame that record.
   */
  private async flushBefore(where: string): Promise<void> {
    const batches = this.takePending();
    await this.settleWriting();
    this.writing = this.writeBatches(batches).then(
      () => null,
      (err: unknown) => dbError(err, `writing the records read up to ${where}`),
    );
    // better-sqlite3 runs each statement on this thread: nothing to overlap.
    if (!this.overlapWrites) await this.settleWriting();
  }

  /** Waits for the batch under way, if any, and throws its error. */
  private async settleWriting(): Promise<void> {
    const writing = this.writing;
    if (!writing) return;
    this.writing = null;
    const err = await writing;
    if (err) throw err;
  }

  /**
   * Waits for the batch under way and forgets its outcome: before a failed import rolls back,
   * none of its statements may still be on their way to the connection.
   */
  async quiesce(): Promise<void> {
    await this.writing;
    this.writing = null;
  }

  private refError(where: string, field: string, kind: string, id: string): never {
    throw new ImportError(`${where}: ${field}: no ${kind} with id "${id}"`);
  }

  private requireUser(where: string, field: string, id: string): string {
    const tz = this.users.get(id);
    if (tz === undefined) this.refError(where, field, 'user', id);
    return tz;
  }

  private async findTask(id: string): Promise<{ userId: string; projectId: string | null } | undefined> {
    const cached = this.tasks.get(id);
    if (cached) return cached;
    const row = await this.trx.selectFrom('tasks').select(['user_id', 'project_id']).where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    return this.rememberTask(id, row.user_id, row.project_id);
  }

  private rememberTask(id: string, userId: string, projectId: string | null) {
    if (this.tasks.size >= TASK_CACHE_LIMIT) {
      this.tasks.clear();
      // Pending tasks are not in the database yet: they must stay known.
      for (const t of this.pending.get('task') as TaskRecord[]) this.tasks.set(t.id, { userId: t.userId, projectId: t.projectId ?? null });
    }
    const entry = { userId, projectId };
    this.tasks.set(id, entry);
    return entry;
  }

  private async check(type: RecordType, record: unknown, where: string): Promise<void> {
    switch (type) {
      case 'user': {
        const u = record as UserRecord;
        checkInstant(where, 'createdAt', u.createdAt);
        if (u.timezone !== undefined && !isValidTimezone(u.timezone)) {
          throw new ImportError(`${where}: timezone: "${u.timezone}" is not an IANA timezone`);
        }
        this.claimUnique(this.emails, where, 'email', u.email, 'user', u.id);
        this.claimUnique(this.handles, where, 'handle', u.handle ?? null, 'user', u.id);
        this.users.set(u.id, u.timezone ?? 'UTC');
        return;
      }
      case 'team': {
        const t = record as TeamRecord;
        const listed = new Set<string>();
        for (const [i, m] of (t.members ?? []).entries()) {
          this.requireUser(where, `members[${i}].userId`, m.userId);
          if (listed.has(m.userId)) throw new ImportError(`${where}: members[${i}].userId: "${m.userId}" is listed twice`);
          listed.add(m.userId);
        }
        this.teams.add(t.id);
        return;
      }
      case 'portfolio': {
        const p = record as PortfolioRecord;
        this.requireUser(where, 'ownerId', p.ownerId);
        if (p.teamId && !this.teams.has(p.teamId)) this.refError(where, 'teamId', 'team', p.teamId);
        this.portfolios.add(p.id);
        return;
      }
      case 'category':
        this.categories.add((record as CategoryRecord).id);
        return;
      case 'project': {
        const p = record as ProjectRecord;
        checkInstant(where, 'createdAt', p.createdAt);
        checkInstant(where, 'updatedAt', p.updatedAt);
        this.requireUser(where, 'createdBy', p.createdBy);
        if (p.teamId && !this.teams.has(p.teamId)) this.refError(where, 'teamId', 'team', p.teamId);
        if (p.portfolioId && !this.portfolios.has(p.portfolioId)) {
          this.refError(where, 'portfolioId', 'portfolio', p.portfolioId);
        }
        // History is restored as it was (dataset rule 6): the ids must be users, nothing more.
        for (const [i, id] of (p.contributorIds ?? []).entries()) this.requireUser(where, `contributorIds[${i}]`, id);
        this.projects.add(p.id);
        return;
      }
      case 'task': {
        const t = record as TaskRecord;
        checkInstant(where, 'createdAt', t.createdAt);
        this.requireUser(where, 'userId', t.userId);
        if (!isValidLocalDate(t.date)) throw new ImportError(`${where}: date: "${t.date}" is not a calendar date`);
        if (t.projectId && !this.projects.has(t.projectId)) this.refError(where, 'projectId', 'project', t.projectId);
        // Known from here on: activities after it may refer to it before it is written.
        this.rememberTask(t.id, t.userId, t.projectId ?? null);
        return;
      }
      case 'activity': {
        const a = record as ActivityRecord;
        checkInstant(where, 'start', a.start);
        this.requireUser(where, 'userId', a.userId);
        if (a.taskId) {
          let task = this.tasks.get(a.taskId);
          if (!task) {
            // Looked up in the database once the batch under way, which may hold it, is written.
            await this.settleWriting();
            task = await this.findTask(a.taskId);
          }
          if (!task) this.refError(where, 'taskId', 'task', a.taskId);
          if (task.userId !== a.userId) {
            throw new ImportError(`${where}: taskId: task "${a.taskId}" belongs to another user`);
          }
        }
        if (a.projectId && !this.projects.has(a.projectId)) this.refError(where, 'projectId', 'project', a.projectId);
        if (a.categoryId && !this.categories.has(a.categoryId)) {
          this.refError(where, 'categoryId', 'category', a.categoryId);
        }
        return;
      }
      case 'dayComment': {
        const c = record as DayCommentRecord;
        this.requireUser(where, 'userId', c.userId);
        if (!isValidLocalDate(c.date)) throw new ImportError(`${where}: date: "${c.date}" is not a calendar date`);
        return;
      }
      case 'apiKey': {
        const k = record as ApiKeyRecord;
        this.requireUser(where, 'userId', k.userId);
        const hash = keyHashOf(k);
        this.claimUnique(this.keyHashes, where, k.keyHash ? 'keyHash' : 'key', hash, 'API key', apiKeyId(k, hash));
        return;
      }
    }
  }

  private claimUnique(
    owners: UniqueOwners, where: string, field: string, value: string | null, kind: string, id: string,
  ): void {
    const owner = owners.claim(value, id);
    if (owner !== id) {
      const shown = field === 'key' ? 'the same key' : `"${value}"`;
      throw new ImportError(`${where}: ${field}: ${shown} already belongs to ${kind} "${owner}"`);
    }
  }

  /** Writes every pending record, after the batch under way. */
  async flush(): Promise<void> {
    const batches = this.takePending();
    await this.settleWriting();
    await this.writeBatches(batches);
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
      batches.push({ type, records, activities: rows ? { rows, upsert: activityUpsert(this.trx, rows) } : null });
    }
    return batches;
  }

  private async writeBatches(batches: PendingBatch[]): Promise<void> {
    for (const batch of batches) await this.write(batch);
  }

  private async write({ type, records, activities }: PendingBatch): Promise<void> {
    if (type === 'user') {
      // A user's new zone moves their activities' local days through the triggers.
      await this.endDeferredUpkeep();
    } else if (type === 'activity' && !this.deferred && this.trx.getExecutor().adapter instanceof SqliteAdapter) {
      this.deferred = await DeferredActivityUpkeep.begin(this.trx, !this.hadActivities);
    }
    switch (type) {
      case 'user':
        await this.writeUsers(records as UserRecord[]);
        break;
      case 'team':
        await this.writeTeams(records as TeamRecord[]);
        break;
      case 'portfolio':
        await this.trx
          .insertInto('portfolios')
          .values((records as PortfolioRecord[]).map((p) => ({
            id: p.id, name: p.name, owner_id: p.ownerId, team_id: p.teamId ?? null,
          })))
          .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({
            name: eb.ref('excluded.name'), owner_id: eb.ref('excluded.owner_id'), team_id: eb.ref('excluded.team_id'),
          })))
          .execute();
        break;
      case 'category':
        await this.noteCategoryRenames(records as CategoryRecord[]);
        await this.trx
          .insertInto('categories')
          .values((records as CategoryRecord[]).map((c) => ({ id: c.id, name: c.name, emoji: c.emoji ?? null })))
          .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({
            name: eb.ref('excluded.name'), emoji: eb.ref('excluded.emoji'),
          })))
          .execute();
        break;
      case 'project':
        await this.writeProjects(records as ProjectRecord[]);
        break;
      case 'task':
        await this.writeTasks(records as TaskRecord[]);
        break;
      case 'activity':
        await this.writeActivities(records as ActivityRecord[], activities);
        break;
      case 'dayComment':
        await this.writeDayComments(records as DayCommentRecord[]);
        break;
      case 'apiKey':
        await this.writeApiKeys(records as ApiKeyRecord[]);
        break;
    }
    this.applied += records.length;
    this.onProgress?.(this.applied);
  }

  private async writeUsers(records: UserRecord[]): Promise<void> {
    const before = new Map(
      (await this.trx.selectFrom('users').select(['id', 'timezone']).where('id', 'in', records.map((u) => u.id)).execute())
        .map((u) => [u.id, u.timezone]),
    );
    await this.trx
      .insertInto('users')
      .values(records.map((u) => ({
        id: u.id,
        email: u.email,
        name: u.name ?? null,
        display_name: u.displayName ?? null,
        handle: u.handle ?? null,
        timezone: u.timezone ?? 'UTC',
        plan: u.plan ?? 'core',
        daily_target_minutes: u.dailyTargetMinutes ?? 480,
        week_start: u.weekStart ?? 'monday',
        created_at: instant(u.createdAt),
      })))
      .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({
        email: eb.ref('excluded.email'),
        name: eb.ref('excluded.name'),
        display_name: eb.ref('excluded.display_name'),
        handle: eb.ref('excluded.handle'),
        timezone: eb.ref('excluded.timezone'),
        plan: eb.ref('excluded.plan'),
        daily_target_minutes: eb.ref('excluded.daily_target_minutes'),
        week_start: eb.ref('excluded.week_start'),
        created_at: eb.ref('excluded.created_at'),
      })))
      .execute();
    for (const u of records) {
      const old = before.get(u.id);
      if (old !== undefined && old !== (u.timezone ?? 'UTC')) {
        // Stamped with the rest at the end (see finish), not at the import's start.
        for (const date of await recomputeLocalDates(this.trx, u.id, u.timezone ?? 'UTC')) this.changedDays.add(`${u.id}\u0000${date}`);
      }
    }
  }

  private async writeTeams(records: TeamRecord[]): Promise<void> {
    await this.trx
      .insertInto('teams')
      .values(records.map((t) => ({ id: t.id, name: t.name })))
      .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({ name: eb.ref('excluded.name') })))
      .execute();
    // A team record carries its whole member list, so the list replaces the stored one.
    await this.trx.deleteFrom('team_members').where('team_id', 'in', records.map((t) => t.id)).execute();
    const members = records.flatMap((t) =>
      (t.members ?? []).map((m, position) => ({
        team_id: t.id, user_id: m.userId, status: m.status ?? 'active', role: m.role ?? 'member', position,
      })),
    );
    // Each member is listed once (checked with the record).
    if (members.length > 0) await this.trx.insertInto('team_members').values(members).execute();
  }

  /** Notes the stored records (`before`: id → what summaries show of it) that `records` change. */
  private noteRenames<R extends { id: string }>(kind: 'projects' | 'categories' | 'tasks', records: R[], before: Map<string, string>, shown: (record: R) => string) {
    for (const record of records) {
      const was = before.get(record.id);
      if (was !== undefined && was !== shown(record)) this.renamed[kind].add(record.id);
    }
  }

  private async noteCategoryRenames(records: CategoryRecord[]): Promise<void> {
    const stored = await this.trx.selectFrom('categories').select(['id', 'name', 'emoji']).where('id', 'in', records.map((c) => c.id)).execute();
    const shown = (c: { name: string; emoji?: string | null }) => `${c.name}\u0000${c.emoji ?? ''}`;
    this.noteRenames('categories', records, new Map(stored.map((c) => [c.id, shown(c)])), shown);
  }

  private async writeProjects(records: ProjectRecord[]): Promise<void> {
    const names = await this.trx.selectFrom('projects').select(['id', 'name']).where('id', 'in', records.map((p) => p.id)).execute();
    this.noteRenames('projects', records, new Map(names.map((p) => [p.id, p.name])), (p) => p.name);
    await this.trx
      .insertInto('projects')
      .values(records.map((p) => ({
        id: p.id,
        name: p.name,
        description: p.description ?? null,
        color: p.color ?? null,
        team_id: p.teamId ?? null,
        portfolio_id: p.portfolioId ?? null,
        private: bool(p.private, false),
        confidential: bool(p.confidential, false),
        contributor_ids: p.contributorIds ? JSON.stringify(p.contributorIds) : null,
        archived: bool(p.archived, false),
        created_by: p.createdBy,
        updated_by: null,
        created_at: instant(p.createdAt) ?? this.now,
        updated_at: instant(p.updatedAt),
      })))
      .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({
        name: eb.ref('excluded.name'),
        description: eb.ref('excluded.description'),
        color: eb.ref('excluded.color'),
        team_id: eb.ref('excluded.team_id'),
        portfolio_id: eb.ref('excluded.portfolio_id'),
        private: eb.ref('excluded.private'),
        confidential: eb.ref('excluded.confidential'),
        contributor_ids: eb.ref('excluded.contributor_ids'),
        archived: eb.ref('excluded.archived'),
        created_by: eb.ref('excluded.created_by'),
        created_at: eb.fn.coalesce(eb.ref('excluded.created_at'), eb.ref('projects.created_at')),
        updated_at: eb.ref('excluded.updated_at'),
      })))
      .execute();
  }

  private async writeTasks(records: TaskRecord[]): Promise<void> {
    const stored = await this.trx.selectFrom('tasks').select(['id', 'project_id', 'user_id', 'title']).where('id', 'in', records.map((t) => t.id)).execute();
    const before = new Map(stored.map((t) => [t.id, t.project_id]));
    const storedById = new Map(stored.map((t) => [t.id, t]));
    for (const t of records) {
      const was = storedById.get(t.id);
      if (was === undefined) continue;
      if (was.user_id !== t.userId) this.movedTasks.set(t.id, this.whereOfTask.get(t) ?? `task "${t.id}"`);
      if (was.title !== t.title) this.renamed.tasks.add(t.id);
    }
    // PostgreSQL: the search words computed here rather than by the database (migration 0004).
    const postgres = this.trx.getExecutor().adapter instanceof PostgresAdapter;
    await this.trx
      .insertInto('tasks')
      .values(records.map((t) => {
        const createdAt = instant(t.createdAt) ?? localNoon(t.date, this.users.get(t.userId) ?? 'UTC');
        const row = {
          id: t.id,
          user_id: t.userId,
          date: t.date,
          title: t.title,
          description: t.description ?? null,
          project_id: t.projectId ?? null,
          visible: bool(t.visible, true),
          created_at: createdAt,
          created_at_auto: t.createdAt === undefined ? 1 : 0,
        };
        if (!postgres) return row;
        const words = postgresSearchWords(t.userId, createdAt, t.title, t.description ?? null);
        return { ...row, search_words: sql<string>`array_to_tsvector(string_to_array(${words}, ' '))` };
      }))
      .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({
        ...(postgres ? { search_words: eb.ref('excluded.search_words') } : {}),
        user_id: eb.ref('excluded.user_id'),
        date: eb.ref('excluded.date'),
        title: eb.ref('excluded.title'),
        description: eb.ref('excluded.description'),
        project_id: eb.ref('excluded.project_id'),
        visible: eb.ref('excluded.visible'),
        created_at: eb.ref('excluded.created_at'),
        created_at_auto: eb.ref('excluded.created_at_auto'),
      })))
      .execute();
    // The task cache is not touched here: it holds each task as last checked, which on
    // PostgreSQL may already be a later record of it than this batch's (see flushBefore).
    for (const t of records) {
      const projectId = t.projectId ?? null;
      this.changedDays.add(`${t.userId}\u0000${t.date}`);
      if (before.has(t.id) && before.get(t.id) !== projectId) {
        // Activities without their own project follow their task's project: their days'
        // project totals (rollups, summaries) change.
        const days = await this.trx
          .selectFrom('activities')
          .select(['user_id', 'local_date'])
          .distinct()
          .where('task_id', '=', t.id)
          .where('project_id', 'is', null)
          .execute();
        for (const d of days) this.changedDays.add(`${d.user_id}\u0000${d.local_date}`);
        this.deferred?.touch(days);
        await this.trx
          .updateTable('activities')
          .set({ effective_project_id: projectId })
          .where('task_id', '=', t.id)
          .where('project_id', 'is', null)
          .execute();
      }
    }
  }

  private async writeActivities(records: ActivityRecord[], built: PendingBatch['activities']): Promise<void> {
    const rows = built?.rows ?? (await this.activityRows(records));
    // A replaced activity may leave its day: that day changed too.
    const previous = this.hadActivities ? await previousActivities(this.trx, rows.map((r) => r.id)) : [];
    for (const p of previous) this.changedDays.add(`${p.user_id}\u0000${p.local_date}`);
    await this.deferred?.beforeWrite(rows, previous);
    await this.trx.executeQuery(built?.upsert ?? activityUpsert(this.trx, rows));
    this.activitiesWritten = true;
  }

  /** The rows of `records`, or null when one names a task not in memory (see activityRows). */
  private knownActivityRows(records: ActivityRecord[]): ActivityRow[] | null {
    const projects: (string | null)[] = [];
    for (const a of records) {
      const task = a.taskId ? this.tasks.get(a.taskId) : undefined;
      if (a.taskId && !task) return null;
      projects.push(task?.projectId ?? null);
    }
    return records.map((a, i) => this.activityRow(a, projects[i]!));
  }

  /** The rows of `records`, looking up in the database the tasks not in memory. */
  private async activityRows(records: ActivityRecord[]): Promise<ActivityRow[]> {
    const rows: ActivityRow[] = [];
    for (const a of records) {
      const task = a.taskId ? (this.tasks.get(a.taskId) ?? (await this.findTask(a.taskId))) : undefined;
      rows.push(this.activityRow(a, task?.projectId ?? null));
    }
    return rows;
  }

  /** An activity's row; `taskProject` is its task's project. Its local day has changed. */
  private activityRow(a: ActivityRecord, taskProject: string | null): ActivityRow {
    const start = parseInstant(a.start);
    const localDate = this.localDateOf(start, this.users.get(a.userId) ?? 'UTC');
    this.changedDays.add(`${a.userId}\u0000${localDate}`);
    return {
      id: a.id,
      user_id: a.userId,
      start,
      duration_minutes: a.durationMinutes ?? 5,
      headline: a.headline,
      description: a.description ?? null,
      task_id: a.taskId ?? null,
      project_id: a.projectId ?? null,
      effective_project_id: a.projectId ?? taskProject,
      category_id: a.categoryId ?? null,
      local_date: localDate,
    };
  }

  private async endDeferredUpkeep(): Promise<void> {
    const deferred = this.deferred;
    this.deferred = null;
    await deferred?.end();
    // A later deferred write no longer starts from an empty table.
    if (this.activitiesWritten) this.hadActivities = true;
  }

  private async writeDayComments(records: DayCommentRecord[]): Promise<void> {
    const unique = new Map(records.map((c) => [`${c.userId}\u0000${c.date}`, c]));
    await this.trx
      .insertInto('day_comments')
      .values([...unique.values()].map((c) => ({ user_id: c.userId, date: c.date, comment: c.comment })))
      .onConflict((oc) => oc.columns(['user_id', 'date']).doUpdateSet((eb) => ({ comment: eb.ref('excluded.comment') })))
      .execute();
    for (const key of unique.keys()) this.changedDays.add(key);
  }

  private async writeApiKeys(records: ApiKeyRecord[]): Promise<void> {
    const rows = records.map((k) => {
      const keyHash = keyHashOf(k);
      return {
        id: apiKeyId(k, keyHash),
        user_id: k.userId,
        name: k.name,
        key_hash: keyHash,
        scopes: currentScopes(k.scopes).join(' '),
        revoked: bool(k.revoked, false),
        created_at: this.now,
        last_used_at: null,
      };
    });
    await this.trx
      .insertInto('api_keys')
      .values(rows)
      .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({
        user_id: eb.ref('excluded.user_id'),
        name: eb.ref('excluded.name'),
        key_hash: eb.ref('excluded.key_hash'),
        scopes: eb.ref('excluded.scopes'),
        revoked: eb.ref('excluded.revoked'),
      })))
      .execute();
  }

  /**
   * Dataset rule 3 after the whole file: a task given to another user may not keep activities
   * of its former owner (they may move with it in the same file).
   */
  private async checkMovedTasks(): Promise<void> {
    if (this.movedTasks.size === 0) return;
    const stranded = await this.trx
      .selectFrom('activities as a')
      .innerJoin('tasks as t', 't.id', 'a.task_id')
      .select(['a.id', 'a.user_id', 'a.task_id'])
      .where('a.task_id', 'in', textList(this.trx, this.movedTasks.keys()))
      .whereRef('a.user_id', '<>', 't.user_id')
      .orderBy('a.id')
      .limit(1)
      .executeTakeFirst();
    if (!stranded) return;
    const where = this.movedTasks.get(stranded.task_id!)!;
    throw new ImportError(
      `${where}: userId: task "${stranded.task_id}" still has activities of user "${stranded.user_id}" (activity "${stranded.id}"); an activity's task belongs to the same user`,
    );
  }

  /** `committedAt` stamps the changed days: a summary built while this import ran is stale. */
  async finish(committedAt: number): Promise<void> {
    await this.flush();
    await this.checkMovedTasks();
    await this.endDeferredUpkeep();
    await refreshAutoTaskCreatedAt(this.trx);
    // After the rollups are caught up: they say which days show the renamed things.
    await markDaysNaming(this.trx, this.renamed, committedAt);
    await markChangedDays(
      this.trx,
      [...this.changedDays].map((key) => {
        const [userId, date] = key.split('\u0000') as [string, string];
        return { userId, date };
      }),
      committedAt,
    );
  }
}

/** Records of one type taken for writing; for activities, their rows and statement when built already. */
interface PendingBatch {
  type: RecordType;
  records: unknown[];
  activities: { rows: ActivityRow[]; upsert: CompiledQuery } | null;
}

/**
 * Who holds each value of a unique field (e-mail, handle, key hash). A record that takes a
 * new value gives up its old one, as its upsert will in the database.
 */
class UniqueOwners {
  private readonly ownerOf = new Map<string, string>();
  private readonly valueOf = new Map<string, string>();

  /** Gives `value` to `id` unless another id holds it; returns the holder. */
  claim(value: string | null, id: string): string {
    const owner = value === null ? undefined : this.ownerOf.get(value);
    if (owner !== undefined && owner !== id) return owner;
    const old = this.valueOf.get(id);
    if (old !== undefined && old !== value) this.ownerOf.delete(old);
    if (value === null) {
      this.valueOf.delete(id);
    } else {
      this.ownerOf.set(value, id);
      this.valueOf.set(id, value);
    }
    return id;
  }
}

const keyHashOf = (k: ApiKeyRecord) => k.keyHash ?? hashApiKey(k.key!);

// Without an id the hash names the key, so importing the same file twice is a no-op.
const apiKeyId = (k: ApiKeyRecord, keyHash: string) => k.id ?? `key_${keyHash.slice(0, 16)}`;

/** What identifies a record for its upsert. */
function recordKey(type: RecordType, record: unknown): string {
  if (type === 'dayComment') {
    const c = record as DayCommentRecord;
    return `${c.userId}\u0000${c.date}`;
  }
  if (type === 'apiKey') return apiKeyId(record as ApiKeyRecord, keyHashOf(record as ApiKeyRecord));
  return (record as { id: string }).id;
}

/** An instant field the schema's date-time format let through but that is no instant here. */
function checkInstant(where: string, field: string, value: string | undefined): void {
  if (value !== undefined && Number.isNaN(parseInstant(value))) {
    throw new ImportError(`${where}: ${field}: "${value}" is not an instant (ISO 8601 with Z or an offset)`);
  }
}

/** Text holding U+0000 is refused on both databases, as the API refuses it: PostgreSQL cannot store it. */
function refuseNul(record: unknown, where: string): void {
  const field = fieldHoldingNul(record);
  if (field !== null) throw new ImportError(`${where}: ${field || 'record'}: ${NUL_RULE}`);
}

/** Dataset files named `.ndjson` or `.jsonl` hold one record per line; any other name, a JSON document. */
export function isNdjson(path: string): boolean {
  return /\.(ndjson|jsonl)$/i.test(path);
}

function dbError(err: unknown, where: string): ImportError {
  // Already placed (a batch's error names where its records end, not the record read since).
  if (err instanceof ImportError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/unique|duplicate key/i.test(message)) {
    return new ImportError(`${where}: conflicts with an existing record (${/email/i.test(message) ? 'email' : 'unique field'} already in use)`);
  }
  return new ImportError(`${where}: ${message}`);
}

async function importJsonDocument(session: ImportSession, path: string): Promise<void> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new ImportError(`${path}: not a JSON document (${(err as Error).message})`);
  }
  if (!validateDocument(doc)) {
    throw new ImportError(describeSchemaError(validateDocument.errors?.[0]));
  }
  const document = doc as Record<string, unknown[] | undefined>;
  for (const type of RECORD_TYPES) {
    const array = ARRAY_OF[type];
    const records = document[array] ?? [];
    for (let i = 0; i < records.length; i++) {
      const where = `${array}[${i}]`;
      refuseNul(records[i], where);
      try {
        await session.add(type, records[i], where);
      } catch (err) {
        throw dbError(err, where);
      }
    }
    try {
      await session.flush();
    } catch (err) {
      throw dbError(err, array);
    }
  }
}

async function importNdjson(session: ImportSession, path: string): Promise<void> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let lineNo = 0;
  for await (const line of lines) {
    lineNo++;
    if (line.trim() === '') continue;
    const where = `line ${lineNo}`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new ImportError(`${where}: not valid JSON`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ImportError(`${where}: a record must be a JSON object`);
    }
    const { type, ...record } = parsed as { type?: unknown };
    if (typeof type !== 'string' || !(RECORD_TYPES as readonly string[]).includes(type)) {
      throw new ImportError(`${where}: type: must be one of ${RECORD_TYPES.join(', ')}`);
    }
    const validate = recordValidator(type as RecordType);
    if (!validate(record)) throw new ImportError(`${where} (${type}): ${describeSchemaError(validate.errors?.[0])}`);
    // JSON can hold U+0000 only as an escape: lines without one need no walk.
    if (line.includes('\\u0000')) refuseNul(record, `${where} (${type})`);
    try {
      await session.add(type as RecordType, record, `${where} (${type})`);
    } catch (err) {
      throw dbError(err, `${where} (${type})`);
    }
  }
}

/** Imports one file in one transaction; on any error nothing is changed and ImportError says where. */
export async function importDataset(storage: Storage, path: string, options: ImportOptions = {}): Promise<ImportCounts> {
  const clock = options.now ?? Date.now;
  const now = clock();
  let stampedAt = now;
  // On SQLite the write lock is taken at once: see writeTransaction.
  const counts = await writeTransaction(storage, async (trx) => {
    const session = new ImportSession(trx, now, options.onProgress);
    try {
      await session.loadExisting();
      if (isNdjson(path)) await importNdjson(session, path);
      else await importJsonDocument(session, path);
      stampedAt = clock();
      try {
        await session.finish(stampedAt);
      } catch (err) {
        throw dbError(err, path);
      }
    } catch (err) {
      await session.quiesce();
      throw err;
    }
    return session.counts;
  });
  // A summary run that began while the import was finishing read the data before it: see
  // restampChangedDays.
  await restampChangedDays(storage.db, stampedAt, clock());
  if (Object.values(counts).reduce((a, b) => a + b, 0) >= LARGE_IMPORT_RECORDS) await tidyAfterLargeImport(storage);
  return counts;
}

/** Imports of at least this many records refresh statistics and indexes afterwards. */
const LARGE_IMPORT_RECORDS = 10_000;

/**
 * After a large import:
 * - PostgreSQL would plan the queries right after it on the old statistics (autovacuum gets to
 *   them later, or never where it is off: a year of reports then took twice as long). ANALYZE
 *   samples each table, a few seconds on millions of rows.
 * - SQLite's full-text index holds the import as many segments, and every search term is looked
 *   up in each of them: merging them into one ('optimize', 1.2 s for 2.4 million records) made
 *   a 7-day search 2.7 times faster on the benchmark dataset. SQLite keeps no statistics unless
 *   asked and its queries are written for its plans without them, so there is nothing to analyse.
 */
async function tidyAfterLargeImport(storage: Storage): Promise<void> {
  if (storage.dialect === 'postgres') await sql`analyze`.execute(storage.db);
  else await sql`insert into search_index (search_index) values ('optimize')`.execute(storage.db);
}
