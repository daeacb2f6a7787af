/**
 * A list of strings as one JSON parameter, read back as a subquery: `column in (textList(…))`.
 * One placeholder whatever the list's length, so a long list from a request can never exceed
 * the database's limit on bound parameters (SQLite's 32,766, PostgreSQL's 65,535).
 */
import { type Kysely, PostgresAdapter, type RawBuilder, sql } from 'kysely';

export function textList<DB>(db: Kysely<DB>, values: Iterable<string>): RawBuilder<string> {
  const list = JSON.stringify([...values]);
  return db.getExecutor().adapter instanceof PostgresAdapter
    ? sql<string>`(select json_array_elements_text(${list}::json))`
    : sql<string>`(select value from json_each(${list}))`;
}
