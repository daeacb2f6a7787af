/**
 * The ActivityWatch agent (`daybook agent activitywatch`, docs/activitywatch.md): reads the window
 * and afk buckets of a local aw-server, turns their not-afk window time into activities
 * (./activitywatch.ts) and records them with POST /activities, remembering in a small JSON file
 * how far it got.
 *
 * Each pass re-reads from a whole hour at least OVERLAP_MS before where the last one stopped: the
 * last window event is still growing while its window has the focus, and aw-watcher-afk learns
 * only after its timeout that the user left. Its pieces are posted again under the same ids
 * (POST /activities replaces them), and an id posted before that the re-read no longer gives (two
 * pieces that have since merged) is deleted, so no time counts twice.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { type AgentActivity, type AwBucket, floorHour, pairBuckets, windowActivities } from './activitywatch.ts';

/** How far before the last stop a pass reads again (then back to the whole hour). */
const OVERLAP_MS = 15 * 60_000;
/** Where a first pass without `since` starts. */
const FIRST_LOOKBACK_MS = 24 * 3_600_000;
/** A pass reads and posts at most this much time at once, saving its place after each. */
const CHUNK_MS = 24 * 3_600_000;
/** POST /activities takes at most this many items (docs/api.md)… */
const BATCH_ITEMS = 1000;
/** …in a body of at most 1 MiB: 1,000 long headlines of escaped or CJK text would not fit. */
const BATCH_BYTES = 900_000;
const REQUEST_TIMEOUT_MS = 30_000;

/** A failure that waiting will not cure (a refused key, a refused item): the agent stops. */
export class AgentError extends Error {}

/** A failure that may pass (a server down, restarting or busy): the pass is tried again later. */
class Unavailable extends Error {}

export interface AgentOptions {
  /** aw-server's base URL, as `http://127.0.0.1:5600`. */
  awUrl: string;
  /** Daybook's base URL. */
  server: string;
  key: string;
  statePath: string;
  /** Read from here (Unix ms) instead of where the state file says (or 24 hours back). */
  since?: number;
  now?: () => number;
  /** How the agent waits between attempts and passes; ends early when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** First wait after a failed attempt, doubled each time up to `retryCapMs`. */
  retryBaseMs?: number;
  retryCapMs?: number;
  log: (line: string) => void;
}

export interface PassResult {
  /** Activities posted that Daybook did not hold yet. */
  created: number;
  /** Activities posted again (re-read, perhaps longer now). */
  updated: number;
  /** Activities deleted because a re-read no longer gave them. */
  removed: number;
  /** Where the pass stopped: the next one reads again from a little before. */
  until: number;
}

interface AgentState {
  version: 1;
  /** Where the last pass stopped, ISO 8601. */
  until: string;
  /** Ids posted that a later pass may still re-read, with their starts. */
  recent: Record<string, string>;
}

async function readState(path: string): Promise<AgentState | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let state: Partial<AgentState>;
  try {
    state = (JSON.parse(text) ?? {}) as Partial<AgentState>;
  } catch {
    state = {};
  }
  if (state.version !== 1 || typeof state.until !== 'string' || Number.isNaN(Date.parse(state.until))) {
    throw new AgentError(
      `${path} is not a state file of this agent (delete it to start from --since or 24 hours back)`,
    );
  }
  return { version: 1, until: state.until, recent: state.recent ?? {} };
}

/** Written whole or not at all: a crash mid-write leaves the old state. */
async function writeState(path: string, state: AgentState): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(state, null, 2)}\n`);
  await rename(temp, path);
}

const RETRY_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);

async function request(what: string, url: string, init: RequestInit = {}): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    throw new Unavailable(`${what} unreachable at ${new URL(url).origin} (${cause})`);
  }
  const body = await response.text();
  if (response.ok) return body === '' ? null : JSON.parse(body);
  const message = (() => {
    try {
      return (JSON.parse(body) as { message?: string }).message ?? body;
    } catch {
      return body;
    }
  })();
  const failure = `${what} answered ${response.status}${message ? `: ${message}` : ''}`;
  if (RETRY_STATUSES.has(response.status) || response.status >= 500) throw new Unavailable(failure);
  throw new AgentError(failure);
}

const iso = (ms: number) => new Date(ms).toISOString();
const trimSlash = (url: string) => url.replace(/\/+$/, '');

function awClient(base: string) {
  const root = `${trimSlash(base)}/api/0`;
  return {
    /** GET /api/0/buckets/ answers `{"<id>": {id, type, client, hostname, …}}` (aw-server rest.py). */
    buckets: async (): Promise<AwBucket[]> => {
      const found = await request('aw-server', `${root}/buckets/`);
      if (typeof found !== 'object' || found === null) throw new AgentError('aw-server: buckets: not an object');
      return Object.entries(found).map(([id, b]) => ({ ...(b as object), id }));
    },
    /** All events overlapping [start, end], trimmed to it by the server (aw-core peewee.py get_events); no `limit`, which aw-server-rust reads as unsigned. */
    events: (bucket: string, start: number, end: number) =>
      request('aw-server', `${root}/buckets/${encodeURIComponent(bucket)}/events?start=${iso(start)}&end=${iso(end)}`),
  };
}

function daybookClient(base: string, key: string) {
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  return {
    post: (activities: AgentActivity[]) =>
      request('Daybook', `${trimSlash(base)}/activities`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ activities }),
      }),
    remove: async (id: string) => {
      try {
        await request('Daybook', `${trimSlash(base)}/activities/${encodeURIComponent(id)}`, {
          method: 'DELETE',
          headers: { 'x-api-key': key },
        });
      } catch (err) {
        // Already gone (deleted by hand): what was wanted.
        if (!(err instanceof AgentError && / 404\b/.test(err.message))) throw err;
      }
    },
  };
}

/** `activities` in request bodies POST /activities takes. */
function* batches(activities: AgentActivity[]): Generator<AgentActivity[]> {
  let batch: AgentActivity[] = [];
  let bytes = 0;
  for (const a of activities) {
    const size = Buffer.byteLength(JSON.stringify(a)) + 1;
    if (batch.length === BATCH_ITEMS || (batch.length > 0 && bytes + size > BATCH_BYTES)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(a);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}

/**
 * One pass: from where the state file says (or `since`) up to now, posting every host's window
 * time and saving the state after each day read. Fails with Unavailable or AgentError.
 */
async function pass(options: AgentOptions, since: number | undefined, onSaved: () => void): Promise<PassResult> {
  const now = (options.now ?? Date.now)();
  const aw = awClient(options.awUrl);
  const daybook = daybookClient(options.server, options.key);
  const state = await readState(options.statePath);
  const recent = new Map(Object.entries(state?.recent ?? {}).map(([id, start]) => [id, Date.parse(start)]));
  const hosts = pairBuckets(await aw.buckets());
  let from = floorHour(since ?? (state ? Date.parse(state.until) - OVERLAP_MS : now - FIRST_LOOKBACK_MS));
  let created = 0;
  let updated = 0;
  let removed = 0;
  let until = from;
  while (from < now) {
    const to = Math.min(from + CHUNK_MS, now);
    const activities: AgentActivity[] = [];
    for (const { host, windowId, afkId } of hosts) {
      const windowEvents = await aw.events(windowId, from, to);
      const afkEvents = afkId === null ? null : await aw.events(afkId, from, to);
      activities.push(...windowActivities({ host, windowEvents, afkEvents, from, to }));
    }
    for (const batch of batches(activities)) {
      const answer = (await daybook.post(batch)) as { created?: number; updated?: number };
      created += answer?.created ?? 0;
      updated += answer?.updated ?? 0;
    }
    const ids = new Set(activities.map((a) => a.id));
    for (const [id, start] of recent) {
      if (start >= from && start < to && !ids.has(id)) {
        await daybook.remove(id);
        recent.delete(id);
        removed++;
      }
    }
    for (const a of activities) recent.set(a.id, Date.parse(a.start));
    // Time well before now is final: the next day read need not read its end again.
    const next = floorHour(Math.min(to, now - OVERLAP_MS));
    for (const [id, start] of recent) if (start < next) recent.delete(id);
    until = to;
    await writeState(options.statePath, {
      version: 1,
      until: iso(to),
      recent: Object.fromEntries([...recent].map(([id, start]) => [id, iso(start)])),
    });
    onSaved();
    if (to >= now) break;
    from = next;
  }
  return { created, updated, removed, until };
}

const defaultSleep = (ms: number, signal?: AbortSignal) =>
  delay(ms, undefined, { signal }).catch((err: unknown) => {
    if ((err as Error).name !== 'AbortError') throw err;
  });

/**
 * A pass, tried again after 1, 2, 4 … seconds (up to `retryCapMs`, 5 minutes by default) while
 * aw-server or Daybook is unreachable or answers 5xx/429, at most `attempts` times in all; an
 * AgentError ends it at once. Each attempt reads the state file anew, so none repeats work saved.
 */
export async function syncWithRetry(
  options: AgentOptions,
  { attempts = Number.POSITIVE_INFINITY, signal }: { attempts?: number; signal?: AbortSignal } = {},
): Promise<PassResult | null> {
  const sleep = options.sleep ?? defaultSleep;
  const cap = options.retryCapMs ?? 300_000;
  let wait = options.retryBaseMs ?? 1000;
  // Once a pass has saved its place, a retry goes on from there.
  let since = options.since;
  for (let attempt = 1; ; attempt++) {
    try {
      return await pass(options, since, () => {
        since = undefined;
      });
    } catch (err) {
      if (!(err instanceof Unavailable)) throw err;
      if (attempt >= attempts) throw new AgentError(`${err.message}; gave up after ${attempt} attempts`);
      options.log(`${err.message}; trying again in ${Math.round(wait / 1000)} s`);
      await sleep(wait, signal);
      if (signal?.aborted) return null;
      wait = Math.min(wait * 2, cap);
    }
  }
}

/**
 * Passes every `intervalMs` until `signal` aborts (then resolves); `since` applies to the first.
 * Logs a pass that recorded something, and every failure it waits out.
 */
export async function runAgent(options: AgentOptions, intervalMs: number, signal: AbortSignal): Promise<void> {
  const sleep = options.sleep ?? defaultSleep;
  let first = true;
  while (!signal.aborted) {
    const result = await syncWithRetry(first ? options : { ...options, since: undefined }, { signal });
    first = false;
    if (result && (result.created > 0 || result.removed > 0)) options.log(describePass(result));
    if (!signal.aborted) await sleep(intervalMs, signal);
  }
}

export function describePass({ created, updated, removed, until }: PassResult): string {
  return `recorded ${created} new and ${updated} re-read activities${removed ? `, removed ${removed}` : ''}, up to ${iso(until)}`;
}
