/**
 * Words right after an emoji or a newer symbol are found on both databases (docs/api.md, "POST /search").
 *
 * - Variation selectors (U+FE00–FE0F, U+E0100–E01EF) separate words (src/lib/search-text.ts):
 *   "⚠️Hotfix" holds the word "Hotfix", where the selector used to make it "\uFE0Fhotfix".
 * - SQLite's tokenizer knows the Unicode of its day and counts every character it does not know
 *   as a letter: characters assigned since (most emoji, such as 🥳 and 🤖, newer currency
 *   signs such as ₽) made words with their neighbours, so "🥳Launch" was one token and a
 *   search for "launch" never saw it. The tokenizer is now given, as its `separators`, every
 *   character the search rules call a separator and it does not: asked of the tokenizer itself
 *   (a scratch index of one probe per character), so the list fits the SQLite in use.
 *
 * SQLite: the full-text index is built again with that tokenizer (entries cannot be retokenized
 * in place). PostgreSQL: `daybook_search_words` is made again with the new separator class, and
 * the rows whose text holds a variation selector get their words again.
 */
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import {
  VARIATION_SELECTOR_RANGES,
  postgresSeparatorClass,
  postgresVariationSelectorClass,
  separatorRanges,
} from '../../lib/search-text.ts';
import {
  SOURCES,
  TOKENIZER as PREVIOUS_TOKENIZER,
  createSearchIndex,
  createSearchWordsFunction,
  scopeOf,
} from './0002-search.ts';

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema of their day
type Db = Kysely<any>;

/** Separators as the tokenizer learns them, the same for every database of this process. */
let learned: string | undefined;

/**
 * The separator characters of src/lib/search-text.ts that the tokenizer of migration 0002
 * keeps inside words. Each is probed as "q<c>z": where the tokenizer splits, "q" is a token.
 */
async function separatorsTheTokenizerMisses(db: Db): Promise<string> {
  if (learned !== undefined) return learned;
  const codes = separatorRanges()
    .flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i))
    .filter((c) => c > 0x7f);
  await sql
    .raw(`create virtual table temp.daybook_tokenizer_probe using fts5(x, tokenize="${PREVIOUS_TOKENIZER}")`)
    .execute(db);
  await sql
    .raw(
      'create virtual table temp.daybook_tokenizer_probe_terms using fts5vocab(temp, daybook_tokenizer_probe, instance)',
    )
    .execute(db);
  await sql`insert into temp.daybook_tokenizer_probe (rowid, x)
    select value, 'q' || char(value) || 'z' from json_each(${JSON.stringify(codes)})`.execute(db);
  const { rows } = await sql<{
    doc: number;
  }>`select doc from temp.daybook_tokenizer_probe_terms where term = 'q'`.execute(db);
  await sql.raw('drop table temp.daybook_tokenizer_probe_terms').execute(db);
  await sql.raw('drop table temp.daybook_tokenizer_probe').execute(db);
  const split = new Set(rows.map((r) => Number(r.doc)));
  learned = codes
    .filter((c) => !split.has(c))
    .map((c) => String.fromCodePoint(c))
    .join('');
  return learned;
}

async function rebuildSqliteIndex(db: Db, tokenizer: string): Promise<void> {
  // The triggers name the table, not its definition: they write to the new one.
  await sql`drop table search_index`.execute(db);
  await createSearchIndex(db, tokenizer);
  for (const s of SOURCES) {
    // In document order: FTS5 appends to its newest segment instead of merging at random.
    await sql
      .raw(`insert into search_index (rowid, scope, title, description)
        select d.doc, ${scopeOf('r', s.scopeLetter, s.time)}, r.${s.title}, r.description
        from ${s.table} r join search_documents d on d.source = '${s.source}' and d.record_id = r.id
        order by d.doc`)
      .execute(db);
  }
  await sql`insert into search_index (search_index) values ('optimize')`.execute(db);
}

async function rewordPostgresRowsWithSelectors(db: Db): Promise<void> {
  const selector = postgresVariationSelectorClass();
  for (const s of SOURCES) {
    const scope = `left(md5(user_id), 16) || '.' || floor(${s.time}::numeric / 604800000)::text || '.'`;
    await sql
      .raw(`update ${s.table}
        set search_words = daybook_search_words(${scope}, ${s.title} || ' ' || coalesce(description, ''))
        where ${s.title} ~ '${selector}' or description ~ '${selector}'`)
      .execute(db);
  }
}

export async function up(db: Db): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await createSearchWordsFunction(db, postgresSeparatorClass());
    await rewordPostgresRowsWithSelectors(db);
  } else {
    // Quotes and ASCII never need listing (the tokenizer splits at them already).
    await rebuildSqliteIndex(db, `${PREVIOUS_TOKENIZER} separators '${await separatorsTheTokenizerMisses(db)}'`);
  }
}

export async function down(db: Db): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // Variation selectors back to word characters: take them out of the separator class.
    const without = postgresSeparatorClass(VARIATION_SELECTOR_RANGES);
    await createSearchWordsFunction(db, without);
    await rewordPostgresRowsWithSelectors(db);
  } else {
    await rebuildSqliteIndex(db, PREVIOUS_TOKENIZER);
  }
}
