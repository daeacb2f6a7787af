/**
 * A list of strings as one JSON parameter, read back as a subquery: `column in (textList(…))`.
 * One placeholder whatever the list's length, so a long list from a request can never exceed
 * the database's limit on bound parameters (SQLite's 32,766, PostgreSQL's 65,535).
 */
import { type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';

export function textList<DB>(db: Kysely<DB>, values: Iterable<string>): RawBuilder<string> {
  // Well-formed: PostgreSQL's JSON parser refuses the escape of a lone surrogate (`\ud800`),
  // which its text columns could not hold anyway (they store U+FFFD).
  const list = JSON.stringify(Array.from(values, (value) => value.toWellFormed()));
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? sql<string>`(select json_array_elements_text(${list}::json))`
    : sql<string>`(select value from json_each(${list}))`;
}
