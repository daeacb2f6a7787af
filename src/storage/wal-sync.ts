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
 * Commits that come while a sync runs share the next one (group commit).
 *
 * What changes: another request may read a write a few hundred microseconds before it is on
 * disk (before its writer is answered), so a power cut in that moment can take away what a read
 * showed, never what a write's answer confirmed.
 */
import fs from 'node:fs';

/** fs's callback functions as promises, looked up at each call (a test may replace them). */
const fdatasync = (fd: number) =>
  new Promise<void>((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
const inodeOf = (path: string) =>
  new Promise<number>((resolve, reject) => fs.stat(path, (err, st) => (err ? reject(err) : resolve(st.ino))));

export class WalSync {
  private readonly path: string;
  /**
   * The log's file descriptor, a plain number: a FileHandle left to the garbage collector (a
   * database dropped without close()) is a warning in Node 24 and an error in later versions.
   */
  private fd: number | null = null;
  private inode = 0;
  /** The sync under way, if any. */
  private running: Promise<void> | null = null;
  /** The sync that starts once the running one ends: it covers every commit made meanwhile. */
  private queued: Promise<void> | null = null;

  /** `path`: the database's log file (`<database>-wal`). */
  constructor(path: string) {
    this.path = path;
  }

  /** Resolves once everything written to the log before the call is on disk. */
  sync(): Promise<void> {
    if (this.queued) return this.queued;
    const running = this.running;
    if (!running) {
      this.running = this.syncOnce();
      return this.running;
    }
    // The running sync may have begun before the caller's commit: the next one covers it.
    this.queued = running
      .catch(() => {})
      .then(() => {
        this.queued = null;
        this.running = this.syncOnce();
        return this.running;
      });
    return this.queued;
  }

  private async syncOnce(): Promise<void> {
    try {
      await fdatasync(this.open());
      // The log is the same file for as long as the connection is open; should it have been
      // made anew (another program removed it), the new file is synced too.
      if ((await inodeOf(this.path)) !== this.inode) {
        this.closeFile();
        await fdatasync(this.open());
      }
    } finally {
      this.running = null;
    }
  }

  private open(): number {
    if (this.fd === null) {
      const fd = fs.openSync(this.path, 'r');
      this.inode = fs.fstatSync(fd).ino;
      this.fd = fd;
    }
    return this.fd;
  }

  /** Waits for the syncs under way, then closes the file. */
  async close(): Promise<void> {
    await (this.queued ?? this.running)?.catch(() => {});
    this.closeFile();
  }

  private closeFile(): void {
    const fd = this.fd;
    this.fd = null;
    if (fd !== null) fs.closeSync(fd);
  }
}
