/**
 * Records of the dataset format as the rows storage writes: the format's defaults filled in,
 * instants as Unix ms, booleans as 0/1.
 */
import type { Insertable } from 'kysely';
import { hashApiKey } from '../services/api-keys.ts';
import { currentScopes } from '../services/scopes.ts';
import { localNoon, parseInstant } from '../lib/time.ts';
import type { ActivityWrite } from '../storage/activities.ts';
import type { DayCommentRow } from '../storage/day-comments.ts';
import type {
  ApiKeysTable,
  CategoriesTable,
  PortfoliosTable,
  ProjectsTable,
  TeamMembersTable,
  TeamsTable,
  UsersTable,
} from '../storage/schema.ts';
import type { TaskWrite } from '../storage/tasks.ts';
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

const bool = (value: boolean | undefined, fallback: boolean) => ((value ?? fallback) ? 1 : 0);
/** A checked instant field (see references.ts) as Unix ms, or null when absent. */
const instant = (value: string | undefined) => (value === undefined ? null : parseInstant(value));

export function userRow(u: UserRecord): Insertable<UsersTable> {
  return {
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
  };
}

/** Teams and their whole member lists, in listed order. */
export function teamRows(records: TeamRecord[]): {
  teams: Insertable<TeamsTable>[];
  members: Insertable<TeamMembersTable>[];
} {
  return {
    teams: records.map((t) => ({ id: t.id, name: t.name })),
    members: records.flatMap((t) =>
      (t.members ?? []).map((m, position) => ({
        team_id: t.id,
        user_id: m.userId,
        status: m.status ?? 'active',
        role: m.role ?? 'member',
        position,
      })),
    ),
  };
}

export function portfolioRow(p: PortfolioRecord): Insertable<PortfoliosTable> {
  return { id: p.id, name: p.name, owner_id: p.ownerId, team_id: p.teamId ?? null };
}

export function categoryRow(c: CategoryRecord): Insertable<CategoriesTable> {
  return { id: c.id, name: c.name, emoji: c.emoji ?? null };
}

/** `now`: the creation time of a new project whose record has none. */
export function projectRow(p: ProjectRecord, now: number): Insertable<ProjectsTable> {
  return {
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
    created_at: instant(p.createdAt) ?? now,
    updated_at: instant(p.updatedAt),
  };
}

/**
 * `timezone`: its user's. Without `createdAt` a task is created at noon of its date until it
 * has activities, then at the start of its first (storage's refreshAutoTaskCreatedAt).
 */
export function taskRow(t: TaskRecord, timezone: string): TaskWrite {
  return {
    id: t.id,
    user_id: t.userId,
    date: t.date,
    title: t.title,
    description: t.description ?? null,
    project_id: t.projectId ?? null,
    visible: bool(t.visible, true),
    created_at: instant(t.createdAt) ?? localNoon(t.date, timezone),
    created_at_auto: t.createdAt === undefined ? 1 : 0,
  };
}

/**
 * `timezone`: its user's; `taskProject`: its task's project. `localDateOf` is the caller's
 * memo of localDateOf (lib/time.ts), which a file's runs of one user's day make cheap.
 */
export function activityRow(
  a: ActivityRecord,
  timezone: string,
  taskProject: string | null,
  localDateOf: (ms: number, timezone: string) => string,
): ActivityWrite {
  const start = parseInstant(a.start);
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
    local_date: localDateOf(start, timezone),
  };
}

export function dayCommentRow(c: DayCommentRecord): DayCommentRow {
  return { user_id: c.userId, date: c.date, comment: c.comment };
}

export const keyHashOf = (k: ApiKeyRecord) => k.keyHash ?? hashApiKey(k.key!);

// Without an id the hash names the key, so importing the same file twice is a no-op.
export const apiKeyId = (k: ApiKeyRecord, keyHash: string) => k.id ?? `key_${keyHash.slice(0, 16)}`;

/** `now`: the creation time of a new key (a replaced key keeps its own). */
export function apiKeyRow(k: ApiKeyRecord, now: number): Insertable<ApiKeysTable> {
  const keyHash = keyHashOf(k);
  return {
    id: apiKeyId(k, keyHash),
    user_id: k.userId,
    name: k.name,
    key_hash: keyHash,
    scopes: currentScopes(k.scopes).join(' '),
    revoked: bool(k.revoked, false),
    created_at: now,
    last_used_at: null,
  };
}
