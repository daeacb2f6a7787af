/**
 * A server process keeps the heartbeats of large days between requests (services/heartbeats/
 * kept-days.ts). The time derived must be what the session rule gives for every heartbeat the
 * database holds, also when another process (here: a second storage on the same database) added
 * heartbeats to the day in between. Both databases.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import { addDays, firstInstantOfLocalDay } from '../../src/lib/time.ts';
import { type HeartbeatContext, recordHeartbeats } from '../../src/services/heartbeats/record.ts';
import { type Beat, blocksOf, piecesOfDay } from '../../src/services/heartbeats/sessions.ts';
import { loadViewer } from '../../src/services/projects/access.ts';
import { findUser } from '../../src/storage/accounts.ts';
import { openStorage, type Storage } from '../../src/storage/database.ts';
import { minutesOfDay } from '../../src/storage/heartbeats.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import { createSharedTestDatabase, DEFAULT_NOW, forEachDialect, type TestDatabase } from '../helper.ts';

const DATE = '2026-11-20';
const ZONE = 'Europe/Berlin';
const TIMEOUT_MS = 15 * 60_000;
const context: HeartbeatContext = { machine: 'box', userAgent: null, timeoutMinutes: 15, clock: () => DEFAULT_NOW };

interface Sent {
  time: number;
  entity: string;
  category: string;
  project: string;
  branch: string;
  language: string;
}

const dayStart = firstInstantOfLocalDay(DATE, ZONE);
/** A heartbeat `seconds` into the day. */
const beat = (seconds: number, project: string, n: number): Sent => ({
  time: dayStart / 1000 + seconds,
  entity: `/src/file-${n % 9}.ts`,
  category: n % 13 === 0 ? 'debugging' : 'coding',
  project,
  branch: n % 4 === 0 ? 'main' : 'topic',
  language: 'TypeScript',
});

/** The minutes the session rule gives the day for all of `sent`. */
function expectedMinutes(sent: Sent[]): number {
  const beats: Beat[] = sent.map((s) => ({ ...s, time: Math.round(s.time * 1000) }));
  return piecesOfDay(beats, DATE, ZONE, TIMEOUT_MS)
    .flatMap((p) => blocksOf(p))
    .reduce((sum, [, minutes]) => sum + minutes, 0);
}

forEachDialect('heartbeats of a large day kept between requests', (dialect) => {
  let database: TestDatabase;
  let other: Storage;
  const files = tempFiles();

  before(async () => {
    database = await createSharedTestDatabase(dialect);
    const file = files.write('user.json', {
      version: 1,
      users: [{ id: 'u_kept', email: 'kept@example.com', timezone: ZONE }],
    });
    await importDataset(database.storage, file);
    other = openStorage(database.url);
  });
  after(async () => {
    await other.close();
    await database.drop();
    files.remove();
  });

  const send = async (storage: Storage, beats: Sent[]) => {
    const user = (await findUser(storage.db, 'u_kept'))!;
    const caller = { user, viewer: await loadViewer(storage.db, 'u_kept') };
    const results = await recordHeartbeats(storage, caller, beats, context);
    assert.ok(results.every((r) => r.status === 201));
  };
  const recorded = async () =>
    (await minutesOfDay(database.storage.db, 'u_kept', DATE)).reduce((sum, r) => sum + r.minutes, 0);

  test('the time is the rule applied to every stored heartbeat, whatever another process added', async () => {
    const sent: Sent[] = [];
    const record = async (storage: Storage, beats: Sent[]) => {
      await send(storage, beats);
      sent.push(...beats);
      assert.ok(Math.abs((await recorded()) - expectedMinutes(sent)) < 1e-6);
    };
    // 1,200 heartbeats, 20 s apart, from 08:00: large enough to be kept.
    await record(
      database.storage,
      Array.from({ length: 1200 }, (_, n) => beat(8 * 3600 + n * 20, 'kept', n)),
    );
    // Another process adds an hour of another project after a gap, which only it has seen.
    await record(
      other,
      Array.from({ length: 30 }, (_, n) => beat(16 * 3600 + n * 120, 'elsewhere', n)),
    );
    // The first process adds to the day: its kept heartbeats lack the other's, so it reads the day.
    await record(database.storage, [beat(16 * 3600 + 3700, 'elsewhere', 1), beat(7 * 3600 + 1800, 'kept', 2)]);
    // Then again, now from what it kept: a late heartbeat in the middle splits a session.
    await record(database.storage, [beat(9 * 3600 + 7, 'late', 3)]);
    await record(database.storage, [beat(9 * 3600 + 8, 'late', 4), beat(20 * 3600, 'kept', 5)]);
    // A resent heartbeat adds nothing and changes nothing.
    await send(database.storage, [beat(9 * 3600 + 7, 'late', 3)]);
    assert.ok(Math.abs((await recorded()) - expectedMinutes(sent)) < 1e-6);
    assert.ok(expectedMinutes(sent) > 0);
  });

  test('the next day, which the first process never kept, is derived from its own heartbeats', async () => {
    const next = addDays(DATE, 1);
    const start = firstInstantOfLocalDay(next, ZONE) / 1000;
    await send(other, [
      { ...beat(0, 'kept', 1), time: start + 3600 },
      { ...beat(0, 'kept', 2), time: start + 3660 },
    ]);
    const minutes = (await minutesOfDay(database.storage.db, 'u_kept', next)).reduce((sum, r) => sum + r.minutes, 0);
    assert.equal(minutes, 1);
  });
});
