/**
 * Table types shared by both dialects. Booleans are stored as integers (0/1) and instants as
 * Unix milliseconds on SQLite and PostgreSQL alike, so one set of queries serves both.
 */
import type { ColumnType, Generated } from 'kysely';

type Bool = number;

/**
 * PostgreSQL only (migrations 0002 and 0004): a task's or activity's search lexemes, which a
 * writer may give (the importer does) and a trigger fills otherwise. Never read by a query.
 */
type SearchWords = ColumnType<never, string | undefined, string | undefined>;

export interface UsersTable {
  id: string;
  email: string;
  name: string | null;
  display_name: string | null;
  handle: string | null;
  timezone: string;
  plan: 'free' | 'core' | 'pro';
  daily_target_minutes: number;
  week_start: 'monday' | 'sunday';
  created_at: number | null;
}

export interface TeamsTable {
  id: string;
  name: string;
}

export interface TeamMembersTable {
  team_id: string;
  user_id: string;
  status: 'active' | 'inactive';
  role: 'member' | 'admin';
  position: number;
}

export interface PortfoliosTable {
  id: string;
  name: string;
  owner_id: string;
  team_id: string | null;
}

export interface CategoriesTable {
  id: string;
  name: string;
  emoji: string | null;
}

export interface ProjectsTable {
  id: string;
  name: string;
  description: string | null;
  color: string | null;
  team_id: string | null;
  portfolio_id: string | null;
  private: Bool;
  confidential: Bool;
  /** JSON array of user ids, or null (= every team member). */
  contributor_ids: string | null;
  archived: Bool;
  created_by: string;
  updated_by: string | null;
  created_at: number | null;
  updated_at: number | null;
}

export interface TasksTable {
  id: string;
  user_id: string;
  date: string;
  title: string;
  description: string | null;
  project_id: string | null;
  visible: Bool;
  created_at: number;
  /** 1 when created_at was not given and follows the task's first activity. */
  created_at_auto: Bool;
  search_words: SearchWords;
}

export interface ActivitiesTable {
  id: string;
  user_id: string;
  start: number;
  duration_minutes: number;
  headline: string;
  description: string | null;
  task_id: string | null;
  /** The project given on the activity itself. */
  project_id: string | null;
  /** The activity's own project, else its task's project. */
  effective_project_id: string | null;
  category_id: string | null;
  /** Local day of `start` in the user's timezone (YYYY-MM-DD). */
  local_date: string;
  search_words: SearchWords;
}

export interface HeartbeatsTable {
  id: string;
  user_id: string;
  /** Unix seconds, fractional as sent. */
  time: number;
  entity: string;
  type: string;
  category: string;
  project: string | null;
  branch: string | null;
  language: string | null;
  is_write: Bool | null;
  lines: number | null;
  lineno: number | null;
  cursorpos: number | null;
  /** JSON array of strings, or null. */
  dependencies: string | null;
  user_agent: string | null;
  /** The X-Machine-Name header of the request. */
  machine: string | null;
  created_at: number;
  /** The fields that make two heartbeats the same (decisions §8.5). */
  dedupe_key: string;
}

export interface DayCommentsTable {
  user_id: string;
  date: string;
  comment: string;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  key_hash: string;
  /** Space-separated scope list. */
  scopes: string;
  revoked: Bool;
  created_at: number;
  last_used_at: number | null;
}

export interface SummariesTable {
  user_id: string;
  level: 'day' | 'week' | 'month' | 'quarter' | 'year';
  period_start: string;
  period_end: string;
  /** JSON of the structured summary. */
  content: string;
  built_at: number;
}

/** A place summaries are delivered to (migration 0008, docs/delivery.md). */
export interface DestinationsTable {
  id: string;
  user_id: string;
  kind: 'slack' | 'discord' | 'webhook';
  name: string | null;
  /** Secret in itself for Slack and Discord: never logged, shown masked. */
  url: string;
  /** `whsec_…`, webhooks only: the HMAC key of their signatures. */
  secret: string | null;
  /** Comma-separated levels. */
  levels: string;
  updates: Bool;
  enabled: Bool;
  disabled_reason: string | null;
  disabled_at: number | null;
  /** The first failed attempt since the last delivered one. */
  failing_since: number | null;
  last_delivered_at: number | null;
  created_at: number;
  updated_at: number;
}

/** The outbox: one row per summary (or test) to send to one destination. */
export interface DeliveriesTable {
  /** The stable `webhook-id` of every attempt. */
  id: string;
  destination_id: string;
  event: string;
  level: string | null;
  period_start: string | null;
  /** The JSON sent, the same on every attempt. */
  body: string;
  status: 'pending' | 'delivered' | 'failed' | 'superseded';
  attempts: number;
  next_attempt_at: number;
  /** While a process attempts it; a process that dies leaves it to expire. */
  lease_until: number | null;
  last_error: string | null;
  created_at: number;
  finished_at: number | null;
}

export interface DeliveryAttemptsTable {
  delivery_id: string;
  attempt: number;
  destination_id: string;
  attempted_at: number;
  duration_ms: number;
  outcome: string;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
}

/**
 * Minutes and activity count per user, local day, project, category and task, kept by triggers
 * on `activities` (migration 0003). The key columns hold '' for none.
 */
interface DayRollupsTable {
  user_id: string;
  local_date: string;
  project_key: string;
  category_key: string;
  task_key: string;
  minutes: number;
  activities: number;
}

/** Local days whose data changed, so summaries covering them can be rebuilt. */
interface ChangedDaysTable {
  user_id: string;
  local_date: string;
  changed_at: number;
}

export interface Database {
  users: UsersTable;
  teams: TeamsTable;
  team_members: TeamMembersTable;
  portfolios: PortfoliosTable;
  categories: CategoriesTable;
  projects: ProjectsTable;
  tasks: TasksTable;
  activities: ActivitiesTable;
  day_rollups: DayRollupsTable;
  day_comments: DayCommentsTable;
  heartbeats: HeartbeatsTable;
  api_keys: ApiKeysTable;
  summaries: SummariesTable;
  changed_days: ChangedDaysTable;
  destinations: DestinationsTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  daybook_meta: { key: string; value: string };
  _unused?: { id: Generated<number> };
}
