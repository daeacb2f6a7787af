/**
 * Jobs run on worker threads, each thread with its own database connection: the pool on the
 * server's thread (WorkerPool) and the loop on each worker (serveJobs). Large reports are built
 * on a pool of them (services/read-workers.ts), SQLite's recording writes on a pool of one
 * (services/recording/recorder.ts).
 *
 * What a job answers crosses as a structured clone (or moved ArrayBuffers). An ApiError comes
 * back as the same ApiError, to be answered as it would be on the server's thread; any other
 * failure as an Error with the worker's message and its `code` (on the error and its cause), so
 * that the server's thread answers a busy or unreachable database 503 like its own requests.
 */
import { parentPort, Worker } from 'node:worker_threads';
import { ApiError } from '../errors.ts';

type Answer<V> =
  | { ready: true }
  | { id: number; value: V }
  | { id: number; error: { status: number; message: string; extra: Record<string, unknown> } }
  | { id: number; failure: string; code?: string };

type Message<J> = { id: number; job: J } | { close: true } | { finished: SharedArrayBuffer };

interface Pending<V> {
  resolve(value: V): void;
  reject(err: Error): void;
  large: boolean;
}

class PoolThread<V> {
  readonly pending = new Map<number, Pending<V>>();
  readonly thread: Worker;
  /** Whether the thread has loaded its module and serves jobs (serveJobs said so). */
  ready = false;
  /** Settles when it does (or fails if the thread ends first). */
  readonly started: Promise<void>;
  private readonly startedNow = Promise.withResolvers<void>();
  /** How many of the pending jobs are large ones. */
  large = 0;
  /** Jobs posted to the thread, and (counted by the thread in shared memory) those it has answered. */
  private posted = 0;
  private readonly finished = new Int32Array(new SharedArrayBuffer(4));
  private readonly name: string;

  constructor(name: string, entry: URL, setup: unknown, onExit: (thread: PoolThread<V>) => void) {
    this.name = name;
    this.started = this.startedNow.promise;
    // Whoever waits for it is told; nobody need.
    this.started.catch(() => {});
    this.thread = new Worker(entry, { workerData: setup });
    this.thread.postMessage({ finished: this.finished.buffer as SharedArrayBuffer } satisfies Message<never>);
    this.thread.on('message', (answer: Answer<V>) => this.settle(answer));
    this.thread.on('error', (err) => this.failAll(err));
    this.thread.on('exit', () => {
      this.failAll(new Error(`${name} stopped`));
      onExit(this);
    });
  }

  private settle(answer: Answer<V>): void {
    if ('ready' in answer) {
      this.ready = true;
      this.startedNow.resolve();
      return;
    }
    const pending = this.pending.get(answer.id);
    if (!pending) return;
    this.pending.delete(answer.id);
    if (pending.large) this.large--;
    if ('value' in answer) pending.resolve(answer.value);
    else if ('error' in answer)
      pending.reject(new ApiError(answer.error.status, answer.error.message, answer.error.extra));
    else {
      const coded = answer.code === undefined ? {} : { code: answer.code };
      pending.reject(
        Object.assign(
          new Error(`${this.name} failed: ${answer.failure}`, {
            cause: Object.assign(new Error(answer.failure), coded),
          }),
          coded,
        ),
      );
    }
  }

  private failAll(err: Error): void {
    for (const pending of this.pending.values()) pending.reject(err);
    this.pending.clear();
    this.large = 0;
    this.ready = false;
    this.startedNow.reject(err);
  }

  /**
   * Jobs the thread holds: posted and not yet answered by it. Unlike `pending`, an answer that
   * waits for the server's thread to take it in does not count.
   */
  inHand(): number {
    return this.posted - Atomics.load(this.finished, 0);
  }

  post<J>(id: number, job: J, large: boolean): Promise<V> {
    if (large) this.large++;
    this.posted++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, large });
      this.thread.postMessage({ id, job } satisfies Message<J>);
    });
  }
}

/**
 * `size` threads running `entry` (a module that calls serveJobs), started with the first job
 * (so a server that never needs one pays nothing) or by `start`. Each job goes to the least busy
 * thread; a thread that dies fails only the jobs it held, and the next job starts another.
 */
export class WorkerPool<J, V> {
  private readonly threads: PoolThread<V>[] = [];
  private readonly name: string;
  private readonly entry: URL;
  private readonly setup: unknown;
  private readonly size: number;
  private nextId = 1;
  private closing = false;
  /** Whether the threads were ever started (runIfRoom starts them only then). */
  private everStarted = false;

  private readonly onExit: (() => void) | undefined;

  /** `onExit` is told whenever one of the threads has ended. */
  constructor(name: string, entry: URL, setup: unknown, size: number, onExit?: () => void) {
    this.name = name;
    this.entry = entry;
    this.setup = setup;
    this.size = size;
    this.onExit = onExit;
  }

  private spawn(): PoolThread<V> {
    // A thread that ended is replaced by the next job, not at once: one that cannot start (its
    // database cannot be opened) is not started again and again.
    return new PoolThread<V>(this.name, this.entry, this.setup, (gone) => {
      const index = this.threads.indexOf(gone);
      if (index !== -1) this.threads.splice(index, 1);
      this.onExit?.();
    });
  }

  /** Starts the threads now rather than with the first job (which would wait for them to load). */
  start(): void {
    this.everStarted = true;
    while (this.threads.length < this.size) this.threads.push(this.spawn());
  }

  /** Starts the threads, and resolves once each has loaded its module and serves jobs. */
  async whenStarted(): Promise<void> {
    this.start();
    await Promise.all(this.threads.map((thread) => thread.started));
  }

  /**
   * What the job answers; rejects with the ApiError it earned, or the worker's failure. It counts
   * as a large job, one that may hold its thread long (see runIfRoom).
   */
  run(job: J): Promise<V> {
    if (this.closing) return Promise.reject(new Error(`${this.name} closed`));
    this.start();
    // The least busy thread; ties go to the first.
    let chosen = this.threads[0]!;
    for (const candidate of this.threads) if (candidate.pending.size < chosen.pending.size) chosen = candidate;
    return chosen.post(this.nextId++, job, true);
  }

  /**
   * Runs a small job on a thread that can take it soon, or answers null (the caller then does
   * the work itself): one of the pool's first `threads` threads that has started, holds no large
   * job (a small one would wait behind it) and fewer than `depth` jobs it has not answered yet.
   * A call before any thread was started starts them, and is itself answered null; a thread that
   * ended is replaced by the next `run` only, so small jobs, which can be done in place, never
   * start threads again and again when they cannot start.
   */
  runIfRoom(job: J, depth: number, threads = this.size): Promise<V> | null {
    if (this.closing) return null;
    if (!this.everStarted) {
      this.start();
      return null;
    }
    let chosen: PoolThread<V> | null = null;
    let fewest = depth;
    for (let i = 0; i < Math.min(threads, this.threads.length); i++) {
      const candidate = this.threads[i]!;
      if (!candidate.ready || candidate.large > 0) continue;
      const held = candidate.inHand();
      if (held < fewest) {
        chosen = candidate;
        fewest = held;
      }
    }
    return chosen ? chosen.post(this.nextId++, job, false) : null;
  }

  /**
   * Lets each thread finish the jobs it holds, close its database connection and end; one that
   * has not ended after `graceMs` is stopped.
   */
  async close(graceMs = 5000): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.threads.map(async ({ thread }) => {
        const ended = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
        thread.postMessage({ close: true } satisfies Message<J>);
        const timer = setTimeout(() => void thread.terminate(), graceMs);
        await ended;
        clearTimeout(timer);
      }),
    );
  }
}

/** What a job's handler gives back: the value, and the ArrayBuffers in it to move rather than copy. */
export interface JobResult<V> {
  value: V;
  transfer?: ArrayBuffer[];
}

/**
 * A worker's side of the pool: runs each job with `handle` as it comes (jobs of one thread may
 * overlap where they wait) and answers it; on close, waits for the jobs under way, then
 * `close` (its database connection), then ends.
 */
export function serveJobs<J, V>(handle: (job: J) => Promise<JobResult<V>>, close: () => Promise<void>): void {
  const port = parentPort!;
  const running = new Set<Promise<void>>();
  let finished: Int32Array | null = null;
  port.postMessage({ ready: true } satisfies Answer<V>);
  port.on('message', (message: Message<J>) => {
    if ('finished' in message) {
      finished = new Int32Array(message.finished);
      return;
    }
    if ('close' in message) {
      void Promise.allSettled(running)
        .then(close)
        .finally(() => port.close());
      return;
    }
    const done = answer(message.id, message.job, handle).then(({ reply, transfer }) => {
      port.postMessage(reply, transfer);
      if (finished) Atomics.add(finished, 0, 1);
      running.delete(done);
    });
    running.add(done);
  });
}

async function answer<J, V>(
  id: number,
  job: J,
  handle: (job: J) => Promise<JobResult<V>>,
): Promise<{ reply: Answer<V>; transfer: ArrayBuffer[] }> {
  try {
    const { value, transfer = [] } = await handle(job);
    return { reply: { id, value }, transfer };
  } catch (err) {
    if (err instanceof ApiError)
      return { reply: { id, error: { status: err.status, message: err.message, extra: err.extra } }, transfer: [] };
    const { code } = err as { code?: unknown };
    return {
      reply: { id, failure: (err as Error).message, ...(typeof code === 'string' ? { code } : {}) },
      transfer: [],
    };
  }
}
