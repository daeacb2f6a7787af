/**
 * The write thread (recorder.ts): runs the recording routes' writes on its own connection to
 * the server's SQLite file, one transaction at a time as on the server's thread.
 */
import { workerData } from 'node:worker_threads';
import { serveJobs } from '../../lib/worker-pool.ts';
import { openStorage, SERVING_BUSY_TIMEOUT_MS } from '../../storage/database.ts';
import { ThreadWriteLock, WRITE_THREAD } from '../../storage/thread-write-lock.ts';
import { SAFETY_NET_PAGES } from '../../storage/wal-checkpointer.ts';
import { runJob, type WriteJob, type WriteThreadSetup } from './recorder.ts';

const setup = workerData as WriteThreadSetup;
const storage = openStorage(setup.databaseUrl);
// As on the server's thread (server.ts): a statement never waits long for another process's
// lock (a write transaction waits for it without blocking), and the log is checkpointed by the
// server's checkpoint thread, with this connection's own checkpoint only as a safety net.
storage.sqlite?.setBusyTimeout(SERVING_BUSY_TIMEOUT_MS);
storage.sqlite?.setAutoCheckpoint(SAFETY_NET_PAGES);
storage.setStatementTimeout?.(setup.statementTimeoutMs);
// Its writes and the server thread's take turns (storage/thread-write-lock.ts).
storage.sqlite?.shareWrites(new ThreadWriteLock(setup.lockMemory, WRITE_THREAD));

serveJobs(
  async (job: WriteJob) => ({ value: await runJob(storage, job) }),
  () => storage.close(),
);
