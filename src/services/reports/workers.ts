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
import { Worker } from 'node:worker_threads';
import { ApiError } from '../../errors.ts';
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

/** What a worker answers: the response body, or the error to answer with. */
export type WorkerAnswer =
  | { id: number; chunks: ArrayBuffer[] }
  | { id: number; error: { status: number; message: string; extra: Record<string, unknown> } }
  | { id: number; failure: string; code?: string };

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

interface Pending {
  resolve(chunks: Buffer[]): void;
  reject(err: Error): void;
}

class PoolWorker {
  readonly pending = new Map<number, Pending>();
  readonly thread: Worker;

  constructor(setup: WorkerSetup, onExit: (worker: PoolWorker) => void) {
    this.thread = new Worker(new URL('./worker.ts', import.meta.url), { workerData: setup });
    this.thread.on('message', (answer: WorkerAnswer) => this.settle(answer));
    this.thread.on('error', (err) => this.failAll(err));
    this.thread.on('exit', () => {
      this.failAll(new Error('report worker stopped'));
      onExit(this);
    });
  }

  private settle(answer: WorkerAnswer): void {
    const pending = this.pending.get(answer.id);
    if (!pending) return;
    this.pending.delete(answer.id);
    if ('chunks' in answer) pending.resolve(answer.chunks.map((c) => Buffer.from(c)));
    else if ('error' in answer)
      pending.reject(new ApiError(answer.error.status, answer.error.message, answer.error.extra));
    else
      pending.reject(
        new Error(`report worker failed: ${answer.failure}`, {
          cause: Object.assign(new Error(answer.failure), answer.code === undefined ? {} : { code: answer.code }),
        }),
      );
  }

  private failAll(err: Error): void {
    for (const pending of this.pending.values()) pending.reject(err);
    this.pending.clear();
  }
}

export class ReportWorkers {
  private readonly workers: PoolWorker[] = [];
  private readonly setup: WorkerSetup;
  private readonly size: number;
  private nextId = 1;
  private closing = false;

  /** Workers start with the first large report, so a server that never builds one pays nothing. */
  constructor(setup: WorkerSetup, size: number) {
    this.setup = setup;
    this.size = size;
  }

  private spawn(): PoolWorker {
    return new PoolWorker(this.setup, (gone) => {
      const index = this.workers.indexOf(gone);
      // A worker that died is replaced, so one failure costs only the reports it was building.
      if (index !== -1 && !this.closing) this.workers[index] = this.spawn();
    });
  }

  /** The response body of the report, in chunks; rejects with the ApiError a request earns. */
  run(job: ReportJob): Promise<Buffer[]> {
    while (this.workers.length < this.size) this.workers.push(this.spawn());
    // The least busy worker; ties go to the first.
    let worker = this.workers[0]!;
    for (const candidate of this.workers) if (candidate.pending.size < worker.pending.size) worker = candidate;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      worker.pending.set(id, { resolve, reject });
      worker.thread.postMessage({ id, job });
    });
  }

  /** Lets each worker close its database connection and end; one that does not is stopped. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.workers.map(async ({ thread }) => {
        const ended = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
        thread.postMessage({ close: true });
        const timer = setTimeout(() => void thread.terminate(), 5000);
        await ended;
        clearTimeout(timer);
      }),
    );
  }
}
