/**
 * PostgreSQL statements are named and kept prepared per connection (storage/database.ts). They
 * must give the same answers as unnamed ones, and keep working when another process's migration
 * changes the columns a prepared statement returns.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS, type TestDatabase, createTestDatabase } from '../helper.ts';

if (DIALECTS.includes('postgres')) {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase('postgres');
  });
  after(() => database.drop());

  const prepared = async () =>
    (await sql<{ name: string }>`select name from pg_prepared_statements`.execute(database.storage.db)).rows.map(
      (r) => r.name,
    );

  test('a statement run again is prepared once on its connection', async () => {
    const db = database.storage.db;
    // One connection, so the statements below share it.
    await db.connection().execute(async (conn) => {
      for (let i = 0; i < 3; i++) {
        const rows = await conn.selectFrom('users').select('id').where('id', '=', `u_${i}`).execute();
        assert.deepEqual(rows, []);
      }
      const names = (
        await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(conn)
      ).rows;
      assert.equal(names.filter((n) => n.statement.includes('from "users"')).length, 1, JSON.stringify(names));
    });
    assert.ok((await prepared()).every((n) => n.startsWith('daybook_')));
  });

  test('a prepared statement whose table gained a column runs again, unprepared', async () => {
    const db = database.storage.db;
    await sql`create table scratch (id text primary key)`.execute(db);
    await sql`insert into scratch values ('a')`.execute(db);
    await db.connection().execute(async (conn) => {
      const read = () => sql<Record<string, unknown>>`select * from scratch`.execute(conn);
      assert.deepEqual((await read()).rows, [{ id: 'a' }]);
      // Another process's migration, as far as this connection knows.
      await sql`alter table scratch add column note text`.execute(database.storage.db);
      assert.deepEqual((await read()).rows, [{ id: 'a', note: null }]);
      assert.deepEqual((await read()).rows, [{ id: 'a', note: null }]);
    });
  });
}
