/**
 * The thread of WalCheckpointer (wal-checkpointer.ts): its own connection to the database file,
 * checkpointing the write-ahead log every `intervalMs` until told to stop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';

const { file, intervalMs } = workerData as { file: string; intervalMs: number };
const sqlite = new SqliteDatabase(file, { fileMustExist: true });
// The same durability as the server's connection: the database file is synced before the log
// it was copied from is reused.
sqlite.pragma('synchronous = FULL');
// A checkpoint that meets a lock gives up and is tried again at the next interval.
sqlite.pragma('busy_timeout = 0');
const checkpoint = sqlite.prepare('pragma wal_checkpoint(PASSIVE)');

const timer = setInterval(() => {
  try {
    checkpoint.run();
  } catch {
    // SQLITE_BUSY and the like: the next interval tries again, and the server's own automatic
    // checkpoint stays as the safety net.
  }
}, intervalMs);

parentPort!.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  sqlite.close();
  parentPort!.close();
});
