/**
 * Support for the delivery tests that run `daybook serve` processes (processes.test.ts): a
 * webhook consumer on loopback that verifies Standard Webhooks signatures and records every
 * request, users with tracked time on recent days, and their webhook destinations.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { addDays, localDateOf } from '../../src/lib/time.ts';
import type { Dialect } from '../../src/storage/database.ts';
import { call, createTestApp, type TestDatabase } from '../helper.ts';

/** One request the receiver got. */
interface Received {
  webhookId: string;
  /** The destination's path on the receiver: `/hook/<user id>`. */
  path: string;
  /** Whether `webhook-signature` verified with the destination's secret. */
  verified: boolean;
  type: string | null;
  userId: string | null;
  level: string | null;
  start: string | null;
  /** When it arrived (Unix ms). */
  at: number;
  /** The status it was answered, or `hold` for a request never answered. */
  answer: number | 'hold';
}

/** What the receiver does with its `index`th request (from 0): answers a status, or never answers. */
type Answer = (received: Received, index: number) => number | 'hold';

export interface Receiver {
  url: string;
  received: Received[];
  /** The most requests it was answering at one moment. */
  readonly maxInFlight: number;
  /** How the next requests are answered; 200 to all by default. */
  answer: Answer;
  /** Answers nothing until release(): the requests wait, as at a receiver that stalls. */
  hold(): void;
  release(): void;
  /** Requests to `/hook/<userId>` are verified with `secret`. */
  addSecret(path: string, secret: string): void;
  /** Resolves with the `index`th request (from 0) once it has arrived. */
  request(index: number): Promise<Received>;
  close(): Promise<void>;
}

/** A webhook consumer on 127.0.0.1 that answers each request after `delayMs`. */
export async function startReceiver({ delayMs = 0 }: { delayMs?: number } = {}): Promise<Receiver> {
  const secrets = new Map<string, string>();
  const received: Received[] = [];
  const waiting: (() => void)[] = [];
  const held: ServerResponse[] = [];
  let gate: { opened: Promise<void>; open: () => void } | null = null;
  let inFlight = 0;
  let maxInFlight = 0;
  const verify = (path: string, body: string, headers: IncomingHttpHeaders) => {
    const secret = secrets.get(path);
    if (!secret) return false;
    try {
      new Webhook(secret).verify(body, headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  };
  const server = createServer(async (req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '';
    let payload: { type?: string; data?: { userId?: string; level?: string; start?: string } } = {};
    try {
      payload = JSON.parse(body);
    } catch {
      // recorded as is; the signature check fails it
    }
    const record: Received = {
      webhookId: String(req.headers['webhook-id'] ?? ''),
      path,
      verified: verify(path, body, req.headers),
      type: payload.type ?? null,
      userId: payload.data?.userId ?? null,
      level: payload.data?.level ?? null,
      start: payload.data?.start ?? null,
      at: Date.now(),
      answer: 200,
    };
    record.answer = receiver.answer(record, received.length);
    received.push(record);
    for (const wake of waiting.splice(0)) wake();
    if (record.answer === 'hold') {
      held.push(res);
      return;
    }
    const status = record.answer;
    await gate?.opened;
    setTimeout(() => res.writeHead(status, { 'content-type': 'text/plain' }).end(String(status)), delayMs);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}`,
    received,
    get maxInFlight() {
      return maxInFlight;
    },
    answer: () => 200,
    hold: () => {
      let open = () => {};
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      gate = { opened, open };
    },
    release: () => {
      gate?.open();
      gate = null;
    },
    addSecret: (path, secret) => secrets.set(path, secret),
    request: async (index) => {
      while (received.length <= index) await new Promise<void>((resolve) => waiting.push(resolve));
      return received[index]!;
    },
    close: async () => {
      receiver.release();
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return receiver;
}

export interface WorkUser {
  id: string;
  /** An API key with `activity:write` and `destinations:write`. */
  key: string;
}

/** `count` users in UTC, each with a key, and no activity yet. */
export function workUsers(count: number): { users: WorkUser[]; dataset: object } {
  const users = Array.from({ length: count }, (_, i) => {
    const id = `u_dlv${String(i + 1).padStart(2, '0')}`;
    return { id, key: `dbk_test_delivery_${id}_0123456789abcdef` };
  });
  return {
    users,
    dataset: {
      version: 1,
      users: users.map((u) => ({ id: u.id, email: `${u.id}@example.com`, name: `User ${u.id}` })),
      apiKeys: users.map((u) => ({
        userId: u.id,
        name: 'delivery',
        key: u.key,
        scopes: ['activity:write', 'destinations:write', 'summaries:read'],
      })),
    },
  };
}

/** The UTC date `daysAgo` days before the machine's clock: periods the servers find ended. */
export const daysAgo = (days: number) => addDays(localDateOf(Date.now(), 'UTC'), -days);

/** An hour of work at 09:00 UTC on each of `dates`, as a POST /activities body. */
export function workOn(userId: string, dates: string[]) {
  return {
    activities: dates.map((date) => ({
      id: `a_${userId}_${date}`,
      start: `${date}T09:00:00Z`,
      durationMinutes: 60,
      headline: `Work of ${date}`,
    })),
  };
}

/**
 * A webhook destination of day summaries for each user, made through the API (on an app of this
 * process, on the same database), pointing at `/hook/<user id>` of the receiver, whose secrets
 * it registers. Returns the destination ids by user.
 */
export async function webhookDestinations(
  dialect: Dialect,
  database: TestDatabase,
  receiver: Receiver,
  users: WorkUser[],
): Promise<Map<string, string>> {
  const t = await createTestApp(dialect, {
    database,
    dataset: null,
    now: Date.now(),
    config: { deliveryAllowPrivate: true },
  });
  const ids = new Map<string, string>();
  try {
    for (const user of users) {
      const path = `/hook/${user.id}`;
      const created = await call(t.app, 'POST', '/destinations', {
        key: user.key,
        body: { kind: 'webhook', url: `${receiver.url}${path}`, levels: ['day'] },
      });
      assert.equal(created.status, 201, created.body);
      receiver.addSecret(path, created.json.secret);
      ids.set(user.id, created.json.destination.id);
    }
  } finally {
    await t.close();
  }
  return ids;
}

/** SIGTERM, and how the process ended and how long it took; fails if it takes longer than `ms`. */
export async function terminate(child: ChildProcess, ms: number): Promise<{ code: number | null; tookMs: number }> {
  const started = Date.now();
  const exited = once(child, 'exit') as Promise<[number | null]>;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the server did not exit within ${ms / 1000} s of SIGTERM`)), ms);
  });
  try {
    const [code] = await Promise.race([exited, late]);
    return { code, tookMs: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}
