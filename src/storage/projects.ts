/**
 * Projects and what project rules need to look up: the caller's teams and portfolios, users
 * named as contributors, and the last time each project was used. Also the importer's writes of
 * projects, portfolios and categories (see writes.ts).
 */
import { type ExpressionBuilder, type Insertable, type Kysely, PostgresAdapter, type Selectable, sql } from 'kysely';
import { fixedQuery } from './fixed-query.ts';
import type { CategoriesTable, Database, PortfoliosTable, ProjectsTable } from './schema.ts';
import { textList } from './text-list.ts';
import type { WriteSession } from './writes.ts';

export type ProjectRow = Selectable<ProjectsTable> & {
  /** Start of the most recent activity logged to the project (Unix ms), or null. */
  used_at: number | null;
};

export type ProjectSortKey = 'createdAt' | 'updatedAt' | 'usedAt';

const SORT_COLUMN = { createdAt: 'created_at', updatedAt: 'updated_at', usedAt: 'used_at' } as const;

/**
 * docs/api.md, "/projects" as SQL: the user's own personal projects and every project of a team in
 * which the user has an active membership. `canSeeProject` (services/projects/access.ts) is
 * the same rule for one loaded project.
 */
function visibleTo(userId: string) {
  return (eb: ExpressionBuilder<Database, 'projects'>) =>
    eb.or([
      eb.and([eb('projects.team_id', 'is', null), eb('projects.created_by', '=', userId)]),
      eb(
        'projects.team_id',
        'in',
        eb
          .selectFrom('team_members')
          .select('team_members.team_id')
          .where('team_members.user_id', '=', userId)
          .where('team_members.status', '=', 'active'),
      ),
    ]);
}

/**
 * Ids of the projects, archived or not, that the user may see and change; with `among`, only
 * those of the given ids (to validate ids a caller names).
 */
export async function visibleProjectIds(
  db: Kysely<Database>,
  userId: string,
  among?: readonly string[],
): Promise<Set<string>> {
  if (among && among.length === 0) return new Set();
  let query = db.selectFrom('projects').select('projects.id').where(visibleTo(userId));
  if (among) query = query.where('projects.id', 'in', textList(db, among));
  const rows = await query.execute();
  return new Set(rows.map((r) => r.id));
}

function selectProjects(db: Kysely<Database>) {
  return db
    .selectFrom('projects')
    .selectAll('projects')
    .select((eb) =>
      eb
        .selectFrom('activities')
        .select((a) => a.fn.max<number | null>('activities.start').as('m'))
        .whereRef('activities.effective_project_id', '=', 'projects.id')
        .as('used_at'),
    );
}

function normalize(row: Selectable<ProjectsTable> & { used_at: number | string | null }): ProjectRow {
  // max() over a bigint column is numeric on PostgreSQL and comes back as a string.
  return { ...row, used_at: row.used_at === null ? null : Number(row.used_at) };
}

/** The user's visible projects, sorted descending by `sort` with nulls last, ties by id. */
export async function listVisibleProjects(
  db: Kysely<Database>,
  userId: string,
  options: { includeArchived: boolean; sort: ProjectSortKey },
): Promise<ProjectRow[]> {
  return (await VISIBLE_PROJECTS.execute(db, `${options.sort} ${options.includeArchived}`, [userId])).map(normalize);
}

/** Its shape is the sort key, then whether archived projects are included (value: the user). */
const VISIBLE_PROJECTS = fixedQuery((db, [userId], shape) => {
  const [sort, includeArchived] = shape.split(' ') as [ProjectSortKey, string];
  const column = SORT_COLUMN[sort];
  let query = db
    .selectFrom(
      selectProjects(db)
        .where(visibleTo(userId as string))
        .as('p'),
    )
    .selectAll('p');
  query = inListOrder(query, `p.${column}`);
  if (includeArchived !== 'true') query = query.where('p.archived', '=', 0);
  return query;
});

/**
 * Where a page of the list ends: the sort value of its last project (null flag first, as the
 * order puts nulls last) and the project's id. The next page starts right after it.
 */
export interface ProjectPosition {
  /** The sort value is null. */
  isNull: boolean;
  /** The sort value (Unix ms), or null. */
  value: number | null;
  id: string;
}

/** The list's order on `column`: nulls last, then the value descending, then the id ascending. */
function inListOrder<Q extends { orderBy: (expression: never, direction?: 'desc') => Q }>(query: Q, column: string): Q {
  return query
    .orderBy(sql`case when ${sql.ref(column)} is null then 1 else 0 end` as never)
    .orderBy(sql.ref(column) as never, 'desc')
    .orderBy(sql.ref(column.replace(/[^.]+$/, 'id')) as never);
}

/**
 * The rows after a position in the list order on `column` (`after`: `null` when the position's
 * sort value is null, else `value`; the value and id are the query's values). Keyset pagination:
 * a page starts at the position, with no OFFSET that reads and drops the rows before it.
 */
function afterPosition(column: string, after: string, value: unknown, id: unknown) {
  const col = sql.ref(column);
  const idRef = sql.ref(column.replace(/[^.]+$/, 'id'));
  if (after === 'null') return sql<boolean>`(${col} is null and ${idRef} > ${id})`;
  return sql<boolean>`(${col} is null or ${col} < ${value} or (${col} = ${value} and ${idRef} > ${id}))`;
}

/**
 * One page of listVisibleProjects: at most `limit` projects after `after` (or from the start).
 * Sorted on a column of the row (createdAt, updatedAt), the page is chosen first and `used_at`
 * computed for its rows alone; sorted on `used_at`, every visible project's is needed to order
 * them (one index lookup each, activities_project_start).
 */
export async function pageOfVisibleProjects(
  db: Kysely<Database>,
  userId: string,
  options: { includeArchived: boolean; sort: ProjectSortKey; limit: number; after?: ProjectPosition },
): Promise<ProjectRow[]> {
  return (await db.executeQuery(projectListStatement(db, userId, options))).rows.map(normalize);
}

/**
 * The statement of listVisibleProjects (no `limit`) or of pageOfVisibleProjects, not run: what
 * bench/projects-list.ts shows the plans of.
 */
export function projectListStatement(
  db: Kysely<Database>,
  userId: string,
  options: { includeArchived: boolean; sort: ProjectSortKey; limit?: number; after?: ProjectPosition },
) {
  const { after, limit } = options;
  if (limit === undefined) return VISIBLE_PROJECTS.compile(db, `${options.sort} ${options.includeArchived}`, [userId]);
  const from = after === undefined ? 'first' : after.isNull ? 'null' : 'value';
  const values =
    after === undefined
      ? [userId, limit]
      : after.isNull
        ? [userId, after.id, limit]
        : [userId, after.value, after.id, limit];
  return VISIBLE_PROJECTS_PAGE.compile(db, `${options.sort} ${options.includeArchived} ${from}`, values);
}

/**
 * Its shape is the sort key, whether archived projects are included, and where the page starts
 * (`first`, after a `null` sort value, after a `value`); values: the user, then the position's
 * value (unless null) and id, then the limit.
 */
const VISIBLE_PROJECTS_PAGE = fixedQuery((db, values, shape) => {
  const [sort, includeArchived, from] = shape.split(' ') as [ProjectSortKey, string, string];
  const userId = values[0] as string;
  const limit = values.at(-1) as number;
  const [value, id] = from === 'value' ? [values[1], values[2]] : [undefined, values[1]];
  const column = SORT_COLUMN[sort];
  if (column === 'used_at') {
    // Materialized, so that each project's used_at is computed once, not again for each place
    // the filter and the order name it (as the databases would once they inline the subquery).
    let visible = selectProjects(db).where(visibleTo(userId));
    if (includeArchived !== 'true') visible = visible.where('projects.archived', '=', 0);
    let query = db
      .with(
        (cte) => cte('p').materialized(),
        () => visible,
      )
      .selectFrom('p')
      .selectAll('p');
    if (from !== 'first') query = query.where(afterPosition('p.used_at', from, value, id));
    return inListOrder(query, 'p.used_at').limit(limit);
  }
  let page = db.selectFrom('projects').selectAll('projects').where(visibleTo(userId));
  if (includeArchived !== 'true') page = page.where('projects.archived', '=', 0);
  if (from !== 'first') page = page.where(afterPosition(`projects.${column}`, from, value, id));
  page = inListOrder(page, `projects.${column}`).limit(limit);
  const query = db
    .selectFrom(page.as('p'))
    .selectAll('p')
    .select((eb) =>
      eb
        .selectFrom('activities')
        .select((a) => a.fn.max<number | null>('activities.start').as('m'))
        .whereRef('activities.effective_project_id', '=', 'p.id')
        .as('used_at'),
    );
  return inListOrder(query, `p.${column}`);
});

export async function findProject(db: Kysely<Database>, id: string): Promise<ProjectRow | undefined> {
  const row = await selectProjects(db).where('projects.id', '=', id).executeTakeFirst();
  return row && normalize(row);
}

/** Runs a project update's checks and writes in one transaction (see findProjectForUpdate). */
export function inProjectTransaction<T>(db: Kysely<Database>, work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.transaction().execute(work);
}

/**
 * Inside a transaction: the project, its row held until the transaction ends, so that two
 * updates of one project (from any server process) check and write one after the other.
 * PostgreSQL locks the row (`for update`, which waits for an update under way and then reads the
 * row as that update left it); SQLite's transactions already run one at a time on the one
 * connection.
 */
export async function findProjectForUpdate(db: Kysely<Database>, id: string): Promise<ProjectRow | undefined> {
  let query = selectProjects(db).where('projects.id', '=', id);
  if (db.getExecutor().adapter instanceof PostgresAdapter) query = query.forUpdate('projects');
  const row = await query.executeTakeFirst();
  return row && normalize(row);
}

export async function insertProject(db: Kysely<Database>, project: Insertable<ProjectsTable>): Promise<void> {
  await db.insertInto('projects').values(project).execute();
}

export type ProjectChanges = Partial<
  Pick<
    Selectable<ProjectsTable>,
    | 'name'
    | 'description'
    | 'color'
    | 'team_id'
    | 'portfolio_id'
    | 'private'
    | 'contributor_ids'
    | 'archived'
    | 'updated_by'
    | 'updated_at'
  >
>;

export async function writeProjectChanges(db: Kysely<Database>, id: string, changes: ProjectChanges): Promise<void> {
  await db.updateTable('projects').set(changes).where('id', '=', id).execute();
}

export interface TeamRef {
  id: string;
  name: string;
}

/** The teams of `ids` (the caller's active teams, as its key was verified), by id. */
export async function teamsByIds(db: Kysely<Database>, ids: readonly string[]): Promise<TeamRef[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('teams').select(['id', 'name']).where('id', 'in', textList(db, ids)).orderBy('id').execute();
}

export interface PortfolioRef {
  id: string;
  name: string;
  ownerId: string;
  teamId: string | null;
}

/** Portfolios the user owns or that belong to one of `teamIds`, by id. */
export async function portfoliosUsableBy(
  db: Kysely<Database>,
  userId: string,
  teamIds: readonly string[],
): Promise<PortfolioRef[]> {
  const rows = await db
    .selectFrom('portfolios')
    .select(['id', 'name', 'owner_id', 'team_id'])
    .where((eb) =>
      teamIds.length > 0
        ? eb.or([eb('owner_id', '=', userId), eb('team_id', 'in', teamIds)])
        : eb('owner_id', '=', userId),
    )
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, name: r.name, ownerId: r.owner_id, teamId: r.team_id }));
}

export async function findPortfolio(db: Kysely<Database>, id: string): Promise<PortfolioRef | undefined> {
  const row = await db
    .selectFrom('portfolios')
    .select(['id', 'name', 'owner_id', 'team_id'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row && { id: row.id, name: row.name, ownerId: row.owner_id, teamId: row.team_id };
}

export interface UserRef {
  id: string;
  handle: string | null;
  email: string;
}

/** Users whose id or handle equals, or whose e-mail equals ignoring case, one of `entries`. */
/**
 * The members of the team (any status) whose id, handle or e-mail address (ignoring case) is
 * among `entries`: a contributor list is resolved within the team alone.
 */
export async function teamMembersMatching(
  db: Kysely<Database>,
  teamId: string,
  entries: readonly string[],
): Promise<(UserRef & { active: boolean })[]> {
  if (entries.length === 0) return [];
  const distinct = new Set(entries);
  const lowered = new Set(entries.map((e) => e.toLowerCase()));
  const rows = await db
    .selectFrom('users as u')
    .innerJoin('team_members as m', 'm.user_id', 'u.id')
    .select(['u.id', 'u.handle', 'u.email', 'm.status'])
    .where('m.team_id', '=', teamId)
    .where((eb) =>
      eb.or([
        eb('u.id', 'in', textList(db, distinct)),
        eb('u.handle', 'in', textList(db, distinct)),
        eb(eb.fn('lower', ['u.email']), 'in', textList(db, lowered)),
      ]),
    )
    .orderBy('u.id')
    .execute();
  return rows.map((r) => ({ id: r.id, handle: r.handle, email: r.email, active: r.status === 'active' }));
}

/** Inserts or replaces portfolios by id (distinct ids). */
export async function upsertPortfolios(session: WriteSession, rows: Insertable<PortfoliosTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await session.db
    .insertInto('portfolios')
    .values(rows)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        name: eb.ref('excluded.name'),
        owner_id: eb.ref('excluded.owner_id'),
        team_id: eb.ref('excluded.team_id'),
      })),
    )
    .execute();
}

/** Inserts or replaces categories by id (distinct ids); a new name or emoji makes the summaries that show it stale. */
export async function upsertCategories(session: WriteSession, rows: Insertable<CategoriesTable>[]): Promise<void> {
  if (rows.length === 0) return;
  const db = session.db;
  const shown = (c: { name: string; emoji?: string | null }) => `${c.name}\u0000${c.emoji ?? ''}`;
  const stored = await db
    .selectFrom('categories')
    .select(['id', 'name', 'emoji'])
    .where(
      'id',
      'in',
      rows.map((c) => c.id),
    )
    .execute();
  const before = new Map(stored.map((c) => [c.id, shown(c)]));
  for (const c of rows) {
    const was = before.get(c.id);
    if (was !== undefined && was !== shown(c)) session.renamed('categories', c.id);
  }
  await db
    .insertInto('categories')
    .values(rows)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({ name: eb.ref('excluded.name'), emoji: eb.ref('excluded.emoji') })),
    )
    .execute();
}

/**
 * Inserts or replaces projects by id (distinct ids); a replaced project keeps its `created_at`
 * where the row has none. A new name makes the summaries that show it stale.
 */
export async function upsertProjects(session: WriteSession, rows: Insertable<ProjectsTable>[]): Promise<void> {
  if (rows.length === 0) return;
  const db = session.db;
  const names = await db
    .selectFrom('projects')
    .select(['id', 'name'])
    .where(
      'id',
      'in',
      rows.map((p) => p.id),
    )
    .execute();
  const before = new Map(names.map((p) => [p.id, p.name]));
  for (const p of rows) {
    const was = before.get(p.id);
    if (was !== undefined && was !== p.name) session.renamed('projects', p.id);
  }
  await db
    .insertInto('projects')
    .values(rows)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
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
      })),
    )
    .execute();
}

/** What deciding whether a user may log time to a project needs (see services/projects/access.ts). */
export interface ProjectForLogging {
  id: string;
  name: string;
  teamId: string | null;
  createdBy: string;
  archived: boolean;
  contributorIds: string[] | null;
}

/** The stored projects among `ids` (at most a batch's). */
export async function projectsForLogging(session: WriteSession, ids: readonly string[]): Promise<ProjectForLogging[]> {
  if (ids.length === 0) return [];
  return loggingView(
    await session.db
      .selectFrom('projects')
      .select(['id', 'name', 'team_id', 'created_by', 'archived', 'contributor_ids'])
      .where('id', 'in', textList(session.db, ids))
      .execute(),
  );
}

/** The projects whose id is `value` or whose name is `name`, oldest first. */
export async function projectsForLoggingNamed(
  session: WriteSession,
  value: string,
  name: string,
): Promise<ProjectForLogging[]> {
  return loggingView(
    await session.db
      .selectFrom('projects')
      .select(['id', 'name', 'team_id', 'created_by', 'archived', 'contributor_ids'])
      .where((eb) => eb.or([eb('id', '=', value), eb('name', '=', name)]))
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  );
}

/** The projects named exactly one of `names`, oldest first. */
export async function projectsNamed(session: WriteSession, names: readonly string[]): Promise<ProjectForLogging[]> {
  if (names.length === 0) return [];
  return loggingView(
    await session.db
      .selectFrom('projects')
      .select(['id', 'name', 'team_id', 'created_by', 'archived', 'contributor_ids'])
      .where('name', 'in', textList(session.db, names))
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  );
}

function loggingView(
  rows: Pick<Selectable<ProjectsTable>, 'id' | 'name' | 'team_id' | 'created_by' | 'archived' | 'contributor_ids'>[],
): ProjectForLogging[] {
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    teamId: r.team_id,
    createdBy: r.created_by,
    archived: Boolean(r.archived),
    contributorIds: r.contributor_ids === null ? null : (JSON.parse(r.contributor_ids) as string[]),
  }));
}

/** The categories whose id or exact name is among `values`. */
export async function categoriesNamed(
  session: WriteSession,
  values: readonly string[],
): Promise<{ id: string; name: string }[]> {
  if (values.length === 0) return [];
  const list = textList(session.db, values);
  return session.db
    .selectFrom('categories')
    .select(['id', 'name'])
    .where((eb) => eb.or([eb('id', 'in', list), eb('name', 'in', list)]))
    .execute();
}
