/**
 * The write lock of the two threads of a serving process that write one SQLite file: the
 * server's thread and the write thread (services/recording/recorder.ts), each on a connection of
 * its own.
 *
 * SQLite lets one connection write at a time, and a connection that finds the file locked waits
 * by polling it (sleeps of 1, 2, 5, 10… ms, SERVING_BUSY_TIMEOUT_MS in all on the server's
 * thread). Under a stream of batches the write thread's transactions follow one another with
 * microseconds between them, so the server's own writes (a new project, a heartbeat, a summary)
 * rarely found the file free and were answered 503. And a transaction that reads and then
 * writes fails at once (SQLITE_BUSY_SNAPSHOT) when the other connection committed in between.
 *
 * Both threads take this lock, in shared memory, before they write (storage/database.ts: every
 * write statement and every transaction that is not read only, and each try of a write
 * transaction's BEGIN IMMEDIATE), and let it go when the write or transaction ends. A thread that
 * lets go while the other waits hands the lock to it, so the two take turns. Each side takes it
 * only while it holds its one connection, so a side never waits for itself.
 */

/** The two sides, also the bit of each in the waiting cell. */
export const SERVER_THREAD = 1;
export const WRITE_THREAD = 2;
export type LockSide = typeof SERVER_THREAD | typeof WRITE_THREAD;

/** Cells of the shared memory: who holds the lock (0: nobody), and the bits of the sides waiting. */
const HOLDER = 0;
const WAITING = 1;

/** The shared memory a lock lives in, made once and handed to both sides. */
export function sharedLockMemory(): SharedArrayBuffer {
  return new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
}

export class ThreadWriteLock {
  readonly memory: SharedArrayBuffer;
  private readonly cells: Int32Array;
  private readonly side: LockSide;

  constructor(memory: SharedArrayBuffer, side: LockSide) {
    this.memory = memory;
    this.cells = new Int32Array(memory);
    this.side = side;
  }

  /** Whether this side holds the lock. */
  get held(): boolean {
    return Atomics.load(this.cells, HOLDER) === this.side;
  }

  /** Resolves once this side holds the lock, waiting without blocking the thread. */
  async acquire(): Promise<void> {
    for (;;) {
      if (Atomics.compareExchange(this.cells, HOLDER, 0, this.side) === 0) break;
      Atomics.or(this.cells, WAITING, this.side);
      const holder = Atomics.load(this.cells, HOLDER);
      // Handed over (release below) or let go since the try above.
      if (holder === this.side) break;
      if (holder === 0) continue;
      const waited = Atomics.waitAsync(this.cells, HOLDER, holder);
      if (waited.async) await waited.value;
      if (Atomics.load(this.cells, HOLDER) === this.side) break;
    }
    Atomics.and(this.cells, WAITING, ~this.side);
  }

  /** Lets the lock go: to the other side if it waits, else to nobody. */
  release(): void {
    this.letGo(this.side);
  }

  /** The other side's thread has ended: a lock it held or waited for is let go. */
  forsake(side: LockSide): void {
    Atomics.and(this.cells, WAITING, ~side);
    if (Atomics.load(this.cells, HOLDER) === side) this.letGo(side);
  }

  private letGo(side: LockSide): void {
    const other = side === SERVER_THREAD ? WRITE_THREAD : SERVER_THREAD;
    const next = Atomics.load(this.cells, WAITING) & other ? other : 0;
    Atomics.store(this.cells, HOLDER, next);
    Atomics.notify(this.cells, HOLDER);
  }
}
