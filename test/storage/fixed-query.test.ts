/**
 * Fixed queries (storage/fixed-query.ts) are compiled once per database and shape and then run
 * with each call's values: a later call must never see an earlier call's values, each shape has
 * its own text, and a build that would bake a value into the text is refused.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fixedQuery } from '../../src/storage/fixed-query.ts';
import { type TestDatabase, createTestDatabase, forEachDialect } from '../helper.ts';

forEachDialect('fixed queries', (dialect) => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase(dialect);
    await database.storage.db
      .insertInto('users')
      .values(
        ['ada', 'bob', 'cyd'].map((name, i) => ({
          id: `u_${name}`,
          email: `${name}@example.com`,
          name,
          timezone: 'UTC',
          plan: 'core',
          daily_target_minutes: 480,
          week_start: 'monday',
          created_at: i,
        })),
      )
      .execute();
  });
  after(() => database.drop());

  // The same value twice (both names), a constant of the build (the e-mail domain) and the shape.
  const USERS = fixedQuery((db, [id, limit], shape) =>
    db
      .selectFrom('users')
      .select(['id', 'name'])
      .where((eb) =>
        eb.or([
          eb('id', '=', id as string),
          eb('handle', '=', id as string),
          eb('id', '>', shape === 'after' ? (id as string) : 'u_zzz'),
        ]),
      )
      .where('email', 'like', '%@example.com')
      .orderBy('id')
      .limit(limit as number),
  );

  test('each call runs with its own values, whatever ran before', async () => {
    const db = database.storage.db;
    assert.deepEqual(await USERS.execute(db, 'exact', ['u_ada', 10]), [{ id: 'u_ada', name: 'ada' }]);
    assert.deepEqual(await USERS.execute(db, 'exact', ['u_cyd', 10]), [{ id: 'u_cyd', name: 'cyd' }]);
    assert.deepEqual(await USERS.execute(db, 'exact', ['u_nobody', 10]), []);
    assert.deepEqual(
      (await USERS.execute(db, 'after', ['u_ada', 10])).map((r) => r.id),
      ['u_ada', 'u_bob', 'u_cyd'],
      'another shape is another statement',
    );
    assert.deepEqual(
      (await USERS.execute(db, 'after', ['u_ada', 1])).map((r) => r.id),
      ['u_ada'],
    );
    assert.deepEqual(
      (await USERS.execute(db, 'exact', ['u_bob', 10])).map((r) => r.id),
      ['u_bob'],
      'the first shape again',
    );
  });

  test('the same statement text for every call of a shape, with the values as parameters', () => {
    const db = database.storage.db;
    const first = USERS.compile(db, 'exact', ['u_ada', 10]);
    const second = USERS.compile(db, 'exact', ['u_bob', 2]);
    assert.equal(first.sql, second.sql);
    assert.ok(!first.sql.includes('u_ada') && !first.sql.includes('example.com'), first.sql);
    assert.deepEqual(second.parameters, ['u_bob', 'u_bob', 'u_zzz', '%@example.com', 2]);
  });

  test('a build that changes a value or writes it into the text is refused', () => {
    const db = database.storage.db;
    const changed = fixedQuery((q, [id]) =>
      q
        .selectFrom('users')
        .select('id')
        .where('id', '=', `${id as string}!`),
    );
    assert.throws(
      () => changed.compile(db, 'x', ['u_ada']),
      /every value must reach the query as a parameter, unchanged/,
    );
    const dropped = fixedQuery((q) => q.selectFrom('users').select('id'));
    assert.throws(() => dropped.compile(db, 'x', ['u_ada']), /every value must reach the query as a parameter/);
  });
});
