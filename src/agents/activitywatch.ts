/**
 * ActivityWatch window time as Daybook activities (issue 20; docs/activitywatch.md): pure
 * functions shared by the agent (./activitywatch-sync.ts), which reads a running aw-server, and
 * `daybook import --from activitywatch`, which reads aw-server's export file.
 *
 * Both must give the same activities with the same ids for the same time, whatever window of time
 * they read, so that an import and the agent agree and re-reading changes nothing. Hence:
 * - a window event's time is cut at every whole UTC hour before anything else, and a reader only
 *   ever starts reading at a whole hour: aw-server trims events to the window it is asked for,
 *   and a cut there then falls where a cut is anyway;
 * - pieces are merged only within their hour, so what lies before the window cannot change them;
 * - an activity's id hashes its host, start, app and title, not its end, so an event that grows
 *   (aw heartbeats extend the last event) keeps its id and is posted again, longer.
 */
import { createHash } from 'node:crypto';

/** An event as aw-server answers it (aw-core models.py `to_json_dict`): seconds, ISO 8601 UTC. */
interface AwEvent {
  timestamp: string;
  duration: number;
  data: Record<string, unknown>;
}

/** A span of time in Unix milliseconds, `start` < `end`. */
export interface Span {
  start: number;
  end: number;
}

interface WindowSpan extends Span {
  app: string;
  title: string;
}

/** What POST /activities takes (and the dataset's activity without `userId`). */
export interface AgentActivity {
  id: string;
  start: string;
  durationMinutes: number;
  headline: string;
}

const HOUR_MS = 3_600_000;
/**
 * Pieces of the same app and title at most this far apart are one activity, the gap counted:
 * aw-watcher-window polls every second and merges heartbeats up to 1 s apart (pulsetime), so a
 * gap of a few seconds is a late poll or a title flicker, not a pause.
 */
export const MERGE_GAP_MS = 5_000;
/** Pieces shorter than this are dropped (a window passed over on the way to another). */
const MIN_PIECE_MS = 1_000;
/** Daybook's headline limit (docs/api.md, POST /activities). */
const MAX_HEADLINE = 300;
/** The headline of a window with neither app nor title. */
const NO_WINDOW = 'Unknown window';

export const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS;

/**
 * An aw timestamp in Unix milliseconds, or NaN. aw-core writes Python's `isoformat()` (`+00:00`,
 * microseconds); one without an offset is UTC there (aw-core `_timestamp_parse`), so here too.
 */
export function parseAwTimestamp(value: unknown): number {
  if (typeof value !== 'string') return Number.NaN;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(value)) return Number.NaN;
  return Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`);
}

/** The events of a JSON value that look like aw events (others skipped), as spans with their data. */
function eventSpans(events: unknown): (Span & { data: Record<string, unknown> })[] {
  if (!Array.isArray(events)) return [];
  const spans: (Span & { data: Record<string, unknown> })[] = [];
  for (const event of events as Partial<AwEvent>[]) {
    if (typeof event !== 'object' || event === null) continue;
    const start = parseAwTimestamp(event.timestamp);
    const seconds = event.duration ?? 0;
    if (!Number.isFinite(start) || typeof seconds !== 'number' || !(seconds > 0)) continue;
    const data = typeof event.data === 'object' && event.data !== null ? event.data : {};
    // Whole milliseconds, as aw-core keeps its timestamps.
    spans.push({ start, end: Math.round(start + seconds * 1000), data });
  }
  return spans.sort((a, b) => a.start - b.start || a.end - b.end);
}

/** The not-afk time of aw-watcher-afk events, as sorted, disjoint spans. */
export function notAfkSpans(afkEvents: unknown): Span[] {
  const union: Span[] = [];
  for (const { start, end, data } of eventSpans(afkEvents)) {
    if (data.status !== 'not-afk') continue;
    const last = union.at(-1);
    if (last && start <= last.end) last.end = Math.max(last.end, end);
    else union.push({ start, end });
  }
  return union;
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * aw-watcher-window events as sorted, disjoint spans. Where two overlap (a watcher should not, but
 * a restart or a clock step can), the one that ends later holds the overlap (on a tie, the first
 * by app, then title): a rule that ends decide, not starts, which aw-server moves when it trims
 * events to the window it is asked for.
 */
function windowSpans(windowEvents: unknown, from: number, to: number): WindowSpan[] {
  // Trimmed first, as aw-server trims what it answers, so that a file and a server agree.
  const events = intersectSpans(eventSpans(windowEvents), [{ start: from, end: to }]).map(({ start, end, data }) => ({
    start,
    end,
    app: text(data.app),
    title: text(data.title),
  }));
  const points = [...new Set(events.flatMap((e) => [e.start, e.end]))].sort((a, b) => a - b);
  const before = (a: WindowSpan, b: WindowSpan) =>
    a.end !== b.end ? a.end > b.end : a.app !== b.app ? a.app < b.app : a.title < b.title;
  const out: WindowSpan[] = [];
  let active: WindowSpan[] = [];
  let next = 0;
  for (let i = 0; i + 1 < points.length; i++) {
    const start = points[i]!;
    const end = points[i + 1]!;
    while (next < events.length && events[next]!.start <= start) active.push(events[next++]!);
    active = active.filter((e) => e.end > start);
    if (active.length === 0) continue;
    const holder = active.reduce((best, e) => (before(e, best) ? e : best));
    const last = out.at(-1);
    if (last && last.end === start && last.app === holder.app && last.title === holder.title) last.end = end;
    else out.push({ start, end, app: holder.app, title: holder.title });
  }
  return out;
}

/** The parts of `spans` (sorted by start) that lie within `keep` (sorted, disjoint), in order. */
export function intersectSpans<T extends Span>(spans: readonly T[], keep: readonly Span[]): T[] {
  const out: T[] = [];
  let k = 0;
  for (const span of spans) {
    while (k < keep.length && keep[k]!.end <= span.start) k++;
    for (let j = k; j < keep.length && keep[j]!.start < span.end; j++) {
      const start = Math.max(span.start, keep[j]!.start);
      const end = Math.min(span.end, keep[j]!.end);
      if (end > start) out.push({ ...span, start, end });
    }
  }
  return out;
}

/** `spans` cut at every whole UTC hour, so that no piece crosses one. */
export function cutAtHours<T extends Span>(spans: readonly T[]): T[] {
  const out: T[] = [];
  for (const span of spans) {
    let start = span.start;
    while (floorHour(start) + HOUR_MS < span.end) {
      const cut = floorHour(start) + HOUR_MS;
      out.push({ ...span, start, end: cut });
      start = cut;
    }
    out.push({ ...span, start });
  }
  return out;
}

/**
 * Consecutive pieces (sorted, disjoint, none crossing an hour) of the same app and title within
 * the same hour and at most MERGE_GAP_MS apart, as one spanning both and the gap between.
 */
export function mergeConsecutive(spans: readonly WindowSpan[], maxGapMs = MERGE_GAP_MS): WindowSpan[] {
  const out: WindowSpan[] = [];
  for (const span of spans) {
    const last = out.at(-1);
    if (
      last &&
      last.app === span.app &&
      last.title === span.title &&
      span.start - last.end <= maxGapMs &&
      floorHour(last.start) === floorHour(span.start)
    ) {
      last.end = Math.max(last.end, span.end);
    } else {
      out.push({ ...span });
    }
  }
  return out;
}

/** `<app>: <title>`, either alone when the other is blank, cut to 300 characters without splitting one. */
export function headlineOf(app: string, title: string): string {
  const parts = [app, title].map((s) => s.toWellFormed().replaceAll('\u0000', '').trim()).filter((s) => s !== '');
  let headline = parts.join(': ') || NO_WINDOW;
  if (headline.length > MAX_HEADLINE) {
    // Never end on the first half of a surrogate pair: that half alone is refused.
    const cut = /[\uD800-\uDBFF]/.test(headline[MAX_HEADLINE - 1]!) ? MAX_HEADLINE - 1 : MAX_HEADLINE;
    headline = headline.slice(0, cut).trimEnd();
  }
  return headline;
}

/** The activity id of a piece: the same host, start, app and title always give the same id. */
export function activityId(host: string, start: number, app: string, title: string): string {
  const hash = createHash('sha256')
    .update(JSON.stringify([host, start, app, title]))
    .digest('hex');
  return `aw_${hash.slice(0, 40)}`;
}

export interface WindowTimeInput {
  /** The host the buckets belong to (part of every id). */
  host: string;
  /** aw-watcher-window events (aw-server's answer or an export's `events`), in any order. */
  windowEvents: unknown;
  /** aw-watcher-afk events; null when the host has no afk bucket (all window time counts). */
  afkEvents: unknown;
  /** Only time in [from, to); `from` must be a whole UTC hour (or -Infinity) for stable ids. */
  from: number;
  to: number;
}

/** Not-afk window time of one host as Daybook activities, sorted by start. */
export function windowActivities({ host, windowEvents, afkEvents, from, to }: WindowTimeInput): AgentActivity[] {
  let spans = windowSpans(windowEvents, from, to);
  if (afkEvents !== null) spans = intersectSpans(spans, notAfkSpans(afkEvents));
  // Sub-second pieces go before merging, so that a window passed over does not split the one around it.
  return mergeConsecutive(cutAtHours(spans).filter((s) => s.end - s.start >= MIN_PIECE_MS)).map((s) => ({
    id: activityId(host, s.start, s.app, s.title),
    start: new Date(s.start).toISOString(),
    durationMinutes: (s.end - s.start) / 60_000,
    headline: headlineOf(s.app, s.title),
  }));
}

const WINDOW_PREFIX = 'aw-watcher-window_';
const AFK_PREFIX = 'aw-watcher-afk_';

/** A bucket as GET /api/0/buckets/ and the export describe it (aw-core schemas/bucket.json). */
export interface AwBucket {
  id: string;
  hostname?: unknown;
}

export interface HostBuckets {
  host: string;
  windowId: string;
  afkId: string | null;
}

/**
 * The window buckets, each with the afk bucket of the same host (by `hostname`, else the id's
 * part after `_`), in id order.
 */
export function pairBuckets(buckets: readonly AwBucket[]): HostBuckets[] {
  const hostOf = (b: AwBucket, prefix: string) =>
    typeof b.hostname === 'string' && b.hostname !== '' ? b.hostname : b.id.slice(prefix.length);
  const afk = new Map<string, string>();
  for (const b of [...buckets].sort((x, y) => (x.id < y.id ? -1 : 1))) {
    const host = hostOf(b, AFK_PREFIX);
    if (b.id.startsWith(AFK_PREFIX) && !afk.has(host)) afk.set(host, b.id);
  }
  return buckets
    .filter((b) => b.id.startsWith(WINDOW_PREFIX))
    .sort((x, y) => (x.id < y.id ? -1 : 1))
    .map((b) => {
      const host = hostOf(b, WINDOW_PREFIX);
      return { host, windowId: b.id, afkId: afk.get(host) ?? null };
    });
}

/**
 * The activities of an aw-server export (`GET /api/0/export`: `{"buckets": {"<id>": {…, "events":
 * […]}}}`) up to `now`, every host's, sorted by start; the same pieces and ids as the agent's.
 */
export function exportActivities(doc: unknown, now: number): AgentActivity[] {
  const raw = (doc as { buckets?: unknown } | null)?.buckets;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new Error('not an ActivityWatch export: no "buckets" object');
  }
  const buckets = new Map<string, AwBucket & { events?: unknown }>();
  for (const [id, bucket] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof bucket === 'object' && bucket !== null) buckets.set(id, { ...(bucket as object), id });
  }
  return pairBuckets([...buckets.values()])
    .flatMap(({ host, windowId, afkId }) =>
      windowActivities({
        host,
        windowEvents: buckets.get(windowId)!.events,
        afkEvents: afkId === null ? null : (buckets.get(afkId)!.events ?? []),
        from: Number.NEGATIVE_INFINITY,
        to: now,
      }),
    )
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.id < b.id ? -1 : 1));
}
