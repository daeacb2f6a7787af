/** Import and export of the dataset format (dataset README rules 1–7) on both databases. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { ImportError, importDataset } from '../../src/dataset/import.ts';
import { schemaPath } from '../../src/dataset/schema.ts';
import { sumMinutes } from '../../src/storage/aggregates.ts';
import type { Storage } from '../../src/storage/database.ts';
import {
  DEFAULT_NOW,
  DIALECTS,
  EXAMPLE,
  KEYS,
  call,
  createTestApp,
  createTestDatabase,
  forEachDialect,
} from '../helper.ts';
import {
  type DatasetDocument,
  exampleDocument,
  exportText,
  schemaValidator,
  tempFiles,
  toNdjsonLines,
} from './dataset-files.ts';

const now = () => DEFAULT_NOW;
const TABLES = [
  'users',
  'teams',
  'team_members',
  'portfolios',
  'categories',
  'projects',
  'tasks',
  'activities',
  'day_comments',
  'api_keys',
  'summaries',
  'changed_days',
] as const;

/** Every row of every table, in a stable order: "the database exactly as it is". */
async function snapshot(storage: Storage): Promise<Record<string, string[]>> {
  const tables: Record<string, string[]> = {};
  for (const table of TABLES) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(storage.db);
    tables[table] = rows
      .map((row) => JSON.stringify(Object.entries(row).sort(([a], [b]) => a.localeCompare(b))))
      .sort();
  }
  return tables;
}

async function activityTotals(storage: Storage) {
  return storage.db
    .selectFrom('activities')
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.sum<number>('duration_minutes').as('minutes')])
    .executeTakeFirstOrThrow()
    .then((r) => ({ count: Number(r.count), minutes: Number(r.minutes) }));
}

/** Valid changes to the example world that a bad last record must take down with it. */
function changes(): DatasetDocument {
  const alice = exampleDocument().users as Record<string, unknown>[];
  return {
    version: 1,
    users: [{ ...alice[0], name: 'Alice Renamed' }],
    tasks: [{ id: 'k_alice_new', userId: 'u_alice', date: '2026-11-19', title: 'New task', projectId: 'p_api' }],
    activities: [
      {
        id: 'a_alice_new',
        userId: 'u_alice',
        start: '2026-11-19T08:00:00Z',
        durationMinutes: 30,
        headline: 'New work',
        taskId: 'k_alice_new',
      },
    ],
  };
}

interface BadRecord {
  name: string;
  type: 'user' | 'activity';
  record: Record<string, unknown>;
  field: string;
}

const BAD_RECORDS: BadRecord[] = [
  {
    name: 'a field outside the schema',
    type: 'activity',
    record: {
      id: 'a_bad',
      userId: 'u_alice',
      start: '2026-11-19T09:00:00Z',
      durationMinutes: 90,
      headline: 'Too long',
    },
    field: 'durationMinutes',
  },
  {
    name: 'a dangling reference',
    type: 'activity',
    record: { id: 'a_bad', userId: 'u_alice', start: '2026-11-19T09:00:00Z', headline: 'Lost', taskId: 'k_missing' },
    field: 'taskId',
  },
  {
    name: 'an activity whose task belongs to another user',
    type: 'activity',
    record: {
      id: 'a_bad',
      userId: 'u_alice',
      start: '2026-11-19T09:00:00Z',
      headline: 'Not mine',
      taskId: 'k_bob_0_0',
    },
    field: 'taskId',
  },
  {
    name: 'an invalid timezone',
    type: 'user',
    record: { id: 'u_erin', email: 'erin@example.com', timezone: 'Mars/Olympus_Mons' },
    field: 'timezone',
  },
  {
    name: 'a duplicate handle',
    type: 'user',
    record: { id: 'u_erin', email: 'erin@example.com', handle: 'bob' },
    field: 'handle',
  },
  {
    // PostgreSQL cannot store U+0000: refused on both databases, naming the field.
    name: "the NUL character in an activity's headline",
    type: 'activity',
    record: { id: 'a_bad', userId: 'u_alice', start: '2026-11-19T09:00:00Z', headline: 'Deploy\u0000 notes' },
    field: 'headline: must not contain the NUL character (\\u0000)',
  },
  {
    name: "the NUL character in a user's display name",
    type: 'user',
    record: { id: 'u_erin', email: 'erin@example.com', name: 'Erin', displayName: 'Erin\u0000' },
    field: 'displayName: must not contain the NUL character',
  },
  {
    // UTF-8 has no form for it: it could only be stored changed (U+FFFD), so it is refused.
    name: "a lone surrogate in an activity's description",
    type: 'activity',
    record: {
      id: 'a_bad',
      userId: 'u_alice',
      start: '2026-11-19T09:00:00Z',
      headline: 'Fine',
      description: 'half \udc00 pair',
    },
    field: 'description: must not contain a lone surrogate',
  },
  {
    name: 'a duplicate e-mail address',
    type: 'user',
    record: { id: 'u_erin', email: 'bob@example.com' },
    field: 'email',
  },
];

forEachDialect('import', (dialect) => {
  let files: ReturnType<typeof tempFiles>;
  before(() => {
    files = tempFiles();
  });
  after(() => files.remove());

  test('a JSON document tells its number of records before they are applied; an NDJSON file does not', async () => {
    const db = await createTestDatabase(dialect);
    try {
      const seen: string[] = [];
      const counts = await importDataset(db.storage, EXAMPLE, {
        now,
        onTotal: (n) => seen.push(`total ${n}`),
        onProgress: (n) => seen.push(`progress ${n}`),
      });
      const records = Object.values(counts).reduce((a, b) => a + b, 0);
      assert.equal(seen[0], `total ${records}`);
      assert.equal(seen.filter((s) => s.startsWith('total')).length, 1);
      const ndjson = files.write(
        `total-${dialect}.ndjson`,
        `${JSON.stringify({ type: 'category', id: 'c_x', name: 'X' })}\n`,
      );
      let told = false;
      await importDataset(db.storage, ndjson, {
        now,
        onTotal: () => {
          told = true;
        },
      });
      assert.equal(told, false);
    } finally {
      await db.drop();
    }
  });

  test('example.json imports every record, and its keys work over HTTP', async () => {
    const t = await createTestApp(dialect, { dataset: null });
    try {
      const counts = await importDataset(t.storage, EXAMPLE, { now });
      assert.deepEqual(counts, {
        user: 4,
        team: 2,
        portfolio: 2,
        category: 3,
        project: 6,
        task: 18,
        activity: 90,
        dayComment: 4,
        apiKey: 5,
      });
      assert.deepEqual(await activityTotals(t.storage), { count: 90, minutes: 450 });
      const res = await call(t.app, 'GET', '/user', { key: KEYS.aliceAll });
      assert.deepEqual([res.status, res.json.email], [200, 'alice@example.com']);
    } finally {
      await t.close();
    }
  });

  test('importing the same file twice changes nothing', async () => {
    const db = await createTestDatabase(dialect);
    try {
      await importDataset(db.storage, EXAMPLE, { now });
      const json = await exportText(db.storage, 'json');
      const ndjson = await exportText(db.storage, 'ndjson');
      const totals = await activityTotals(db.storage);
      const tables = await snapshot(db.storage);
      await importDataset(db.storage, EXAMPLE, { now });
      assert.equal(await exportText(db.storage, 'json'), json);
      assert.equal(await exportText(db.storage, 'ndjson'), ndjson);
      assert.deepEqual(await activityTotals(db.storage), totals);
      assert.deepEqual(await snapshot(db.storage), tables);
    } finally {
      await db.drop();
    }
  });

  for (const bad of BAD_RECORDS) {
    test(`a JSON file whose last record has ${bad.name} changes nothing and names the record`, async () => {
      const db = await createTestDatabase(dialect);
      try {
        await importDataset(db.storage, EXAMPLE, { now });
        const before = await snapshot(db.storage);
        const doc = changes();
        const array = bad.type === 'user' ? 'users' : 'activities';
        (doc[array] as unknown[]).push(bad.record);
        const index = (doc[array] as unknown[]).length - 1;
        const file = files.write(`bad-${dialect}.json`, doc);
        await assert.rejects(importDataset(db.storage, file, { now }), (err: Error) => {
          assert.ok(err instanceof ImportError, String(err));
          assert.ok(err.message.includes(`${array}[${index}]`), err.message);
          assert.ok(err.message.includes(bad.field), err.message);
          return true;
        });
        assert.deepEqual(await snapshot(db.storage), before);
      } finally {
        await db.drop();
      }
    });

    test(`an NDJSON file whose last line has ${bad.name} changes nothing and names the line`, async () => {
      const db = await createTestDatabase(dialect);
      try {
        await importDataset(db.storage, EXAMPLE, { now });
        const before = await snapshot(db.storage);
        // Valid changes of several types come first, so they are written before the bad line.
        const lines = [...toNdjsonLines(changes()), JSON.stringify({ type: bad.type, ...bad.record })];
        const file = files.write(`bad-${dialect}.ndjson`, `${lines.join('\n')}\n`);
        await assert.rejects(importDataset(db.storage, file, { now }), (err: Error) => {
          assert.ok(err instanceof ImportError, String(err));
          assert.match(err.message, new RegExp(`^line ${lines.length}\\b`));
          assert.ok(err.message.includes(bad.field), err.message);
          return true;
        });
        assert.deepEqual(await snapshot(db.storage), before);
      } finally {
        await db.drop();
      }
    });
  }

  test('the valid changes used above do import, so the rejections come from the bad record', async () => {
    const db = await createTestDatabase(dialect);
    try {
      await importDataset(db.storage, EXAMPLE, { now });
      await importDataset(db.storage, files.write(`good-${dialect}.ndjson`, toNdjsonLines(changes()).join('\n')), {
        now,
      });
      const alice = await db.storage.db
        .selectFrom('users')
        .select('name')
        .where('id', '=', 'u_alice')
        .executeTakeFirstOrThrow();
      assert.equal(alice.name, 'Alice Renamed');
      assert.deepEqual(await activityTotals(db.storage), { count: 91, minutes: 480 });
    } finally {
      await db.drop();
    }
  });

  test('an e-mail address given up by one user can be taken by a later record of the same file', async () => {
    const db = await createTestDatabase(dialect);
    try {
      await importDataset(db.storage, EXAMPLE, { now });
      const doc = {
        version: 1,
        users: [
          {
            id: 'u_bob',
            email: 'robert@example.com',
            displayName: 'Bob Stone',
            handle: 'bob',
            timezone: 'America/New_York',
          },
          { id: 'u_erin', email: 'bob@example.com' },
        ],
      };
      await importDataset(db.storage, files.write(`email-move-${dialect}.json`, doc), { now });
      const users = await db.storage.db
        .selectFrom('users')
        .select(['id', 'email'])
        .where('id', 'in', ['u_bob', 'u_erin'])
        .orderBy('id')
        .execute();
      assert.deepEqual(users, [
        { id: 'u_bob', email: 'robert@example.com' },
        { id: 'u_erin', email: 'bob@example.com' },
      ]);
    } finally {
      await db.drop();
    }
  });

  test('an NDJSON line may refer only to earlier lines or stored records', async () => {
    const db = await createTestDatabase(dialect);
    try {
      const lines = [
        JSON.stringify({ type: 'user', id: 'u_erin', email: 'erin@example.com' }),
        JSON.stringify({
          type: 'activity',
          id: 'a_1',
          userId: 'u_erin',
          start: '2026-11-19T08:00:00Z',
          headline: 'x',
          taskId: 'k_1',
        }),
        JSON.stringify({ type: 'task', id: 'k_1', userId: 'u_erin', date: '2026-11-19', title: 'Later' }),
      ];
      await assert.rejects(
        importDataset(db.storage, files.write(`order-${dialect}.ndjson`, lines.join('\n')), { now }),
        /^ImportError: line 2 \(activity\): taskId: no task with id "k_1"$/,
      );
      assert.deepEqual(await db.storage.db.selectFrom('users').select('id').execute(), []);
    } finally {
      await db.drop();
    }
  });

  test('a record repeated in one file is stored once, as its last version', async () => {
    const db = await createTestDatabase(dialect);
    try {
      const lines = toNdjsonLines(exampleDocument());
      const first = lines.findIndex((line) => line.includes('"type":"activity"'));
      const repeated = { ...JSON.parse(lines[first]!), headline: 'Second version', durationMinutes: 25 };
      lines.splice(first + 1, 0, JSON.stringify(repeated));
      await importDataset(db.storage, files.write(`repeat-${dialect}.ndjson`, [...lines, ...lines].join('\n')), {
        now,
      });
      assert.deepEqual(await activityTotals(db.storage), { count: 90, minutes: 470 });
      const stored = await db.storage.db
        .selectFrom('activities')
        .select('headline')
        .where('id', '=', repeated.id)
        .executeTakeFirstOrThrow();
      assert.equal(stored.headline, 'Second version');
    } finally {
      await db.drop();
    }
  });

  test('an NDJSON import of the same records equals the JSON import', async () => {
    const fromJson = await createTestDatabase(dialect);
    const fromNdjson = await createTestDatabase(dialect);
    try {
      await importDataset(fromJson.storage, EXAMPLE, { now });
      const ndjsonFile = files.write(`example-${dialect}.ndjson`, `${toNdjsonLines(exampleDocument()).join('\n')}\n`);
      await importDataset(fromNdjson.storage, ndjsonFile, { now });
      assert.equal(await exportText(fromNdjson.storage, 'json'), await exportText(fromJson.storage, 'json'));
      assert.deepEqual(await snapshot(fromNdjson.storage), await snapshot(fromJson.storage));
    } finally {
      await fromJson.drop();
      await fromNdjson.drop();
    }
  });

  for (const format of ['json', 'ndjson'] as const) {
    test(`export → import into an empty database → export gives the same ${format} bytes`, async () => {
      const first = await createTestDatabase(dialect);
      const second = await createTestDatabase(dialect);
      try {
        await importDataset(first.storage, EXAMPLE, { now });
        const exported = await exportText(first.storage, format);
        await importDataset(second.storage, files.write(`roundtrip-${dialect}.${format}`, exported), { now });
        assert.equal(await exportText(second.storage, format), exported);
      } finally {
        await first.drop();
        await second.drop();
      }
    });
  }

  test("a task without createdAt takes its first activity's start, else local noon of its date", async () => {
    const db = await createTestDatabase(dialect);
    try {
      const doc: DatasetDocument = {
        version: 1,
        users: [{ id: 'u_ny', email: 'ny@example.com', timezone: 'America/New_York' }],
        tasks: [
          { id: 'k_worked', userId: 'u_ny', date: '2026-11-16', title: 'Worked on' },
          { id: 'k_planned', userId: 'u_ny', date: '2026-11-16', title: 'Only planned' },
          { id: 'k_given', userId: 'u_ny', date: '2026-11-16', title: 'Given', createdAt: '2026-11-16T08:00:00-05:00' },
        ],
        activities: [
          { id: 'a_2', userId: 'u_ny', start: '2026-11-16T14:30:00Z', headline: 'second', taskId: 'k_worked' },
          { id: 'a_1', userId: 'u_ny', start: '2026-11-16T13:05:00Z', headline: 'first', taskId: 'k_worked' },
          { id: 'a_3', userId: 'u_ny', start: '2026-11-16T12:00:00Z', headline: 'early', taskId: 'k_given' },
        ],
      };
      await importDataset(db.storage, files.write(`created-${dialect}.json`, doc), { now });
      const createdAt = async () =>
        Object.fromEntries(
          (await db.storage.db.selectFrom('tasks').select(['id', 'created_at']).orderBy('id').execute()).map((t) => [
            t.id,
            new Date(Number(t.created_at)).toISOString(),
          ]),
        );
      // The export gives only the createdAt the file gave: a restored task keeps following its
      // first activity.
      const exported = (JSON.parse(await exportText(db.storage)) as { tasks: { id: string; createdAt?: string }[] })
        .tasks;
      assert.deepEqual(Object.fromEntries(exported.map((t) => [t.id, t.createdAt ?? null])), {
        k_worked: null,
        k_planned: null,
        k_given: '2026-11-16T13:00:00.000Z',
      });
      assert.deepEqual(await createdAt(), {
        k_worked: '2026-11-16T13:05:00.000Z',
        k_planned: '2026-11-16T17:00:00.000Z',
        k_given: '2026-11-16T13:00:00.000Z',
      });

      // A later file with an earlier activity moves the default; the task's first activity decides.
      const later = {
        version: 1,
        activities: [
          { id: 'a_0', userId: 'u_ny', start: '2026-11-16T11:15:00+01:00', headline: 'earliest', taskId: 'k_worked' },
        ],
      };
      await importDataset(db.storage, files.write(`created-later-${dialect}.json`, later), { now });
      assert.equal((await createdAt()).k_worked, '2026-11-16T10:15:00.000Z');
    } finally {
      await db.drop();
    }
  });

  test('re-importing a user with another timezone moves its activities to their new local days', async () => {
    const db = await createTestDatabase(dialect);
    try {
      const doc = (timezone: string): DatasetDocument => ({
        version: 1,
        users: [{ id: 'u_tz', email: 'tz@example.com', timezone }],
        activities: [
          { id: 'a_late', userId: 'u_tz', start: '2026-11-16T23:30:00Z', durationMinutes: 20, headline: 'late' },
          { id: 'a_noon', userId: 'u_tz', start: '2026-11-16T12:00:00Z', durationMinutes: 10, headline: 'noon' },
        ],
      });
      const minutesByDay = async () => {
        const groups = await sumMinutes(db.storage.db, {
          userIds: ['u_tz'],
          from: Date.parse('2026-11-15T00:00:00Z'),
          to: Date.parse('2026-11-19T00:00:00Z'),
        });
        return Object.fromEntries(groups.map((g) => [g.date, g.minutes]).sort());
      };
      await importDataset(db.storage, files.write(`tz-utc-${dialect}.json`, doc('UTC')), { now });
      assert.deepEqual(await minutesByDay(), { '2026-11-16': 30 });

      await importDataset(db.storage, files.write(`tz-berlin-${dialect}.json`, doc('Europe/Berlin')), { now });
      assert.deepEqual(await minutesByDay(), { '2026-11-16': 10, '2026-11-17': 20 });
      // Both local days changed, so summaries covering either are rebuilt.
      const changed = await db.storage.db
        .selectFrom('changed_days')
        .select('local_date')
        .where('user_id', '=', 'u_tz')
        .execute();
      assert.deepEqual(changed.map((d) => d.local_date).sort(), ['2026-11-16', '2026-11-17']);

      await importDataset(db.storage, files.write(`tz-la-${dialect}.json`, doc('America/Los_Angeles')), { now });
      assert.deepEqual(await minutesByDay(), { '2026-11-16': 30 });
    } finally {
      await db.drop();
    }
  });

  test("an export validates against the product's dataset schema", async () => {
    const db = await createTestDatabase(dialect);
    try {
      await importDataset(db.storage, EXAMPLE, { now });
      const validator = schemaValidator(schemaPath);
      validator.document(JSON.parse(await exportText(db.storage, 'json')));
      for (const line of (await exportText(db.storage, 'ndjson')).trimEnd().split('\n')) validator.line(line);
    } finally {
      await db.drop();
    }
  });
});

test('SQLite and PostgreSQL export the example dataset byte for byte alike', {
  skip: DIALECTS.length < 2,
}, async () => {
  const exports: string[] = [];
  for (const dialect of ['sqlite', 'postgres'] as const) {
    const db = await createTestDatabase(dialect);
    try {
      await importDataset(db.storage, EXAMPLE, { now });
      exports.push(await exportText(db.storage, 'ndjson'));
    } finally {
      await db.drop();
    }
  }
  assert.equal(exports[0], exports[1]);
});

test('schema errors say in words what the field needs', async () => {
  const db = await createTestDatabase('sqlite');
  const files = tempFiles();
  try {
    const cases: [object, string][] = [
      [{ version: 2 }, 'version: must be 1'],
      [
        { version: 1, users: [{ id: 'u x', email: 'x@example.com' }] },
        'users[0].id: may hold only letters A-Z and a-z, digits and _ . : -',
      ],
      [
        { version: 1, users: [{ id: 'u_x', email: 'x@localhost' }] },
        'users[0].email: must be an e-mail address with a dotted domain, such as ada@example.com',
      ],
      [
        { version: 1, users: [{ id: 'u_x', email: 'x@example.com', createdAt: 'yesterday' }] },
        'users[0].createdAt: must be an ISO 8601 instant with Z or an offset, such as 2026-11-20T09:00:00Z',
      ],
    ];
    for (const [doc, message] of cases) {
      await assert.rejects(importDataset(db.storage, files.write('bad.json', doc), { now }), (err: Error) => {
        assert.ok(err instanceof ImportError);
        assert.equal(err.message, message);
        return true;
      });
    }
  } finally {
    files.remove();
    await db.drop();
  }
});
