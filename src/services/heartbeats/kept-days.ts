/**
 * The heartbeats of users' large days, kept in this process between requests, so that a bulk
 * added to a day of 20,000 heartbeats does not read all of them again (on PostgreSQL the read
 * and its conversion took most of a recompute: docs/performance.md, "Heartbeats").
 *
 * Heartbeats are only ever added (nothing updates or deletes them), so the ones a user has in a
 * span of time only grow. A kept day is used only when the database holds exactly as many
 * heartbeats in its span as were kept plus those the request has just added: then they are the
 * same heartbeats, whatever other processes wrote. Otherwise the day is read whole. A day is kept
 * only once its transaction has committed, and is keyed by its span, which the user's timezone
 * and the timeout decide.
 */
import type { Storage } from '../../storage/database.ts';
import type { Beat } from './sessions.ts';

/** Smaller days are read as fast as they are counted: keeping them saves nothing. */
const SMALLEST_KEPT = 1000;
/** Heartbeats kept in all, about 250 bytes each as the driver makes them: some 15 MB. */
const MOST_KEPT = 60_000;

class KeptDays {
  /** Oldest use first. */
  private readonly days = new Map<string, readonly Beat[]>();
  private size = 0;

  get(key: string): readonly Beat[] | undefined {
    const beats = this.days.get(key);
    if (beats) {
      this.days.delete(key);
      this.days.set(key, beats);
    }
    return beats;
  }

  set(key: string, beats: readonly Beat[]): void {
    this.delete(key);
    if (beats.length < SMALLEST_KEPT || beats.length > MOST_KEPT) return;
    this.days.set(key, beats);
    this.size += beats.length;
    for (const [oldest] of this.days) {
      if (this.size <= MOST_KEPT) break;
      this.delete(oldest);
    }
  }

  private delete(key: string): void {
    const beats = this.days.get(key);
    if (!beats) return;
    this.days.delete(key);
    this.size -= beats.length;
  }
}

const kept = new WeakMap<Storage, KeptDays>();

/** The kept days of one database (a process may open several, as the tests do). */
export function keptDaysOf(storage: Storage): KeptDays {
  let days = kept.get(storage);
  if (!days) {
    days = new KeptDays();
    kept.set(storage, days);
  }
  return days;
}

/** What a day is kept under: the user and the span of its heartbeats (Unix seconds). */
export const keptDayKey = (userId: string, from: number, to: number) => `${userId}\u0000${from}\u0000${to}`;
