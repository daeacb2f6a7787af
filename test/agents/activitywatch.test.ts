/**
 * The pure part of the ActivityWatch agent (src/agents/activitywatch.ts): not-afk intersection,
 * cuts at whole hours, merging of consecutive pieces, headlines, ids, and that reading any
 * window that starts at a whole hour gives the same activities as reading everything.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  MERGE_GAP_MS,
  activityId,
  cutAtHours,
  exportActivities,
  headlineOf,
  intersectSpans,
  mergeConsecutive,
  notAfkSpans,
  pairBuckets,
  parseAwTimestamp,
  windowActivities,
} from '../../src/agents/activitywatch.ts';

const RUNS = Number(process.env.DAYBOOK_FUZZ_RUNS ?? 500);
const T = (hhmmss: string) => Date.parse(`2026-11-22T${hhmmss}Z`);
const ev = (start: string, seconds: number, data: Record<string, unknown>) => ({
  timestamp: `2026-11-22T${start}+00:00`,
  duration: seconds,
  data,
});
const win = (start: string, seconds: number, app: string, title: string) => ev(start, seconds, { app, title });
const afk = (start: string, seconds: number, status: 'afk' | 'not-afk') => ev(start, seconds, { status });
const piece = (start: string, end: string, app = 'Code', title = 'main.ts') => ({
  start: T(start),
  end: T(end),
  app,
  title,
});

test('aw timestamps: isoformat with microseconds and +00:00, Z, and no offset as UTC', () => {
  assert.equal(parseAwTimestamp('2026-11-22T09:00:00.250000+00:00'), T('09:00:00.250'));
  assert.equal(parseAwTimestamp('2026-11-22T10:00:00+01:00'), T('09:00:00'));
  assert.equal(parseAwTimestamp('2026-11-22T09:00:00Z'), T('09:00:00'));
  assert.equal(parseAwTimestamp('2026-11-22T09:00:00.5'), T('09:00:00.500'));
  assert.ok(Number.isNaN(parseAwTimestamp('Nov 22 2026')));
  assert.ok(Number.isNaN(parseAwTimestamp(1795338000000)));
});

test('not-afk spans: only not-afk events, overlapping and touching ones joined', () => {
  assert.deepEqual(
    notAfkSpans([
      afk('09:10:00', 600, 'not-afk'),
      afk('09:00:00', 600, 'not-afk'),
      afk('09:20:00', 300, 'afk'),
      afk('09:25:00', 60, 'not-afk'),
      afk('09:25:30', 60, 'not-afk'),
      { timestamp: 'garbage', duration: 5, data: { status: 'not-afk' } },
    ]),
    [
      { start: T('09:00:00'), end: T('09:20:00') },
      { start: T('09:25:00'), end: T('09:26:30') },
    ],
  );
});

test('intersection keeps the parts inside the kept spans, one span crossing several', () => {
  const keep = [
    { start: T('09:05:00'), end: T('09:10:00') },
    { start: T('09:20:00'), end: T('09:30:00') },
  ];
  assert.deepEqual(intersectSpans([piece('09:00:00', '09:25:00'), piece('09:28:00', '09:40:00')], keep), [
    piece('09:05:00', '09:10:00'),
    piece('09:20:00', '09:25:00'),
    piece('09:28:00', '09:30:00'),
  ]);
  assert.deepEqual(intersectSpans([piece('09:10:00', '09:20:00')], keep), [], 'touching edges keep nothing');
});

test('cuts at whole UTC hours: no piece crosses one, an hour-long piece stays whole', () => {
  assert.deepEqual(cutAtHours([piece('09:50:00', '12:10:00')]), [
    piece('09:50:00', '10:00:00'),
    piece('10:00:00', '11:00:00'),
    piece('11:00:00', '12:00:00'),
    piece('12:00:00', '12:10:00'),
  ]);
  assert.deepEqual(cutAtHours([piece('10:00:00', '11:00:00')]), [piece('10:00:00', '11:00:00')]);
});

test(`merges the same app and title at most ${MERGE_GAP_MS / 1000} s apart within an hour, gap counted`, () => {
  assert.deepEqual(
    mergeConsecutive([
      piece('09:00:00', '09:10:00'),
      piece('09:10:05', '09:20:00'),
      piece('09:20:05.001', '09:30:00'),
      piece('09:30:00', '09:40:00', 'Code', 'other.ts'),
      piece('09:40:00', '09:50:00'),
      piece('09:50:00', '10:00:00'),
      piece('10:00:00', '10:10:00'),
    ]),
    [
      piece('09:00:00', '09:20:00'),
      piece('09:20:05.001', '09:30:00'),
      piece('09:30:00', '09:40:00', 'Code', 'other.ts'),
      piece('09:40:00', '10:00:00'),
      piece('10:00:00', '10:10:00'),
    ],
  );
});

test('headline: "<app>: <title>", one alone when the other is blank, never blank, at most 300 characters', () => {
  assert.equal(headlineOf('Firefox', 'Daybook docs'), 'Firefox: Daybook docs');
  assert.equal(headlineOf('Terminal', '  '), 'Terminal');
  assert.equal(headlineOf('', 'Untitled.txt'), 'Untitled.txt');
  assert.equal(headlineOf(' ', ''), 'Unknown window');
  assert.equal(headlineOf('App', 'x'.repeat(400)).length, 300);
  const emoji = headlineOf('A', `${'x'.repeat(296)}😀😀`);
  assert.equal(emoji.length, 299, 'a surrogate pair is not split');
  assert.ok(emoji.isWellFormed());
  assert.equal(headlineOf('App', 'bad \ud800 half\u0000'), 'App: bad \ufffd half');
});

test('ids: the same host, start, app and title give the same id, any other differs; valid dataset ids', () => {
  const id = activityId('laptop', T('09:00:00'), 'Code', 'main.ts');
  assert.match(id, /^aw_[0-9a-f]{40}$/);
  assert.equal(id, activityId('laptop', T('09:00:00'), 'Code', 'main.ts'));
  for (const other of [
    activityId('desktop', T('09:00:00'), 'Code', 'main.ts'),
    activityId('laptop', T('09:00:01'), 'Code', 'main.ts'),
    activityId('laptop', T('09:00:00'), 'Code ', 'main.ts'),
    activityId('laptop', T('09:00:00'), 'Code', 'main.ts '),
  ])
    assert.notEqual(other, id);
});

test('window activities: not-afk time only, afk edges cut, sub-second pieces and the future dropped', () => {
  const activities = windowActivities({
    host: 'laptop',
    windowEvents: [
      win('08:50:00', 600, 'Terminal', 'build'),
      win('09:00:00', 600, 'Code', 'main.ts'),
      win('09:10:00', 0.4, 'Firefox', 'flash'),
      win('09:10:00.400', 1799.6, 'Code', 'main.ts'),
      win('09:40:00', 1800, 'Slack', 'general'),
    ],
    afkEvents: [
      afk('08:55:00', 1500, 'not-afk'),
      afk('09:20:00', 300, 'afk'),
      afk('09:25:00', 1500, 'not-afk'),
      afk('09:50:00', 3600, 'afk'),
    ],
    from: T('08:00:00'),
    to: T('09:45:00'),
  });
  assert.deepEqual(
    activities.map((a) => [a.start, a.durationMinutes, a.headline]),
    [
      ['2026-11-22T08:55:00.000Z', 5, 'Terminal: build'],
      ['2026-11-22T09:00:00.000Z', 20, 'Code: main.ts'],
      ['2026-11-22T09:25:00.000Z', 15, 'Code: main.ts'],
      ['2026-11-22T09:40:00.000Z', 5, 'Slack: general'],
    ],
  );
  assert.equal(activities[1]!.id, activityId('laptop', T('09:00:00'), 'Code', 'main.ts'));
});

test('a host without an afk bucket counts all its window time; overlapping window events count once, the later-ending holding the overlap', () => {
  const activities = windowActivities({
    host: 'h',
    windowEvents: [
      win('09:00:00', 600, 'A', 'a'),
      win('09:05:00', 600, 'B', 'b'),
      win('09:20:00', 60, 'C', 'c'),
      win('09:20:30', 15, 'D', 'd'),
    ],
    afkEvents: null,
    from: Number.NEGATIVE_INFINITY,
    to: T('12:00:00'),
  });
  assert.deepEqual(
    activities.map((a) => [a.start, a.durationMinutes * 60, a.headline]),
    [
      ['2026-11-22T09:00:00.000Z', 300, 'A: a'],
      ['2026-11-22T09:05:00.000Z', 600, 'B: b'],
      ['2026-11-22T09:20:00.000Z', 60, 'C: c'],
    ],
  );
});

test('buckets pair by host; the window bucket of a host without afk gets none', () => {
  assert.deepEqual(
    pairBuckets([
      { id: 'aw-watcher-afk_laptop', hostname: 'laptop' },
      { id: 'aw-watcher-window_laptop', hostname: 'laptop' },
      { id: 'aw-watcher-window_server' },
      { id: 'aw-watcher-web-firefox', hostname: 'laptop' },
    ]),
    [
      { host: 'laptop', windowId: 'aw-watcher-window_laptop', afkId: 'aw-watcher-afk_laptop' },
      { host: 'server', windowId: 'aw-watcher-window_server', afkId: null },
    ],
  );
});

test('an export gives every host its activities; a file without buckets is refused', () => {
  const doc = {
    buckets: {
      'aw-watcher-window_a': { id: 'aw-watcher-window_a', hostname: 'a', events: [win('09:00:00', 60, 'X', 'x')] },
      'aw-watcher-window_b': { id: 'aw-watcher-window_b', hostname: 'b', events: [win('08:00:00', 60, 'Y', 'y')] },
      'aw-watcher-afk_b': { id: 'aw-watcher-afk_b', hostname: 'b', events: [] },
    },
  };
  assert.deepEqual(
    exportActivities(doc, T('12:00:00')).map((a) => a.headline),
    ['X: x'],
    'b has an afk bucket with no not-afk time',
  );
  assert.throws(() => exportActivities({ version: 1 }, 0), /no "buckets" object/);
});

/** Random window and afk events over four hours from 08:00, in seconds. */
const arbitraryEvents = fc.record({
  window: fc.array(
    fc.record({
      at: fc.integer({ min: 0, max: 14_400 }),
      seconds: fc.integer({ min: 0, max: 5000 }),
      app: fc.constantFrom('A', 'B'),
    }),
    { maxLength: 40 },
  ),
  afk: fc.array(
    fc.record({
      at: fc.integer({ min: 0, max: 14_400 }),
      seconds: fc.integer({ min: 1, max: 3000 }),
      away: fc.boolean(),
    }),
    { maxLength: 20 },
  ),
  readFromHour: fc.integer({ min: 0, max: 4 }),
  /** Seconds after 12:00 when the reading ends (now). */
  endsAt: fc.integer({ min: 0, max: 3600 }),
});

/** The events as aw-server answers a read of [from, to]: the ones overlapping it, trimmed to it. */
function served(events: { timestamp: string; duration: number; data: object }[], from: number, to: number) {
  return events.flatMap((e) => {
    const start = Date.parse(e.timestamp);
    const end = start + e.duration * 1000;
    if (start > to || end < from) return [];
    const s = Math.max(start, from);
    return [{ timestamp: new Date(s).toISOString(), duration: (Math.min(end, to) - s) / 1000, data: e.data }];
  });
}

test('reading from any whole hour gives exactly the activities that start there of reading everything', () => {
  const base = T('08:00:00');
  fc.assert(
    fc.property(arbitraryEvents, ({ window, afk: afkEvents, readFromHour, endsAt }) => {
      const at = (s: number) => new Date(base + s * 1000).toISOString();
      const windowEvents = window.map((w) => ({
        timestamp: at(w.at),
        duration: w.seconds,
        data: { app: w.app, title: 't' },
      }));
      const afkList = afkEvents.map((a) => ({
        timestamp: at(a.at),
        duration: a.seconds,
        data: { status: a.away ? 'afk' : 'not-afk' },
      }));
      const to = base + 4 * 3_600_000 + endsAt * 1000;
      const all = windowActivities({ host: 'h', windowEvents, afkEvents: afkList, from: base, to });
      const from = base + readFromHour * 3_600_000;
      const part = windowActivities({
        host: 'h',
        windowEvents: served(windowEvents, from, to),
        afkEvents: served(afkList, from, to),
        from,
        to,
      });
      assert.deepEqual(
        part,
        all.filter((a) => Date.parse(a.start) >= from),
      );
      for (const a of all) assert.ok(a.durationMinutes > 0 && a.durationMinutes <= 60);
    }),
    { numRuns: RUNS },
  );
});
