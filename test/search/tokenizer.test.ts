/**
 * SQLite's full-text index must split text where the search rules of src/lib/search-text.ts
 * do, for every character: where it splits less, a word glued to a symbol is never a candidate
 * (docs/api.md, "POST /search"); where it splits more, a word is cut short. Each code point is probed as
 * "q<c>z" in an index with the search index's own tokenizer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { wordsOf } from '../../src/lib/search-text.ts';
import { DIALECTS, createTestDatabase } from '../helper.ts';

test('the search index splits at exactly the separators of the search rules, for every code point', {
  skip: !DIALECTS.includes('sqlite'),
}, async () => {
  const database = await createTestDatabase('sqlite');
  try {
    const db = database.storage.db;
    const {
      rows: [index],
    } = await sql<{ sql: string }>`select sql from sqlite_master where name = 'search_index'`.execute(db);
    const tokenize = /tokenize\s*=\s*("[^"]*")/.exec(index!.sql)![1]!;
    await sql.raw(`create virtual table temp.probe using fts5(x, tokenize=${tokenize})`).execute(db);
    await sql.raw('create virtual table temp.probe_terms using fts5vocab(temp, probe, instance)').execute(db);
    const codes: number[] = [];
    for (let c = 1; c <= 0x10ffff; c++) if (c < 0xd800 || c > 0xdfff) codes.push(c);
    for (let i = 0; i < codes.length; i += 100_000) {
      await sql`insert into temp.probe (rowid, x) select value, 'q' || char(value) || 'z' from json_each(${JSON.stringify(codes.slice(i, i + 100_000))})`.execute(
        db,
      );
    }
    const split = new Set(
      (await sql<{ doc: number }>`select doc from temp.probe_terms where term = 'q'`.execute(db)).rows.map((r) =>
        Number(r.doc),
      ),
    );
    const differ: string[] = [];
    for (const c of codes) {
      const words = wordsOf(`q${String.fromCodePoint(c)}z`);
      const rules = words.length !== 1 || words[0]!.end === 1;
      if (rules !== split.has(c))
        differ.push(`U+${c.toString(16).toUpperCase().padStart(4, '0')} ${rules ? 'separates' : 'joins'} in the rules`);
    }
    assert.deepEqual(differ.slice(0, 20), [], `${differ.length} characters differ`);
  } finally {
    await database.drop();
  }
});
