/**
 * Imports a dataset file (JSON document or NDJSON stream) into the database: upsert by id,
 * all-or-nothing per file, references checked, the JSON Schema enforced (dataset README).
 *
 * The file is read record by record (read.ts), each record checked as it comes
 * (references.ts), queued and written in batches (batches.ts), all in one bulk write session of
 * storage (storage/writes.ts), which keeps rollups, search and summaries' staleness right.
 */
import type { Storage } from '../storage/database.ts';
import { loadKnownRecords } from '../storage/known-records.ts';
import { tidyAfterBulkWrite, writeRecords } from '../storage/writes.ts';
import { ImportBatches, type ImportCounts } from './batches.ts';
import { ImportError, placedError } from './import-error.ts';
import { readDataset } from './read.ts';
import { checkMovedTasks, ReferenceChecks } from './references.ts';

export { ImportError };
export type { ImportCounts };

export interface ImportOptions {
  /** Called now and then with the number of records applied so far. */
  onProgress?: (records: number) => void;
  /** Called once with the number of records in the file, where it is known before they are applied (a JSON document). */
  onTotal?: (records: number) => void;
  now?: () => number;
}

/** Imports of at least this many records refresh statistics and indexes afterwards (tidyAfterBulkWrite). */
const LARGE_IMPORT_RECORDS = 10_000;

/** Imports one file in one transaction; on any error nothing is changed and ImportError says where. */
export async function importDataset(
  storage: Storage,
  path: string,
  options: ImportOptions = {},
): Promise<ImportCounts> {
  const clock = options.now ?? Date.now;
  const now = clock();
  // Once the file is written, what fails (completing the derived data, committing) fails the file.
  let written = false;
  let counts: ImportCounts;
  try {
    // On SQLite the write lock is taken at once: see writeTransaction.
    counts = await writeRecords(storage, { bulk: true, clock }, async (session) => {
      const references = new ReferenceChecks(session, await loadKnownRecords(session));
      const batches = new ImportBatches(session, references, now, options.onProgress);
      try {
        for await (const item of readDataset(path, options.onTotal)) {
          try {
            if (item.kind === 'record') await batches.add(item.type, item.record, item.where);
            else await batches.flush();
          } catch (err) {
            throw placedError(err, item.where);
          }
        }
        try {
          await batches.flush();
          await checkMovedTasks(session, batches.movedTasks);
        } catch (err) {
          throw placedError(err, path);
        }
      } catch (err) {
        await batches.quiesce();
        throw err;
      }
      written = true;
      return batches.counts;
    });
  } catch (err) {
    throw written ? placedError(err, path) : err;
  }
  if (Object.values(counts).reduce((a, b) => a + b, 0) >= LARGE_IMPORT_RECORDS) await tidyAfterBulkWrite(storage);
  return counts;
}
