/**
 * SQLite copies the pages of its write-ahead log back into the database file (a checkpoint)
 * on the connection whose commit made the log long enough: in a server, the one thread that
 * answers every request, which then also writes those pages and syncs the file. Under a steady
 * load of writes that was a checkpoint every other large batch.
 *
 * A serving process checkpoints from a thread of its own instead, with a connection of its
 * own, every CHECKPOINT_INTERVAL_MS (PASSIVE: it never waits for, nor holds up, a reader or a
 * writer). The server's connection keeps an automatic checkpoint only as a safety net, at a
 * longer log (SAFETY_NET_PAGES), should the thread fall behind or stop.
 */
import { Worker } from 'node:worker_threads';
import type { Storage } from './database.ts';

const CHECKPOINT_INTERVAL_MS = 100;
/** 16,384 pages of 4 KiB: 64 MiB of log before the server's own connection checkpoints. */
export const SAFETY_NET_PAGES = 16_384;

export interface WalCheckpointer {
  stop(): Promise<void>;
}

/** Starts checkpointing `storage`'s file from a thread (SQLite files only; null otherwise). */
export function startWalCheckpointer(storage: Storage): WalCheckpointer | null {
  if (storage.inMemory || !storage.sqlite) return null;
  const thread = new Worker(new URL('./wal-checkpoint-thread.ts', import.meta.url), {
    workerData: { file: storage.sqlite.file, intervalMs: CHECKPOINT_INTERVAL_MS },
  });
  // The thread holds no request: it never keeps the process alive on its own.
  thread.unref();
  storage.sqlite.setAutoCheckpoint(SAFETY_NET_PAGES);
  let stopped = false;
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()));
  // A thread that ends before it was stopped (it could not open the file): the server's own
  // connection checkpoints as before, at SQLite's default length.
  thread.on('error', () => {});
  thread.once('exit', () => {
    if (!stopped) storage.sqlite?.setAutoCheckpoint(1000);
  });
  return {
    stop: async () => {
      stopped = true;
      // Held again while it ends: waiting for an unreferenced thread would let the process
      // run out of things to do first.
      thread.ref();
      thread.postMessage('stop');
      await exited;
    },
  };
}
