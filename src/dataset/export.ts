/**
 * Writes the whole database in the dataset format, streamed page by page so memory stays flat.
 * Records come in a fixed order (type, then id), so exporting the same data twice gives the
 * same bytes.
 */
import type { Writable } from 'node:stream';
import { once } from 'node:events';
import type { UserRow } from '../storage/accounts.ts';
import type { Storage } from '../storage/database.ts';
import {
  activitiesAfter,
  apiKeysAfter,
  categoriesAfter,
  dayCommentsAfter,
  portfoliosAfter,
  projectsAfter,
  tasksAfter,
  teamsAfter,
  usersAfter,
} from '../storage/export.ts';
import { ARRAY_OF, RECORD_TYPES, type RecordType } from './schema.ts';

const iso = (ms: number) => new Date(ms).toISOString();

/** The records of one page read after the key `after` ('' for the first), each with its own key. */
type Page = (storage: Storage, after: string) => Promise<{ key: string; record: Record<string, unknown> }[]>;

/** A stored user as the dataset format writes it (also what account commands check). */
export function userRecord(u: UserRow): Record<string, unknown> {
  return {
    id: u.id,
    email: u.email,
    name: u.name,
    displayName: u.display_name,
    ...(u.handle === null ? {} : { handle: u.handle }),
    timezone: u.timezone,
    plan: u.plan,
    dailyTargetMinutes: u.daily_target_minutes,
    weekStart: u.week_start,
    ...(u.created_at === null ? {} : { createdAt: iso(u.created_at) }),
  };
}

const pages: Record<RecordType, Page> = {
  user: async ({ db }, after) =>
    (await usersAfter(db, after)).map((u) => ({
      key: u.id,
      record: userRecord(u),
    })),
  team: async ({ db }, after) =>
    (await teamsAfter(db, after)).map((t) => ({
      key: t.id,
      record: {
        id: t.id,
        name: t.name,
        members: t.members.map((m) => ({ userId: m.user_id, status: m.status, role: m.role })),
      },
    })),
  portfolio: async ({ db }, after) =>
    (await portfoliosAfter(db, after)).map((p) => ({
      key: p.id,
      record: { id: p.id, name: p.name, ownerId: p.owner_id, teamId: p.team_id },
    })),
  category: async ({ db }, after) =>
    (await categoriesAfter(db, after)).map((c) => ({
      key: c.id,
      record: { id: c.id, name: c.name, emoji: c.emoji },
    })),
  project: async ({ db }, after) =>
    (await projectsAfter(db, after)).map((p) => ({
      key: p.id,
      record: {
        id: p.id,
        name: p.name,
        description: p.description,
        color: p.color,
        teamId: p.team_id,
        portfolioId: p.portfolio_id,
        private: Boolean(p.private),
        confidential: Boolean(p.confidential),
        contributorIds: p.contributor_ids === null ? null : (JSON.parse(p.contributor_ids) as string[]),
        archived: Boolean(p.archived),
        createdBy: p.created_by,
        ...(p.created_at === null ? {} : { createdAt: iso(p.created_at) }),
        ...(p.updated_at === null ? {} : { updatedAt: iso(p.updated_at) }),
      },
    })),
  task: async ({ db }, after) =>
    (await tasksAfter(db, after)).map((t) => ({
      key: t.id,
      record: {
        id: t.id,
        userId: t.user_id,
        date: t.date,
        title: t.title,
        description: t.description,
        projectId: t.project_id,
        visible: Boolean(t.visible),
        // A createdAt the importer derived (the task's first activity) is left out, so a
        // restored task keeps following its first activity.
        ...(t.created_at_auto ? {} : { createdAt: iso(t.created_at) }),
      },
    })),
  activity: async ({ db }, after) =>
    (await activitiesAfter(db, after)).map((a) => ({
      key: a.id,
      record: {
        id: a.id,
        userId: a.user_id,
        start: iso(a.start),
        durationMinutes: a.duration_minutes,
        headline: a.headline,
        description: a.description,
        taskId: a.task_id,
        projectId: a.project_id,
        categoryId: a.category_id,
      },
    })),
  dayComment: async ({ db }, after) => {
    const [userId = '', date = ''] = after.split('\u0000');
    return (await dayCommentsAfter(db, { userId, date })).map((c) => ({
      key: `${c.user_id}\u0000${c.date}`,
      record: { userId: c.user_id, date: c.date, comment: c.comment },
    }));
  },
  apiKey: async ({ db }, after) =>
    (await apiKeysAfter(db, after)).map((k) => ({
      key: k.id,
      record: {
        id: k.id,
        userId: k.user_id,
        name: k.name,
        keyHash: k.key_hash,
        scopes: k.scopes.split(' ').filter(Boolean),
        revoked: Boolean(k.revoked),
      },
    })),
};

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

export type ExportFormat = 'json' | 'ndjson';

export async function exportDataset(storage: Storage, out: Writable, format: ExportFormat): Promise<number> {
  let total = 0;
  if (format === 'json') await write(out, '{\n  "version": 1');
  for (const type of RECORD_TYPES) {
    let after = '';
    let first = true;
    if (format === 'json') await write(out, `,\n  "${ARRAY_OF[type]}": [`);
    for (;;) {
      const rows = await pages[type](storage, after);
      if (rows.length === 0) break;
      let chunk = '';
      for (const { record } of rows) {
        if (format === 'ndjson') chunk += `${JSON.stringify({ type, ...record })}\n`;
        else chunk += `${first ? '\n    ' : ',\n    '}${JSON.stringify(record)}`;
        first = false;
      }
      await write(out, chunk);
      total += rows.length;
      after = rows[rows.length - 1]!.key;
    }
    if (format === 'json') await write(out, first ? ']' : '\n  ]');
  }
  if (format === 'json') await write(out, '\n}\n');
  return total;
}
