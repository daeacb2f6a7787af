/**
 * Where the recording routes' writes run (POST /activities, POST and DELETE /tasks, …, the
 * WakaTime-compatible heartbeats and the MCP server's writing tools): the same functions either
 * way, given the same arguments.
 *
 * - On a SQLite file, by default (DAYBOOK_WRITE_THREAD), on one thread of their own with its own
 *   connection (write-thread.ts). better-sqlite3 runs each statement on the thread that calls
 *   it: on the server's thread a 1,000-item batch held up every other request for its whole
 *   transaction (reads beside a stream of batches: p99 187–349 ms there, 107–147 ms with the
 *   thread; docs/performance.md). On their own thread the server's thread only checks, hands
 *   over and answers; SQLite lets one connection write while others read, and a read begun after
 *   the write's answer sees the write. One thread, because SQLite writes one at a time anyway;
 *   its writes and the server thread's own take turns (storage/thread-write-lock.ts).
 * - Otherwise (PostgreSQL, whose statements run in the database's own processes; an in-memory
 *   SQLite database, which exists only on its own connection; DAYBOOK_WRITE_THREAD=false) on the
 *   server's thread.
 */
import type { Config } from '../../config.ts';
import { WorkerPool } from '../../lib/worker-pool.ts';
import type { Storage } from '../../storage/database.ts';
import { SERVER_THREAD, sharedLockMemory, ThreadWriteLock, WRITE_THREAD } from '../../storage/thread-write-lock.ts';
import { type HeartbeatContext, recordHeartbeats } from '../heartbeats/record.ts';
import { deleteActivity, recordActivities } from './activities.ts';
import { setDayComment } from './day-comments.ts';
import { createTask, deleteTask, updateTask } from './tasks.ts';

/** recordHeartbeats with its clock last, as the other writes take it. */
function recordHeartbeatsOf(
  storage: Storage,
  caller: Parameters<typeof recordHeartbeats>[1],
  items: readonly unknown[],
  request: Omit<HeartbeatContext, 'clock'>,
  clock: () => number,
) {
  return recordHeartbeats(storage, caller, items, { ...request, clock });
}

/** The writes, each called as `(storage, …arguments, clock)`. */
const operations = {
  recordActivities,
  deleteActivity,
  createTask,
  updateTask,
  deleteTask,
  setDayComment,
  recordHeartbeats: recordHeartbeatsOf,
};

type Operations = typeof operations;
type Operation = keyof Operations;
/** A write's arguments between the storage and the clock. */
type ArgumentsOf<K extends Operation> = Operations[K] extends (
  storage: Storage,
  ...rest: [...infer A, () => number]
) => unknown
  ? A
  : never;
type ResultOf<K extends Operation> = Awaited<ReturnType<Operations[K]>>;

/** A write handed to the thread: its clock reads the server's clock's offset from the thread's. */
export interface WriteJob {
  operation: Operation;
  args: unknown[];
  clockOffset: number;
}

/** What the write thread is started with. */
export interface WriteThreadSetup {
  databaseUrl: string;
  statementTimeoutMs: number;
  /** The write lock's shared memory (storage/thread-write-lock.ts). */
  lockMemory: SharedArrayBuffer;
}

export interface Recorder {
  /** Runs the write, with the caller's arguments (the storage and the clock are the recorder's). */
  run<K extends Operation>(operation: K, ...args: ArgumentsOf<K>): Promise<ResultOf<K>>;
  /** Resolves once the writes' thread (if any) serves jobs; rejects if it cannot start. */
  whenStarted(): Promise<void>;
  /** Waits for the writes under way, then lets their thread go. */
  close(): Promise<void>;
  /** Whether the writes run on a thread of their own. */
  readonly threaded: boolean;
}

function call<K extends Operation>(
  operation: K,
  storage: Storage,
  args: ArgumentsOf<K>,
  clock: () => number,
): Promise<ResultOf<K>> {
  const write = operations[operation] as (storage: Storage, ...rest: unknown[]) => Promise<ResultOf<K>>;
  return write(storage, ...args, clock);
}

/** The recorder for this server: on a thread of its own where that helps (see above). */
export function createRecorder(storage: Storage, config: Config, now: () => number): Recorder {
  if (!config.writeThread || storage.dialect !== 'sqlite' || storage.inMemory) {
    return {
      threaded: false,
      run: (operation, ...args) => call(operation, storage, args, now),
      whenStarted: async () => {},
      close: async () => {},
    };
  }
  // The two threads' writes take turns (storage/thread-write-lock.ts).
  const memory = sharedLockMemory();
  const lock = new ThreadWriteLock(memory, SERVER_THREAD);
  storage.sqlite?.shareWrites(lock);
  const setup: WriteThreadSetup = {
    databaseUrl: config.databaseUrl,
    statementTimeoutMs: config.pgStatementTimeoutMs,
    lockMemory: memory,
  };
  const thread = new WorkerPool<WriteJob, unknown>(
    'write thread',
    new URL('./write-thread.ts', import.meta.url),
    setup,
    1,
    // A thread that ended (a crash, or stopped at close) holds the lock no longer.
    () => lock.forsake(WRITE_THREAD),
  );
  // Loaded now (and waited for before the app serves, src/http/app.ts): the first write would
  // otherwise wait for the thread to load its modules.
  thread.start();
  async function run<K extends Operation>(operation: K, ...args: ArgumentsOf<K>): Promise<ResultOf<K>> {
    const clockOffset = now() - Date.now();
    return (await thread.run({ operation, args, clockOffset })) as ResultOf<K>;
  }
  return {
    threaded: true,
    run,
    whenStarted: () => thread.whenStarted(),
    close: async () => {
      await thread.close();
      storage.sqlite?.shareWrites(null);
    },
  };
}

/** The write thread's side: runs a job on its own storage, with a clock that keeps the server's offset. */
export function runJob(storage: Storage, job: WriteJob): Promise<unknown> {
  const clock = () => Date.now() + job.clockOffset;
  return call(job.operation, storage, job.args as ArgumentsOf<typeof job.operation>, clock);
}
