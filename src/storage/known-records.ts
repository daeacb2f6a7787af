/** What an import checks its records' references and unique fields against before it writes. */
import type { WriteSession } from './writes.ts';

export interface KnownRecords {
  users: { id: string; timezone: string; email: string; handle: string | null }[];
  apiKeys: { id: string; keyHash: string }[];
  teamIds: string[];
  portfolioIds: string[];
  categoryIds: string[];
  projectIds: string[];
}

/** Every stored user (with the fields others may not share), API key, team, portfolio, category and project. */
export async function loadKnownRecords(session: WriteSession): Promise<KnownRecords> {
  const db = session.db;
  const ids = async (table: 'teams' | 'portfolios' | 'categories' | 'projects') =>
    (await db.selectFrom(table).select('id').execute()).map((r) => r.id);
  return {
    users: await db.selectFrom('users').select(['id', 'timezone', 'email', 'handle']).execute(),
    apiKeys: (await db.selectFrom('api_keys').select(['id', 'key_hash']).execute()).map((k) => ({
      id: k.id,
      keyHash: k.key_hash,
    })),
    teamIds: await ids('teams'),
    portfolioIds: await ids('portfolios'),
    categoryIds: await ids('categories'),
    projectIds: await ids('projects'),
  };
}
