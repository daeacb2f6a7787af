/**
 * Bulk commands (`daybook import`, `daybook demo`) hold each batch of records long enough for
 * it to outlive a young-generation collection, so it piles up in the old generation until V8
 * gets round to a full collection: on millions of records the heap grew to ~130 MB of mostly
 * dead objects around ~50 MB of live ones. A full collection every `records` records keeps it
 * near the live size for about 1 % of the run's time. `gc` exists only where Node was started
 * with --expose-gc (bin/daybook does so for these commands); elsewhere this does nothing.
 */
/**
 * How often bulk commands collect: every 100,000 records let the heap of a PostgreSQL import
 * (search words computed in TypeScript) reach 323 MB of RSS; 50,000 keeps both databases near
 * 250–265 MB for ~4 % of an SQLite import's time (docs/performance.md).
 */
const BULK_COLLECT_RECORDS = 50_000;

export function collectGarbageEvery(records: number = BULK_COLLECT_RECORDS): (done: number) => void {
  const gc = (globalThis as { gc?: () => void }).gc;
  let collectedAt = 0;
  return (done) => {
    if (gc && done - collectedAt >= records) {
      collectedAt = done;
      gc();
    }
  };
}
