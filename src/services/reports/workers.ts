/**
 * Large reports on worker threads. A 90-day report of a 25-person team is tens of milliseconds
 * of JavaScript (rows, names, labels, JSON); on the server's one thread two such requests take
 * turns and each waits for the other, and every small request waits behind them. Built on a
 * pool of workers, one per core by default, each with its own database connection, they run
 * side by side and the server's thread only authenticates, dispatches and sends the bytes.
 *
 * Which reports go to the pool (isLargeReport): team reports and day, week or task rows over
 * more than a month. Smaller ones cost less than the hand-over.
 */
import { WorkerPool } from '../../lib/worker-pool.ts';
import type { UserRow } from '../../storage/accounts.ts';
import type { Viewer } from '../projects/access.ts';
import { DAY_MS } from '../../lib/time.ts';
import type { ReportBody } from '../../schemas/report.ts';
import type { ReportRequest } from './request.ts';

export interface ReportJob {
  caller: UserRow;
  viewer: Viewer;
  body: ReportBody | undefined | null;
  now: number;
}

/** What a worker is started with: its database, and how long a statement may run on it (PostgreSQL). */
export interface WorkerSetup {
  databaseUrl: string;
  statementTimeoutMs: number;
}

/**
 * Team reports and reports over more than a month are built on the pool (asked of the checked
 * request, which the route parses once). Activity rows stay on the server's thread whatever their range:
 * they are written into the response as they are read, one row at a time, and cost the heap
 * little; on a worker their buffers and a second heap only added memory.
 */
export function isLargeReport(request: ReportRequest): boolean {
  if (request.level === 'activity') return false;
  return request.teamIds !== null || request.to - request.from > 31 * DAY_MS;
}

/** The pool's threads: each answers a report's body as ArrayBuffers moved to the server's thread. */
export class ReportWorkers {
  private readonly pool: WorkerPool<ReportJob, ArrayBuffer[]>;

  /** Workers start with the first large report, so a server that never builds one pays nothing. */
  constructor(setup: WorkerSetup, size: number) {
    this.pool = new WorkerPool('report worker', new URL('./worker.ts', import.meta.url), setup, size);
  }

  /** The response body of the report, in chunks; rejects with the ApiError a request earns. */
  async run(job: ReportJob): Promise<Buffer[]> {
    return (await this.pool.run(job)).map((chunk) => Buffer.from(chunk));
  }

  /** Lets each worker close its database connection and end; one that does not is stopped. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
