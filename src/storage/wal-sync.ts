/**
 * Syncs SQLite's write-ahead log to disk from libuv's threads instead of the server's one
 * JavaScript thread.
 *
 * With `synchronous = FULL` SQLite syncs the log at every commit, on the thread that commits:
 * better-sqlite3 is synchronous, so every request of the process waits for the disk (0.5–0.65 ms
 * a small write on the machine where this was measured, a third of its time). A write
 * transaction (writeTransaction) now commits with `synchronous = NORMAL`, which in WAL mode is
 * FULL less that one sync, and then waits here for the sync before it answers: what a client
 * was told is stored is on disk, as before, while the thread serves other requests meanwhile.
 *
 * Each call starts its own sync at once, up to MAX_RUNNING at a time; calls beyond that share
 * the sync that starts when one ends (group commit). The end of a sync reaches this thread only
 * when its event loop next polls, a turn later under load (16–20 ms in the mixed benchmark), so
 * a sync waits for nothing else on libuv's threads (the log's inode is read synchronously, in
 * microseconds). When every call made during a sync waited for that sync's end before its own
 * began, and each sync then also awaited a `stat`, a write waited up to four turns: four times
 * as long as a read in the mixed benchmark (docs/performance.md).
 *
 * What changes: another request may read a write a few hundred microseconds before it is on
 * disk (before its writer is answered), so a power cut in that moment can take away what a read
 * showed, never what a write's answer confirmed.
 */
import fs from 'node:fs';

/** fs.fdatasync as a promise, looked up at each call (a test may replace it). */
const fdatasync = (fd: number) =>
  new Promise<void>((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));

/** Syncs under way at most (libuv runs 4 file operations at a time by default). */
const MAX_RUNNING = 4;

/** The log's file descriptor, a plain number: a FileHandle left to the garbage collector is a warning in Node 24. */
interface LogFile {
  fd: number;
  inode: number;
  /** Syncs under way on it. */
  users: number;
  /** No longer the file at the log's path: closed once its syncs end. */
  retired: boolean;
}

export class WalSync {
  private readonly path: string;
  private file: LogFile | null = null;
  private running = 0;
  /** Every sync under way, for close(). */
  private readonly underWay = new Set<Promise<void>>();
  /** The sync that starts once one of the running ones ends: it covers every call made meanwhile. */
  private queued: Promise<void> | null = null;
  /** Starts the queued sync. */
  private waiting: (() => void) | null = null;

  /** `path`: the database's log file (`<database>-wal`). */
  constructor(path: string) {
    this.path = path;
  }

  /** Resolves once everything written to the log before the call is on disk. */
  sync(): Promise<void> {
    if (this.queued) return this.queued;
    if (this.running < MAX_RUNNING) return this.start();
    const queued = new Promise<void>((resolve, reject) => {
      const next = () => {
        this.queued = null;
        this.start().then(resolve, reject);
      };
      // Started by the first of the running syncs to end (see start()).
      this.waiting = next;
    });
    this.queued = queued;
    return queued;
  }

  private start(): Promise<void> {
    this.running++;
    const done = this.syncFiles().finally(() => {
      this.running--;
      this.underWay.delete(done);
      const next = this.waiting;
      this.waiting = null;
      next?.();
    });
    this.underWay.add(done);
    return done;
  }

  /**
   * The log's file as it is open now, and, should the log have been made anew at its path
   * (another program removed it), the new file too.
   */
  private async syncFiles(): Promise<void> {
    const current = this.open();
    current.users++;
    const files = [current];
    let inode: number | null = null;
    try {
      inode = fs.statSync(this.path).ino;
    } catch {
      // No log at its path: the open file is the log still.
    }
    if (inode !== null && inode !== current.inode) {
      this.retire(current);
      const fresh = this.open();
      fresh.users++;
      files.push(fresh);
    }
    const synced = await Promise.allSettled(files.map((f) => fdatasync(f.fd)));
    for (const f of files) {
      f.users--;
      if (f.retired && f.users === 0) fs.closeSync(f.fd);
    }
    const failed = synced.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  private open(): LogFile {
    if (this.file === null) {
      const fd = fs.openSync(this.path, 'r');
      this.file = { fd, inode: fs.fstatSync(fd).ino, users: 0, retired: false };
    }
    return this.file;
  }

  /** Takes `f` out of use; it is closed once no sync uses it. */
  private retire(f: LogFile): void {
    if (this.file === f) this.file = null;
    f.retired = true;
    if (f.users === 0) fs.closeSync(f.fd);
  }

  /** Waits for the syncs under way, then closes the file. */
  async close(): Promise<void> {
    while (this.underWay.size > 0 || this.queued) {
      await Promise.allSettled([...this.underWay, ...(this.queued ? [this.queued] : [])]);
    }
    if (this.file) this.retire(this.file);
  }
}
