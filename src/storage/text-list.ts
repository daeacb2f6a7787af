/**
 * A list of strings as one JSON parameter, read back by the database as rows: one placeholder
 * whatever the list's length, so a long list can never exceed the database's limit on bound
 * parameters (SQLite's 32,766, PostgreSQL's 65,535), and the statement text stays the same.
 */
import { type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';

/** The values as a table `alias` of one column, `value`: to join to (`alias.value = t.id`). */
function textRows<DB>(db: Kysely<DB>, values: Iterable<string>, alias: string): RawBuilder<{ value: string }> {
  return jsonTextRows(db, jsonList(values), alias);
}

/**
 * The list as textRows passes it: JSON, each value well-formed, since PostgreSQL's JSON parser
 * refuses the escape of a lone surrogate (`\ud800`), which its text columns could not hold anyway
 * (they store U+FFFD).
 */
export function jsonList(values: Iterable<string>): string {
  return JSON.stringify(Array.from(values, (value) => value.toWellFormed()));
}

/** textRows of a list already made by jsonList (the parameter of a fixed query). */
export function jsonTextRows<DB>(db: Kysely<DB>, list: unknown, alias: string): RawBuilder<{ value: string }> {
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? sql`json_array_elements_text(${list}::json) as ${sql.raw(alias)}(value)`
    : sql`json_each(${list}) as ${sql.raw(alias)}`;
}

/** The values as a subquery: `column in (textList(…))`. */
export function textList<DB>(db: Kysely<DB>, values: Iterable<string>): RawBuilder<string> {
  return sql<string>`(select value from ${textRows(db, values, 'listed')})`;
}
