/**
 * Reads on worker threads: reports and searches built on a pool of threads, one per core by
 * default (DAYBOOK_REPORT_WORKERS), each with its own database connection, while the server's
 * thread authenticates, dispatches and sends the bytes.
 *
 * - Large reports always go to the pool (isLargeReport): a 90-day report of a 25-person team is
 *   tens of milliseconds of JavaScript; on the server's one thread two such requests took turns
 *   and every small request waited behind them.
 * - On SQLite, small reports (day, week and task rows of a month or less, activity rows of a
 *   week or less) and searches go to the pool when a thread can take them at once
 *   (WorkerPool.runIfRoom), and are built in place otherwise. better-sqlite3 runs a statement on
 *   the thread that calls it: built in place, their statements were about half of the server
 *   thread's time under the mixed load while the other core sat partly idle (docs/performance.md,
 *   "Reads on the pool"). A thread holding a large report takes no small job, which would wait
 *   behind it. Small jobs go to the pool's first threads only, one fewer than the machine has
 *   cores (at least one; smallReadThreads): the server's thread keeps a core for the HTTP work,
 *   and on two cores a second thread taking small reads only added switching between threads and
 *   a second page cache to warm (the mixed load used 4–15 % more CPU per request and served less;
 *   docs/performance.md, "Small reads on one thread"). Large reports still use every thread.
 *   On PostgreSQL the statements run in the database's processes, and the pool's own
 *   connections only added to the queries the database's cores take turns on (the mixed load's
 *   p99 120–133 ms became 158–192 ms), so small reads stay in place there.
 * - Longer activity rows stay in place: they are written into the response as they are read,
 *   one row at a time, and cost the heap little; on a worker their buffers and a second heap only
 *   added memory.
 *
 * Each job answers what the route would answer in place: a report its response body's bytes
 * (moved, not copied), a search its payload, which the route's schema serializes as ever.
 */
import { availableParallelism } from 'node:os';
import { WorkerPool } from '../lib/worker-pool.ts';
import { DAY_MS } from '../lib/time.ts';
import type { UserRow } from '../storage/accounts.ts';
import type { ReportBody } from '../schemas/report.ts';
import type { SearchBody, SearchResponse } from '../schemas/search.ts';
import type { Payload } from '../schemas/common.ts';
import type { Viewer } from './projects/access.ts';
import type { ReportRequest } from './reports/request.ts';

export interface ReportJob {
  kind: 'report';
  caller: UserRow;
  viewer: Viewer;
  body: ReportBody | undefined | null;
  now: number;
}

export interface SearchJob {
  kind: 'search';
  userId: string;
  body: SearchBody;
  now: number;
}

type ReadJob = ReportJob | SearchJob;

/** A report's body (its bytes, moved) or a search's payload. */
export type ReadAnswer = ArrayBuffer[] | Payload<SearchResponse>;

/** What a worker is started with: its database, and how long a statement may run on it (PostgreSQL). */
export interface WorkerSetup {
  databaseUrl: string;
  statementTimeoutMs: number;
}

/**
 * Small jobs a thread may hold at once, counted until the thread has answered them (not until
 * the busy server's thread has taken the answer in: docs/performance.md, "Reads on the pool").
 */
const SMALL_JOBS_PER_THREAD = 4;

/** Team reports and day, week or task rows over more than a month (asked of the checked request). */
export function isLargeReport(request: ReportRequest): boolean {
  if (request.level === 'activity') return false;
  return request.teamIds !== null || request.to - request.from > 31 * DAY_MS;
}

/** Where a report is built: always on the pool, on the pool when it has room, or in place. */
export function reportPlace(request: ReportRequest): 'pool' | 'pool-if-room' | 'here' {
  if (isLargeReport(request)) return 'pool';
  if (request.level === 'activity' && request.to - request.from > 7 * DAY_MS) return 'here';
  return 'pool-if-room';
}

/** How many of a pool of `size` threads take small reports and searches: one fewer than the cores, at least one. */
export function smallReadThreads(size: number, cores = availableParallelism()): number {
  return Math.min(size, Math.max(1, cores - 1));
}

/** The pool's threads (read-worker.ts). */
export class ReadWorkers {
  private readonly pool: WorkerPool<ReadJob, ReadAnswer>;
  private readonly smallThreads: number;

  /**
   * Threads start with `whenStarted` (the app does so before it serves) or the first report or
   * search. `smallThreads`: how many of them small reports and searches may go to (0: none, as
   * on PostgreSQL; see above).
   */
  constructor(setup: WorkerSetup, size: number, { smallThreads }: { smallThreads: number }) {
    this.pool = new WorkerPool('read worker', new URL('./read-worker.ts', import.meta.url), setup, size);
    this.smallThreads = smallThreads;
  }

  /**
   * The response body of the report `request` (the job's body, checked), in chunks, built on the
   * pool; rejects with the ApiError a request earns. Null when it is to be built in place
   * (reportPlace, and small ones whenever no thread has room now).
   */
  report(job: Omit<ReportJob, 'kind'>, request: ReportRequest): Promise<Buffer[]> | null {
    const place = reportPlace(request);
    if (place === 'here' || (place === 'pool-if-room' && this.smallThreads === 0)) return null;
    const full: ReportJob = { kind: 'report', ...job };
    const answer =
      place === 'pool' ? this.pool.run(full) : this.pool.runIfRoom(full, SMALL_JOBS_PER_THREAD, this.smallThreads);
    return answer?.then((chunks) => (chunks as ArrayBuffer[]).map((chunk) => Buffer.from(chunk))) ?? null;
  }

  /** The search's payload, or null when no thread has room for it now. */
  search(job: Omit<SearchJob, 'kind'>): Promise<Payload<SearchResponse>> | null {
    if (this.smallThreads === 0) return null;
    return this.pool.runIfRoom({ kind: 'search', ...job }, SMALL_JOBS_PER_THREAD, this.smallThreads) as Promise<
      Payload<SearchResponse>
    > | null;
  }

  /** Starts the threads, and resolves once each serves jobs (until then small jobs are built in place). */
  whenStarted(): Promise<void> {
    return this.pool.whenStarted();
  }

  /** Lets each worker close its database connection and end; one that does not is stopped. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
