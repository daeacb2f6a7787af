/**
 * SQLite's full-text index is merged by the writes, a bounded number of pages each, with FTS5's
 * own merging off (migration 0009, `mergeSearchIndex` in storage/writes.ts): many small writes
 * through the API leave the index in few segments, and every record stays findable. PostgreSQL
 * keeps its index itself; the same writes are checked for search there.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { call, forEachDialect, type TestApp, type TestDatabase } from '../helper.ts';
import { ALICE, appOnDataset, world } from '../recording/world.ts';

const WRITES = 160;

/** The n-th write's word: letters only, all of one length, so none is the start of another (search matches prefixes). */
const wordOf = (n: number) =>
  `zq${[676, 26, 1].map((unit) => String.fromCharCode(97 + (Math.floor(n / unit) % 26))).join('')}`;

forEachDialect('the search index under many small writes', (dialect) => {
  let database: TestDatabase;
  let t: TestApp;
  appOnDataset(dialect, 'merges', world, (made) => {
    ({ database, t } = made);
  });

  test(`${WRITES} one-activity writes: each is found by its own word, and SQLite keeps the index in few segments`, async () => {
    for (let n = 0; n < WRITES; n++) {
      const res = await call(t.app, 'POST', '/activities', {
        key: ALICE,
        body: {
          activities: [
            {
              start: new Date(Date.parse('2026-11-20T06:00:00Z') + n * 60_000).toISOString(),
              durationMinutes: 1,
              headline: `Probe ${wordOf(n)}`,
            },
          ],
        },
      });
      assert.equal(res.status, 200, res.body);
    }
    for (const n of [0, 1, WRITES / 2, WRITES - 1]) {
      const res = await call(t.app, 'POST', '/search', { key: ALICE, body: { query: wordOf(n), days: 30 } });
      assert.equal(res.status, 200, res.body);
      assert.equal(res.json.results.length, 1, `${wordOf(n)}: ${res.body}`);
      assert.match(res.json.results[0].title, new RegExp(wordOf(n)));
    }
    if (dialect !== 'sqlite') return;
    const { rows } = await sql<{ automerge: number; segments: number }>`
      select (select v from search_index_config where k = 'automerge') as automerge,
        (select count(distinct segid) from search_index_idx) as segments`.execute(database.storage.db);
    assert.equal(rows[0]!.automerge, 0, "FTS5's own merging is off");
    // With the writes merging (every 8th of these), 160 one-page segments left 1; with those
    // merges taken out, FTS5 merges a level only once it holds 16 (crisismerge), which left 12.
    assert.ok(rows[0]!.segments <= 6, `${rows[0]!.segments} segments`);
  });
});
