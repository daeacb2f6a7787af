/**
 * Queries whose text depends only on their shape, never on their values: built with Kysely and
 * compiled once per database and shape, then run with each call's values. Kysely otherwise
 * builds and compiles a query on every call: on the mixed benchmark that was ~14 % of the
 * server's thread on SQLite (docs/performance.md), for statements the database had prepared
 * long ago. The same text each time also makes the prepared-statement lookup cheap.
 *
 * `build(db, values, shape)` gets a placeholder for each value and must hand each one to the
 * query unchanged, as a bound parameter (no arithmetic on it, no serialising, no `sql.lit`);
 * parameters of its own stay as first compiled. A value that does not come through as a
 * parameter is an error at the first compile, which every caller's tests reach.
 */
import { type Compilable, CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** Placeholders hold U+0000, which no stored or requested text may (lib/text-checks.ts). */
const PLACEHOLDER = '\u0000daybook-value:';

interface Compiled {
  sql: string;
  /** Per parameter: the index of the call's value, or a constant of the build. */
  slots: (number | { constant: unknown })[];
}

export interface FixedQuery<Row> {
  /** The statement for `values` without running it. */
  compile(db: Db, shape: string, values: readonly unknown[]): CompiledQuery<Row>;
  /** Runs the statement for `values` and returns its rows. */
  execute(db: Db, shape: string, values: readonly unknown[]): Promise<Row[]>;
}

export function fixedQuery<Row>(
  build: (db: Db, values: readonly unknown[], shape: string) => Compilable<Row>,
): FixedQuery<Row> {
  // Per dialect (the adapter is shared by a database's connections and transactions), then shape.
  const compiledBy = new WeakMap<object, Map<string, Compiled>>();

  function compiledFor(db: Db, shape: string, count: number): Compiled {
    const adapter = db.getExecutor().adapter;
    let byShape = compiledBy.get(adapter);
    if (!byShape) {
      byShape = new Map();
      compiledBy.set(adapter, byShape);
    }
    let compiled = byShape.get(shape);
    if (!compiled) {
      const placeholders = Array.from({ length: count }, (_, i) => `${PLACEHOLDER}${i}`);
      const indexOf = new Map(placeholders.map((p, i) => [p, i]));
      const query = build(db, placeholders, shape).compile();
      const refused = () =>
        new Error(`fixedQuery (${shape}): every value must reach the query as a parameter, unchanged`);
      const used = new Set<number>();
      const slots = query.parameters.map((p) => {
        if (typeof p !== 'string' || !p.includes(PLACEHOLDER)) return { constant: p };
        const index = indexOf.get(p);
        if (index === undefined) throw refused();
        used.add(index);
        return index;
      });
      if (used.size !== count || query.sql.includes(PLACEHOLDER)) throw refused();
      compiled = { sql: query.sql, slots };
      byShape.set(shape, compiled);
    }
    return compiled;
  }

  function compile(db: Db, shape: string, values: readonly unknown[]): CompiledQuery<Row> {
    const { sql, slots } = compiledFor(db, shape, values.length);
    return CompiledQuery.raw(
      sql,
      slots.map((slot) => (typeof slot === 'number' ? values[slot] : slot.constant)),
    ) as CompiledQuery<Row>;
  }

  return {
    compile,
    async execute(db, shape, values) {
      return (await db.executeQuery(compile(db, shape, values))).rows;
    },
  };
}
