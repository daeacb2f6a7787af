/**
 * From heartbeats to time (decisions §8.6), a pure function of a user's heartbeats whatever
 * order they arrived in:
 *
 * - all heartbeats sorted by time, then project, category and entity;
 * - a session is a maximal run of consecutive heartbeats of one project and category, each
 *   within the timeout of the next; it spans from its first heartbeat to the heartbeat after
 *   its last when that follows within the timeout, else to its own last heartbeat;
 * - spans are cut at the user's local midnights, and each piece becomes activities of at most
 *   60 minutes back to back from its start, the last holding the remainder.
 *
 * Equivalently, heartbeat i owns the interval to heartbeat i + 1 when that follows within the
 * timeout, and a session is a run of owned intervals of one project and category. So the time
 * of one local day depends only on the heartbeats from a timeout before the day to a timeout
 * after it: a day is recomputed from those alone.
 */
import { addDays, firstInstantOfLocalDay, localDateOf } from '../../lib/time.ts';

export interface Beat {
  /** Unix ms (fractional seconds kept). */
  time: number;
  project: string | null;
  category: string;
  entity: string;
  language: string | null;
  branch: string | null;
}

/** A session's part within one local day. */
export interface Piece {
  date: string;
  start: number;
  end: number;
  project: string | null;
  category: string;
  /** Seen in the piece's heartbeats, in order of first sight. */
  languages: string[];
  branches: string[];
}

/** The longest activity a piece is recorded as, in ms. */
const BLOCK_MS = 60 * 60_000;

const byText = (a: string | null, b: string | null) =>
  a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1;

function compareBeats(a: Beat, b: Beat): number {
  return (
    a.time - b.time || byText(a.project, b.project) || byText(a.category, b.category) || byText(a.entity, b.entity)
  );
}

/**
 * The pieces of `date` (a local date in `timezone`) from heartbeats that include every one from
 * `timeoutMs` before the day to `timeoutMs` after it (more do no harm), in any order.
 */
export function piecesOfDay(beats: readonly Beat[], date: string, timezone: string, timeoutMs: number): Piece[] {
  const dayStart = firstInstantOfLocalDay(date, timezone);
  const dayEnd = firstInstantOfLocalDay(addDays(date, 1), timezone);
  const sorted = [...beats].sort(compareBeats);
  const pieces: Piece[] = [];
  let current: Piece | null = null;
  for (let i = 0; i < sorted.length; i++) {
    const beat = sorted[i]!;
    const next = sorted[i + 1];
    const end = next !== undefined && next.time - beat.time <= timeoutMs ? next.time : beat.time;
    // The part of this heartbeat's interval that lies within the day (a lone heartbeat: a point).
    const from = Math.max(beat.time, dayStart);
    const to = Math.min(end, dayEnd);
    const inDay = from < to || (from === to && beat.time >= dayStart && beat.time < dayEnd);
    if (!inDay) {
      current = null;
      continue;
    }
    const previous = sorted[i - 1];
    const linked =
      current !== null &&
      previous !== undefined &&
      beat.time - previous.time <= timeoutMs &&
      current.end === from &&
      current.project === beat.project &&
      current.category === beat.category;
    if (!linked || current === null) {
      current = {
        date,
        start: from,
        end: to,
        project: beat.project,
        category: beat.category,
        languages: [],
        branches: [],
      };
      pieces.push(current);
    } else current.end = to;
    if (beat.language && !current.languages.includes(beat.language)) current.languages.push(beat.language);
    if (beat.branch && !current.branches.includes(beat.branch)) current.branches.push(beat.branch);
  }
  return pieces.filter((p) => p.end > p.start);
}

/** A piece as back-to-back blocks of at most 60 minutes: [start, minutes]. */
export function blocksOf(piece: Piece): [number, number][] {
  const blocks: [number, number][] = [];
  for (let at = piece.start; at < piece.end; at += BLOCK_MS) {
    blocks.push([at, (Math.min(at + BLOCK_MS, piece.end) - at) / 60_000]);
  }
  return blocks;
}

/** The local days a heartbeat at `time` can change: its own and those within the timeout. */
export function daysTouched(time: number, timezone: string, timeoutMs: number): string[] {
  return [...new Set([time - timeoutMs, time, time + timeoutMs].map((t) => localDateOf(t, timezone)))];
}
