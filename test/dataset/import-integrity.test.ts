/**
 * Dataset rules the importer keeps across records and across a backup and its restore: a task
 * changing hands, instants in every RFC 3339 form the schema admits, team member lists, project
 * contributors restored as history, and task creation times derived from activities.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { ImportError, importDataset } from '../../src/dataset/import.ts';
import type { Storage } from '../../src/storage/database.ts';
import { DEFAULT_NOW, EXAMPLE, createTestDatabase, forEachDialect } from '../helper.ts';
import { type DatasetDocument, exportText, tempFiles } from './dataset-files.ts';

const now = () => DEFAULT_NOW;

/** Every row of the tables an import writes, in a stable order. */
async function snapshot(storage: Storage): Promise<string[]> {
  const rows: string[] = [];
  for (const table of ['users', 'team_members', 'projects', 'tasks', 'activities', 'day_rollups']) {
    const result = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(storage.db);
    rows.push(
      ...result.rows.map(
        (row) => `${table} ${JSON.stringify(Object.entries(row).sort(([a], [b]) => a.localeCompare(b)))}`,
      ),
    );
  }
  return rows.sort();
}

forEachDialect('import integrity', (dialect) => {
  let files: ReturnType<typeof tempFiles>;
  before(() => {
    files = tempFiles();
  });
  after(() => files.remove());

  const withDatabase = async (fn: (storage: Storage) => Promise<void>) => {
    const db = await createTestDatabase(dialect);
    try {
      await fn(db.storage);
    } finally {
      await db.drop();
    }
  };
  const ndjson = (name: string, records: object[]) =>
    files.write(name, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);

  test('a task given to another user while its activities stay with the first is refused, naming its line', async () => {
    await withDatabase(async (storage) => {
      await importDataset(storage, EXAMPLE, { now });
      const before = await snapshot(storage);
      const file = ndjson(`moved-${dialect}.ndjson`, [
        { type: 'category', id: 'c_spare', name: 'Spare' },
        { type: 'task', id: 'k_alice_0_0', userId: 'u_bob', date: '2026-11-16', title: 'Taken over' },
      ]);
      await assert.rejects(importDataset(storage, file, { now }), (err: Error) => {
        assert.ok(err instanceof ImportError, String(err));
        assert.match(
          err.message,
          /^line 2 \(task\): userId: task "k_alice_0_0" still has activities of user "u_alice" \(activity "a_alice_0_0_\d+"\)/,
        );
        return true;
      });
      assert.deepEqual(await snapshot(storage), before);
    });
  });

  test('a task and its activities moved together are accepted, and the backup restores', async () => {
    await withDatabase(async (storage) => {
      await importDataset(storage, EXAMPLE, { now });
      const activities = await storage.db
        .selectFrom('activities')
        .selectAll()
        .where('task_id', '=', 'k_alice_0_0')
        .orderBy('id')
        .execute();
      assert.ok(activities.length > 0);
      const file = ndjson(`moved-together-${dialect}.ndjson`, [
        { type: 'task', id: 'k_alice_0_0', userId: 'u_bob', date: '2026-11-16', title: 'Taken over' },
        ...activities.map((a) => ({
          type: 'activity',
          id: a.id,
          userId: 'u_bob',
          start: new Date(Number(a.start)).toISOString(),
          durationMinutes: a.duration_minutes,
          headline: a.headline,
          taskId: 'k_alice_0_0',
        })),
      ]);
      await importDataset(storage, file, { now });
      const backup = await exportText(storage);
      await withDatabase(async (restored) => {
        await importDataset(restored, files.write(`moved-backup-${dialect}.json`, JSON.parse(backup)), { now });
        assert.equal(await exportText(restored), backup);
      });
    });
  });

  test('instants with an hour-only offset, an offset without colon, a space or a leap second are stored as the instants they name', async () => {
    await withDatabase(async (storage) => {
      const doc: DatasetDocument = {
        version: 1,
        users: [{ id: 'u_t', email: 't@example.com', createdAt: '2016-12-31T23:59:60Z' }],
        projects: [
          {
            id: 'p_t',
            name: 'Times',
            createdBy: 'u_t',
            createdAt: '2026-11-16T08:00:00+02',
            updatedAt: '2026-11-16T08:00:00-0330',
          },
        ],
        tasks: [{ id: 'k_t', userId: 'u_t', date: '2026-11-16', title: 'Times', createdAt: '2026-11-16 07:00:00Z' }],
        activities: [
          { id: 'a_t1', userId: 'u_t', start: '2026-11-16T08:00:00+02', headline: 'offset', taskId: 'k_t' },
          { id: 'a_t2', userId: 'u_t', start: '2016-12-31T23:59:60.5Z', headline: 'leap' },
        ],
      };
      await importDataset(storage, files.write(`instants-${dialect}.json`, doc), { now });
      const exported = JSON.parse(await exportText(storage)) as Record<string, Record<string, unknown>[]>;
      assert.equal(exported.users![0]!.createdAt, '2017-01-01T00:00:00.000Z');
      assert.equal(exported.projects![0]!.createdAt, '2026-11-16T06:00:00.000Z');
      assert.equal(exported.projects![0]!.updatedAt, '2026-11-16T11:30:00.000Z');
      assert.equal(exported.tasks![0]!.createdAt, '2026-11-16T07:00:00.000Z');
      assert.deepEqual(
        exported.activities!.map((a) => [a.id, a.start]),
        [
          ['a_t1', '2026-11-16T06:00:00.000Z'],
          ['a_t2', '2017-01-01T00:00:00.000Z'],
        ],
      );
      const leap = await storage.db
        .selectFrom('activities')
        .select('local_date')
        .where('id', '=', 'a_t2')
        .executeTakeFirstOrThrow();
      assert.equal(leap.local_date, '2017-01-01');
    });
  });

  test('a member listed twice in one team is refused, naming the second entry', async () => {
    await withDatabase(async (storage) => {
      await importDataset(storage, EXAMPLE, { now });
      const before = await snapshot(storage);
      const doc: DatasetDocument = {
        version: 1,
        teams: [
          {
            id: 't_twice',
            name: 'Twice',
            members: [
              { userId: 'u_bob', role: 'admin' },
              { userId: 'u_bob', role: 'member' },
            ],
          },
        ],
      };
      await assert.rejects(importDataset(storage, files.write(`twice-${dialect}.json`, doc), { now }), (err: Error) => {
        assert.ok(err instanceof ImportError, String(err));
        assert.equal(err.message, 'teams[0]: members[1].userId: "u_bob" is listed twice');
        return true;
      });
      assert.deepEqual(await snapshot(storage), before);
    });
  });

  test('contributorIds are restored as given, also on a personal project (dataset rule 6)', async () => {
    await withDatabase(async (storage) => {
      await importDataset(storage, EXAMPLE, { now });
      const doc: DatasetDocument = {
        version: 1,
        projects: [
          { id: 'p_personal', name: 'Mine', createdBy: 'u_bob', contributorIds: [] },
          { id: 'p_personal_2', name: 'Mine too', createdBy: 'u_bob', contributorIds: ['u_bob', 'u_alice'] },
        ],
      };
      await importDataset(storage, files.write(`contributors-${dialect}.json`, doc), { now });
      const exported = JSON.parse(await exportText(storage)) as {
        projects: { id: string; contributorIds: string[] | null }[];
      };
      const byId = new Map(exported.projects.map((p) => [p.id, p.contributorIds]));
      assert.deepEqual(byId.get('p_personal'), []);
      assert.deepEqual(byId.get('p_personal_2'), ['u_bob', 'u_alice']);
      await assert.rejects(
        importDataset(
          storage,
          files.write(`contributors-bad-${dialect}.json`, {
            version: 1,
            projects: [{ id: 'p_x', name: 'X', createdBy: 'u_bob', contributorIds: ['u_nobody'] }],
          }),
          { now },
        ),
        /projects\[0\]: contributorIds\[0\]: no user with id "u_nobody"/,
      );
    });
  });

  test('a restored task keeps taking its creation time from its first activity', async () => {
    const doc: DatasetDocument = {
      version: 1,
      users: [{ id: 'u_c', email: 'c@example.com' }],
      tasks: [{ id: 'k_c', userId: 'u_c', date: '2026-11-16', title: 'Derived' }],
      activities: [{ id: 'a_c10', userId: 'u_c', start: '2026-11-16T10:00:00Z', headline: 'ten', taskId: 'k_c' }],
    };
    const earlier: DatasetDocument = {
      version: 1,
      activities: [{ id: 'a_c08', userId: 'u_c', start: '2026-11-16T08:00:00Z', headline: 'eight', taskId: 'k_c' }],
    };
    const createdAt = async (storage: Storage) =>
      Number(
        (await storage.db.selectFrom('tasks').select('created_at').where('id', '=', 'k_c').executeTakeFirstOrThrow())
          .created_at,
      );
    await withDatabase(async (original) => {
      await importDataset(original, files.write(`derived-${dialect}.json`, doc), { now });
      const backup = files.write(`derived-backup-${dialect}.json`, JSON.parse(await exportText(original)));
      await withDatabase(async (restored) => {
        await importDataset(restored, backup, { now });
        assert.equal(await createdAt(restored), Date.parse('2026-11-16T10:00:00Z'));
        const later = files.write(`derived-earlier-${dialect}.json`, earlier);
        await importDataset(original, later, { now });
        await importDataset(restored, later, { now });
        assert.equal(await createdAt(original), Date.parse('2026-11-16T08:00:00Z'));
        assert.equal(await createdAt(restored), Date.parse('2026-11-16T08:00:00Z'));
      });
    });
  });
});
