/** Stored summaries, the facts that decide which are due, and the claim that builds each once. */
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Storage } from './database.ts';
import { fixedQuery } from './fixed-query.ts';
import type { Database, SummariesTable } from './schema.ts';

type Db = Kysely<Database> | Transaction<Database>;
type Level = SummariesTable['level'];

export interface SummaryStamp {
  level: Level;
  periodStart: string;
  periodEnd: string;
  builtAt: number;
}

/** The user's local days up to `lastDay` (inclusive) with tracked time, ascending. */
export async function trackedDays(db: Db, userId: string, lastDay: string): Promise<string[]> {
  const rows = await db
    .selectFrom('activities')
    .select('local_date')
    .where('user_id', '=', userId)
    .where('local_date', '<=', lastDay)
    .groupBy('local_date')
    .having((eb) => eb.fn.sum('duration_minutes'), '>', 0)
    .orderBy('local_date')
    .execute();
  return rows.map((r) => r.local_date);
}

export async function summaryStamps(db: Db, userId: string): Promise<SummaryStamp[]> {
  const rows = await db
    .selectFrom('summaries')
    .select(['level', 'period_start', 'period_end', 'built_at'])
    .where('user_id', '=', userId)
    .execute();
  return rows.map((r) => ({
    level: r.level,
    periodStart: r.period_start,
    periodEnd: r.period_end,
    builtAt: Number(r.built_at),
  }));
}

export async function findSummaryStamp(
  db: Db,
  userId: string,
  level: Level,
  periodStart: string,
): Promise<SummaryStamp | undefined> {
  const row = await db
    .selectFrom('summaries')
    .select(['period_end', 'built_at'])
    .where('user_id', '=', userId)
    .where('level', '=', level)
    .where('period_start', '=', periodStart)
    .executeTakeFirst();
  return row && { level, periodStart, periodEnd: row.period_end, builtAt: Number(row.built_at) };
}

/** When each of the user's local days last changed (import, timezone change). */
export async function changedDays(db: Db, userId: string): Promise<{ date: string; changedAt: number }[]> {
  const rows = await db
    .selectFrom('changed_days')
    .select(['local_date', 'changed_at'])
    .where('user_id', '=', userId)
    .execute();
  return rows.map((r) => ({ date: r.local_date, changedAt: Number(r.changed_at) }));
}

/** The latest change of any of the user's local days in [from, to], or null. */
export async function latestChange(db: Db, userId: string, from: string, to: string): Promise<number | null> {
  const row = await db
    .selectFrom('changed_days')
    .select((eb) => eb.fn.max('changed_at').as('latest'))
    .where('user_id', '=', userId)
    .where('local_date', '>=', from)
    .where('local_date', '<=', to)
    .executeTakeFirst();
  return row?.latest === null || row?.latest === undefined ? null : Number(row.latest);
}

export async function findSummaryContent(
  db: Db,
  userId: string,
  level: Level,
  periodStart: string,
): Promise<string | undefined> {
  const [row] = await SUMMARY_CONTENT.execute(db, '', [userId, level, periodStart]);
  return row?.content;
}

const SUMMARY_CONTENT = fixedQuery((db, [userId, level, periodStart]) =>
  db
    .selectFrom('summaries')
    .select('content')
    .where('user_id', '=', userId as string)
    .where('level', '=', level as Level)
    .where('period_start', '=', periodStart as string),
);

export async function saveSummary(
  db: Db,
  s: { userId: string; level: Level; periodStart: string; periodEnd: string; content: string; builtAt: number },
): Promise<void> {
  await db
    .insertInto('summaries')
    .values({
      user_id: s.userId,
      level: s.level,
      period_start: s.periodStart,
      period_end: s.periodEnd,
      content: s.content,
      built_at: s.builtAt,
    })
    .onConflict((oc) =>
      oc
        .columns(['user_id', 'level', 'period_start'])
        .doUpdateSet({ period_end: s.periodEnd, content: s.content, built_at: s.builtAt }),
    )
    .execute();
}

export async function deleteSummary(db: Db, userId: string, level: Level, periodStart: string): Promise<void> {
  await db
    .deleteFrom('summaries')
    .where('user_id', '=', userId)
    .where('level', '=', level)
    .where('period_start', '=', periodStart)
    .execute();
}

/**
 * Runs `build` in a transaction that holds the claim on `key`, or returns `{ claimed: false }`
 * when another process holds it. On PostgreSQL the claim is a transaction-scoped advisory lock,
 * so several server processes never build the same summary at once and a crashed process
 * leaves nothing behind. On SQLite the transaction itself serialises writers.
 */
export async function withBuildClaim<T>(
  storage: Storage,
  key: string,
  build: (trx: Transaction<Database>) => Promise<T>,
): Promise<{ claimed: true; result: T } | { claimed: false }> {
  return storage.db.transaction().execute(async (trx) => {
    if (storage.dialect === 'postgres') {
      const { rows } = await sql<{
        claimed: boolean;
      }>`select pg_try_advisory_xact_lock(hashtextextended(${key}, 0)) as claimed`.execute(trx);
      if (!rows[0]?.claimed) return { claimed: false as const };
    }
    return { claimed: true as const, result: await build(trx) };
  });
}
