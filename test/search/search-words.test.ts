/**
 * PostgreSQL's search lexemes come from two places (migration 0004): the importer computes them
 * in TypeScript (`postgresSearchWords`), every other writer gets them from a trigger running the
 * database's `daybook_search_words`. Both must give the same lexemes for the same row, or a
 * search would find a record or not depending on how it was written.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { importDataset } from '../../src/dataset/import.ts';
import { postgresSearchWords } from '../../src/storage/search.ts';
import { DEFAULT_NOW, DIALECTS, EXAMPLE, type TestDatabase, createTestDatabase } from '../helper.ts';

/** Pieces of text that fold, split or store differently: accents, sigma, scripts, emoji, separators. */
const PIECES = [
  'deploy',
  'Café',
  'MÜLLER',
  'naïve',
  'Σίσυφος',
  'ΟΔΟΣ',
  'straße',
  'ǅemal',
  'ﬁnal',
  'ÅNGSTRÖM',
  'Ⅻ',
  'İstanbul',
  'Привет',
  '東京',
  'नमस्ते',
  'e\u0301',
  'a\u0308\u0301',
  '🚀',
  '👍🏽',
  '1.5',
  'rate-limiter',
  'foo_bar',
  "it's",
  ' ',
  '  ',
  '\t',
  '\n',
  '\u00a0',
  '\u3000',
  '—',
  '“quoted”',
  '*',
  ':',
  '(x)',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '\ufffd',
  'a'.repeat(450),
  'é'.repeat(401),
];
const textArb = fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((parts) => parts.join(''));

/** The scope of migration 0002 over a user id column and a time column. */
const scope = (user: string, time: string) =>
  sql.raw(`left(md5(${user}), 16) || '.' || floor(${time}::numeric / 604800000)::text || '.'`);

if (DIALECTS.includes('postgres')) {
  let database: TestDatabase;
  let dir: string;
  before(async () => {
    database = await createTestDatabase('postgres');
    dir = await mkdtemp(join(tmpdir(), 'daybook-search-words-'));
  });
  after(async () => {
    await database.drop();
    await rm(dir, { recursive: true, force: true });
  });

  /** Rows whose stored lexemes differ from what the database's own function gives for them. */
  const mismatches = async () =>
    (
      await sql<{ id: string }>`
        select id from activities
        where search_words is distinct from daybook_search_words(${scope('user_id', 'start')},
          headline || ' ' || coalesce(description, ''))
        union all
        select id from tasks
        where search_words is distinct from daybook_search_words(${scope('user_id', 'created_at')},
          title || ' ' || coalesce(description, ''))`.execute(database.storage.db)
    ).rows.map((r) => r.id);

  test("the TypeScript lexemes are the database function's, for any text", async () => {
    const db = database.storage.db;
    await fc.assert(
      fc.asyncProperty(
        textArb,
        fc.option(textArb),
        fc.constantFrom('u_a', 'u_ü', 'u.x-1'),
        fc.integer({ min: 0, max: 2 ** 42 }),
        async (title, description, user, time) => {
          const ours = postgresSearchWords(user, time, title, description);
          const { rows } = await sql<{ theirs: string[]; ours: string[] }>`
          select tsvector_to_array(daybook_search_words(${scope('u', 't')}, ${title}::text || ' ' || coalesce(${description}::text, ''))) as theirs,
            tsvector_to_array(array_to_tsvector(string_to_array(${ours}::text, ' '))) as ours
          from (select ${user}::text as u, ${time}::bigint as t) x`.execute(db);
          assert.deepEqual(rows[0]!.ours, rows[0]!.theirs, JSON.stringify({ title, description }));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('imported and re-imported rows hold what the database function gives', async () => {
    await importDataset(database.storage, EXAMPLE, { now: () => DEFAULT_NOW });
    const file = join(dir, 'more.json');
    // Within the dataset's length limits; a cut may leave a lone surrogate, which the import
    // refuses: it is made U+FFFD here.
    const texts = fc.sample(textArb, { numRuns: 60, seed: 7 }).map((t) => t.slice(0, 250).toWellFormed());
    const dataset = (suffix: string) => ({
      version: 1,
      tasks: texts.slice(0, 20).map((title, i) => ({
        id: `k_w${i}`,
        userId: 'u_alice',
        date: '2026-11-20',
        title: title || 'x',
        description: texts[i + 20] || null,
        createdAt: new Date(DEFAULT_NOW - i * 9e8).toISOString(),
      })),
      activities: texts.map((headline, i) => ({
        id: `a_w${i}`,
        userId: i % 2 ? 'u_alice' : 'u_bob',
        start: new Date(DEFAULT_NOW - i * 3.7e8).toISOString(),
        durationMinutes: 5,
        headline: `${headline}${suffix}` || 'x',
        description: i % 3 ? texts[(i + 7) % texts.length] : null,
      })),
    });
    await writeFile(file, JSON.stringify(dataset('')));
    await importDataset(database.storage, file, { now: () => DEFAULT_NOW });
    assert.deepEqual(await mismatches(), []);
    // A re-import that rewrites the texts rewrites the words.
    await writeFile(file, JSON.stringify(dataset(' release notes')));
    await importDataset(database.storage, file, { now: () => DEFAULT_NOW });
    assert.deepEqual(await mismatches(), []);
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from activities where id like 'a_w%' and search_words @@ 'release'::tsquery is false
      and array_to_string(tsvector_to_array(search_words), ' ') like '%.release%'`.execute(database.storage.db);
    assert.equal(rows[0]!.n, 60, 'every rewritten activity is indexed under its new word');
  });

  test('other writers get the words from the trigger; a write that leaves the text alone keeps them', async () => {
    const db = database.storage.db;
    await sql`insert into activities (id, user_id, start, duration_minutes, headline, description, local_date)
      values ('a_direct', 'u_alice', ${DEFAULT_NOW}, 5, 'Quokka sighting', 'near the café', '2026-11-22')`.execute(db);
    await sql`update activities set headline = 'Wombat sighting' where id = 'a_w1'`.execute(db);
    await sql`update tasks set created_at = created_at + 604800000 where id = 'k_w1'`.execute(db);
    assert.deepEqual(await mismatches(), []);
    const words = async () =>
      (
        await sql<{
          w: string;
        }>`select array_to_string(tsvector_to_array(search_words), ' ') as w from activities where id = 'a_direct'`.execute(
          db,
        )
      ).rows[0]!.w;
    assert.match(await words(), /\.quokka\b.*|\.cafe\b/);
    // Words given by the writer are kept, and a change elsewhere in the row leaves them be.
    await sql`update activities set search_words = array_to_tsvector(array['given']) where id = 'a_direct'`.execute(db);
    await sql`update activities set duration_minutes = 9 where id = 'a_direct'`.execute(db);
    assert.equal(await words(), 'given');
    await sql`update activities set description = 'elsewhere' where id = 'a_direct'`.execute(db);
    assert.deepEqual(await mismatches(), []);
  });
}
