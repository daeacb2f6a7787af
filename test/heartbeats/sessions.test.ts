/**
 * The session rule of decisions §8.6 as a table of hand-computed cases: the pure function
 * (services/heartbeats/sessions.ts), then every case through HTTP on both databases — the
 * heartbeats posted as wakatime-cli posts them, the time read back from /report.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Beat, blocksOf, piecesOfDay } from '../../src/services/heartbeats/sessions.ts';
import { type TestApp, call, forEachDialect } from '../helper.ts';
import { appOnDataset } from '../recording/world.ts';

const BERLIN = 'dbk_test_sessions_berlin_0123456789abcdef';
const TONGA = 'dbk_test_sessions_tonga_0123456789abcdef0';
const SCOPES = ['activity:write', 'reports:read'];
const sessionWorld = {
  version: 1,
  users: [
    { id: 'u_ber', email: 'ber@example.com', timezone: 'Europe/Berlin' },
    { id: 'u_ton', email: 'ton@example.com', timezone: 'Pacific/Tongatapu' },
  ],
  apiKeys: [
    { userId: 'u_ber', name: 'editor', key: BERLIN, scopes: SCOPES },
    { userId: 'u_ton', name: 'editor', key: TONGA, scopes: SCOPES },
  ],
};

/** Seconds of an instant written with its offset. */
const s = (iso: string) => Date.parse(iso) / 1000;
const hb = (time: number, project: string | null = 'Alpha', category = 'coding') => ({
  entity: 'src/main.ts',
  type: 'file',
  category,
  time,
  project,
  language: 'TypeScript',
  branch: 'main',
});

interface Case {
  name: string;
  key?: string;
  /** Requests in the order sent; each a list of heartbeats. */
  sent: ReturnType<typeof hb>[][];
  /** Expected minutes per local date: total, and by project name. */
  days: Record<string, { minutes: number; projects?: Record<string, number>; categories?: Record<string, number> }>;
  /** The UTC offset of the days checked. */
  offset?: string;
}

const CASES: Case[] = [
  {
    name: 'a lone heartbeat records nothing',
    sent: [[hb(s('2026-11-02T10:00:00+01:00'))]],
    days: { '2026-11-02': { minutes: 0 } },
  },
  {
    name: 'a gap of exactly the timeout counts',
    sent: [[hb(s('2026-11-03T10:00:00+01:00')), hb(s('2026-11-03T10:15:00+01:00'))]],
    days: { '2026-11-03': { minutes: 15 } },
  },
  {
    name: 'a gap one second over the timeout does not',
    sent: [[hb(s('2026-11-04T10:00:00+01:00')), hb(s('2026-11-04T10:15:01+01:00'))]],
    days: { '2026-11-04': { minutes: 0 } },
  },
  {
    name: 'a project switch: the first session runs to the next heartbeat',
    sent: [
      [
        hb(s('2026-11-05T10:00:00+01:00'), 'Alpha'),
        hb(s('2026-11-05T10:10:00+01:00'), 'Alpha'),
        hb(s('2026-11-05T10:20:00+01:00'), 'Beta'),
        hb(s('2026-11-05T10:25:00+01:00'), 'Beta'),
      ],
    ],
    days: { '2026-11-05': { minutes: 25, projects: { Alpha: 20, Beta: 5 } } },
  },
  {
    name: 'a category switch within one project',
    sent: [
      [
        hb(s('2026-11-06T10:00:00+01:00'), 'Alpha', 'coding'),
        hb(s('2026-11-06T10:05:00+01:00'), 'Alpha', 'coding'),
        hb(s('2026-11-06T10:10:00+01:00'), 'Alpha', 'debugging'),
      ],
    ],
    days: { '2026-11-06': { minutes: 10, categories: { Coding: 10 } } },
  },
  {
    name: 'time without a project',
    sent: [[hb(s('2026-11-07T10:00:00+01:00'), null), hb(s('2026-11-07T10:07:30+01:00'), null)]],
    days: { '2026-11-07': { minutes: 7.5, projects: {} } },
  },
  {
    name: '70 minutes of one session',
    sent: [Array.from({ length: 15 }, (_, i) => hb(s('2026-11-09T10:00:00+01:00') + i * 300))],
    days: { '2026-11-09': { minutes: 70 } },
  },
  {
    name: 'the night clocks go back in Berlin (02:50 CEST, 02:05 and 02:10 CET)',
    sent: [[hb(s('2026-10-25T00:50:00Z')), hb(s('2026-10-25T01:05:00Z')), hb(s('2026-10-25T01:10:00Z'))]],
    days: { '2026-10-25': { minutes: 20 } },
    offset: '+02:00',
  },
  {
    name: 'duplicates count once',
    sent: [
      [hb(s('2026-11-10T10:00:00+01:00')), hb(s('2026-11-10T10:10:00+01:00'))],
      [hb(s('2026-11-10T10:00:00+01:00')), hb(s('2026-11-10T10:10:00+01:00')), hb(s('2026-11-10T10:00:00+01:00'))],
    ],
    days: { '2026-11-10': { minutes: 10 } },
  },
  {
    name: 'shuffled arrival gives what in-order arrival gives',
    sent: [
      [hb(s('2026-11-11T10:20:00+01:00'))],
      [hb(s('2026-11-11T10:30:00+01:00'), 'Beta'), hb(s('2026-11-11T10:00:00+01:00'))],
      [hb(s('2026-11-11T10:10:00+01:00'))],
    ],
    days: { '2026-11-11': { minutes: 30, projects: { Alpha: 30 } } },
  },
  {
    name: 'a late heartbeat fills a gap (an offline queue sent later)',
    sent: [
      [hb(s('2026-11-16T10:00:00+01:00')), hb(s('2026-11-16T10:20:00+01:00'))],
      [hb(s('2026-11-16T10:10:00+01:00'))],
    ],
    days: { '2026-11-16': { minutes: 20 } },
  },
  {
    name: 'local midnight in a +13 zone cuts the session',
    key: TONGA,
    sent: [[hb(s('2026-11-12T23:50:00+13:00')), hb(s('2026-11-13T00:05:00+13:00'))]],
    days: { '2026-11-12': { minutes: 10 }, '2026-11-13': { minutes: 5 } },
    offset: '+13:00',
  },
];

describe('the session rule, as a pure function', () => {
  const beat = (iso: string, project: string | null = 'A', category = 'coding'): Beat => ({
    time: Date.parse(iso),
    project,
    category,
    entity: 'e',
    language: null,
    branch: null,
  });
  const FIFTEEN = 15 * 60_000;

  test('pieces of a day: sessions, switches, the trailing interval, midnight', () => {
    const beats = [
      beat('2026-11-05T22:50:00Z', 'A'),
      beat('2026-11-05T23:05:00Z', 'A'),
      beat('2026-11-05T23:10:00Z', 'B'),
      beat('2026-11-05T23:40:00Z', 'B'),
    ];
    // UTC: A runs 22:50 → 23:10 (to B's first heartbeat), B's lone heartbeat at 23:10 owns nothing
    // (23:40 is 30 minutes later), 23:40 is alone.
    assert.deepEqual(
      piecesOfDay(beats, '2026-11-05', 'UTC', FIFTEEN).map((p) => [p.project, p.start, p.end]),
      [['A', Date.parse('2026-11-05T22:50:00Z'), Date.parse('2026-11-05T23:10:00Z')]],
    );
    // Berlin: the day ended at 23:00 UTC; the 5 minutes after are the next day's.
    assert.deepEqual(
      piecesOfDay(beats, '2026-11-05', 'Europe/Berlin', FIFTEEN).map((p) => (p.end - p.start) / 60_000),
      [10],
    );
    assert.deepEqual(
      piecesOfDay(beats, '2026-11-06', 'Europe/Berlin', FIFTEEN).map((p) => [p.project, (p.end - p.start) / 60_000]),
      [['A', 10]],
    );
  });

  test('the order heartbeats come in does not matter; ties sort by project, category and entity', () => {
    const beats = [
      beat('2026-11-05T10:00:00Z', 'B'),
      beat('2026-11-05T10:00:00Z', 'A'),
      beat('2026-11-05T10:05:00Z', 'B'),
      beat('2026-11-05T10:09:00Z', 'A'),
    ];
    const expected = piecesOfDay(beats, '2026-11-05', 'UTC', FIFTEEN);
    for (const order of [
      [3, 2, 1, 0],
      [1, 3, 0, 2],
      [2, 0, 3, 1],
    ]) {
      assert.deepEqual(
        piecesOfDay(
          order.map((i) => beats[i]!),
          '2026-11-05',
          'UTC',
          FIFTEEN,
        ),
        expected,
      );
    }
    // At 10:00, A sorts first and owns nothing (B at the same instant follows it); B runs to 10:09.
    assert.deepEqual(
      expected.map((p) => [p.project, (p.end - p.start) / 60_000]),
      [['B', 9]],
    );
  });

  test('a piece as blocks of at most 60 minutes, the last holding the remainder', () => {
    const piece = { date: 'd', start: 0, end: 150 * 60_000, project: null, category: 'c', languages: [], branches: [] };
    assert.deepEqual(blocksOf(piece), [
      [0, 60],
      [3_600_000, 60],
      [7_200_000, 30],
    ]);
    assert.deepEqual(blocksOf({ ...piece, end: 120 * 60_000 }), [
      [0, 60],
      [3_600_000, 60],
    ]);
  });
});

forEachDialect('the session rule through /report', (dialect) => {
  let t: TestApp;
  appOnDataset(dialect, 'sessions', sessionWorld, (made) => {
    ({ t } = made);
  });

  for (const c of CASES) {
    test(c.name, async () => {
      const key = c.key ?? BERLIN;
      for (const beats of c.sent) {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/v1/users/current/heartbeats.bulk',
          headers: {
            authorization: `Basic ${Buffer.from(key).toString('base64')}`,
            'content-type': 'application/json',
          },
          payload: JSON.stringify(beats),
        });
        assert.equal(res.statusCode, 201, res.body);
      }
      for (const [date, expected] of Object.entries(c.days)) {
        const offset = c.offset ?? '+01:00';
        const res = await call(t.app, 'POST', '/report', {
          key,
          body: {
            dateRange: { from: Date.parse(`${date}T00:00:00${offset}`), to: Date.parse(`${date}T23:59:59${offset}`) },
            aggregationLevel: 'day',
          },
        });
        assert.equal(res.status, 200, res.body);
        const row = res.json.rows.find((r: { id: string }) => r.id === `day:${date}`);
        assert.equal(row?.duration ?? 0, expected.minutes, `${date}: ${res.body}`);
        if (expected.projects)
          assert.deepEqual(
            Object.fromEntries(
              (row?.projects ?? []).map((p: { name: string; minutes: number }) => [p.name, p.minutes]),
            ),
            expected.projects,
          );
        if (expected.categories)
          assert.deepEqual(
            Object.fromEntries(
              (row?.categories ?? []).map((p: { name: string; minutes: number }) => [p.name, p.minutes]),
            ),
            expected.categories,
          );
      }
    });
  }

  test('70 minutes are recorded as activities of 60 and 10 minutes', async () => {
    const res = await call(t.app, 'POST', '/report', {
      key: BERLIN,
      body: {
        dateRange: { from: Date.parse('2026-11-09T00:00:00+01:00'), to: Date.parse('2026-11-09T23:59:59+01:00') },
        aggregationLevel: 'activity',
      },
    });
    assert.deepEqual(
      res.json.rows.map((r: { timestampIso: string; duration: number }) => [r.timestampIso, r.duration]).sort(),
      [
        ['2026-11-09T09:00:00.000Z', 60],
        ['2026-11-09T10:00:00.000Z', 10],
      ],
    );
  });
});
