/**
 * The checks of each record that its schema cannot make: the ids it refers to exist (in the
 * database or earlier in the file), a task's activities are its user's, unique fields stay
 * unique, and instants, zones and dates are real. They run as each record is read, so an error
 * names that record.
 */
import { isValidLocalDate, isValidTimezone, parseInstant } from '../lib/time.ts';
import type { KnownRecords } from '../storage/known-records.ts';
import { activityOfAnotherUser, findTaskOwner, type TaskOwner } from '../storage/tasks.ts';
import type { WriteSession } from '../storage/writes.ts';
import { ImportError } from './import-error.ts';
import type {
  ActivityRecord,
  ApiKeyRecord,
  DayCommentRecord,
  PortfolioRecord,
  ProjectRecord,
  TaskRecord,
  TeamRecord,
  UserRecord,
} from './records.ts';
import { apiKeyId, keyHashOf } from './rows.ts';
import type { RecordType } from './schema.ts';

/** Most tasks remembered; past it they are looked up again when referred to. */
const TASK_CACHE_LIMIT = 200_000;

export class ReferenceChecks {
  private readonly session: WriteSession;
  private readonly users = new Map<string, string>(); // id → timezone
  // Unique fields, checked per record so that a clash names its record rather than its batch.
  private readonly emails = new UniqueOwners();
  private readonly handles = new UniqueOwners();
  private readonly keyHashes = new UniqueOwners();
  private readonly teams: Set<string>;
  private readonly portfolios: Set<string>;
  private readonly categories: Set<string>;
  private readonly projects: Set<string>;
  /** Each task as last checked or looked up. */
  private readonly tasks = new Map<string, TaskOwner>();

  constructor(session: WriteSession, known: KnownRecords) {
    this.session = session;
    for (const u of known.users) {
      this.users.set(u.id, u.timezone);
      this.emails.claim(u.email, u.id);
      if (u.handle !== null) this.handles.claim(u.handle, u.id);
    }
    for (const k of known.apiKeys) this.keyHashes.claim(k.keyHash, k.id);
    this.teams = new Set(known.teamIds);
    this.portfolios = new Set(known.portfolioIds);
    this.categories = new Set(known.categoryIds);
    this.projects = new Set(known.projectIds);
  }

  /** The user's timezone, as stored or as the file last set it. */
  timezoneOf(userId: string): string | undefined {
    return this.users.get(userId);
  }

  /** The task as last checked or looked up, without asking the database. */
  knownTask(id: string): TaskOwner | undefined {
    return this.tasks.get(id);
  }

  /** The task, from memory or else from the database. */
  async findTask(id: string): Promise<TaskOwner | undefined> {
    const cached = this.tasks.get(id);
    if (cached) return cached;
    const stored = await findTaskOwner(this.session, id);
    if (stored) this.tasks.set(id, stored);
    return stored;
  }

  /** Whether checking `record` asks the database (for a task not in memory). */
  looksUp(type: RecordType, record: unknown): boolean {
    if (type !== 'activity') return false;
    const taskId = (record as ActivityRecord).taskId;
    return !!taskId && !this.tasks.has(taskId);
  }

  /**
   * Called once every task checked so far is written or being written (its batch is taken):
   * past TASK_CACHE_LIMIT the tasks are forgotten, and looked up again when referred to.
   */
  forgetTasksIfMany(): void {
    if (this.tasks.size >= TASK_CACHE_LIMIT) this.tasks.clear();
  }

  /** Checks `record`, named `where` in errors; what it brings is known from then on. */
  async check(type: RecordType, record: unknown, where: string): Promise<void> {
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
          if (listed.has(m.userId))
            throw new ImportError(`${where}: members[${i}].userId: "${m.userId}" is listed twice`);
          listed.add(m.userId);
        }
        this.teams.add(t.id);
        return;
      }
      case 'portfolio': {
        const p = record as PortfolioRecord;
        this.requireUser(where, 'ownerId', p.ownerId);
        if (p.teamId && !this.teams.has(p.teamId)) refError(where, 'teamId', 'team', p.teamId);
        this.portfolios.add(p.id);
        return;
      }
      case 'category':
        this.categories.add((record as { id: string }).id);
        return;
      case 'project': {
        const p = record as ProjectRecord;
        checkInstant(where, 'createdAt', p.createdAt);
        checkInstant(where, 'updatedAt', p.updatedAt);
        this.requireUser(where, 'createdBy', p.createdBy);
        if (p.teamId && !this.teams.has(p.teamId)) refError(where, 'teamId', 'team', p.teamId);
        if (p.portfolioId && !this.portfolios.has(p.portfolioId)) {
          refError(where, 'portfolioId', 'portfolio', p.portfolioId);
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
        if (t.projectId && !this.projects.has(t.projectId)) refError(where, 'projectId', 'project', t.projectId);
        // Known from here on: activities after it may refer to it before it is written.
        this.tasks.set(t.id, { userId: t.userId, projectId: t.projectId ?? null });
        return;
      }
      case 'activity': {
        const a = record as ActivityRecord;
        checkInstant(where, 'start', a.start);
        this.requireUser(where, 'userId', a.userId);
        if (a.taskId) {
          const task = await this.findTask(a.taskId);
          if (!task) refError(where, 'taskId', 'task', a.taskId);
          if (task.userId !== a.userId) {
            throw new ImportError(`${where}: taskId: task "${a.taskId}" belongs to another user`);
          }
        }
        if (a.projectId && !this.projects.has(a.projectId)) refError(where, 'projectId', 'project', a.projectId);
        if (a.categoryId && !this.categories.has(a.categoryId)) {
          refError(where, 'categoryId', 'category', a.categoryId);
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

  private requireUser(where: string, field: string, id: string): string {
    const tz = this.users.get(id);
    if (tz === undefined) refError(where, field, 'user', id);
    return tz;
  }

  private claimUnique(
    owners: UniqueOwners,
    where: string,
    field: string,
    value: string | null,
    kind: string,
    id: string,
  ): void {
    const owner = owners.claim(value, id);
    if (owner !== id) {
      const shown = field === 'key' ? 'the same key' : `"${value}"`;
      throw new ImportError(`${where}: ${field}: ${shown} already belongs to ${kind} "${owner}"`);
    }
  }
}

/**
 * Dataset rule 3 once the whole file is written: a task given to another user may not keep
 * activities of its former owner (they may move with it in the same file). `movedTasks`: each
 * task that changed hands, with where its record was read.
 */
export async function checkMovedTasks(session: WriteSession, movedTasks: ReadonlyMap<string, string>): Promise<void> {
  if (movedTasks.size === 0) return;
  const stranded = await activityOfAnotherUser(session, movedTasks.keys());
  if (!stranded) return;
  const where = movedTasks.get(stranded.taskId)!;
  throw new ImportError(
    `${where}: userId: task "${stranded.taskId}" still has activities of user "${stranded.userId}" (activity "${stranded.id}"); an activity's task belongs to the same user`,
  );
}

function refError(where: string, field: string, kind: string, id: string): never {
  throw new ImportError(`${where}: ${field}: no ${kind} with id "${id}"`);
}

/** An instant field the schema's date-time format let through but that is no instant here. */
function checkInstant(where: string, field: string, value: string | undefined): void {
  if (value !== undefined && Number.isNaN(parseInstant(value))) {
    throw new ImportError(`${where}: ${field}: "${value}" is not an instant (ISO 8601 with Z or an offset)`);
  }
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
