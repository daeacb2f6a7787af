/**
 * Shared by the delivery tests (docs/delivery.md): stand-ins on 127.0.0.1 for Slack, Discord and
 * a webhook consumer that verifies every request with the `standardwebhooks` library, each
 * scriptable per request; a small world of users and keys; and a clock-driven worker, so every
 * retry step is reached without waiting for it.
 */
import assert from 'node:assert/strict';
import { type IncomingHttpHeaders, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after } from 'node:test';
import { Webhook } from 'standardwebhooks';
import type { Config } from '../../src/config.ts';
import { Metrics } from '../../src/http/metrics.ts';
import type { App } from '../../src/http/types.ts';
import { DeliveryWorker } from '../../src/services/delivery/worker.ts';
import { type GenerateStats, generateSummaries } from '../../src/services/summaries/generate.ts';
import type { Dialect } from '../../src/storage/database.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import { type TestApp, call, createTestApp, createTestDatabase } from '../helper.ts';

/** Ann's keys: every scope delivery needs, recording, and one without `destinations:write`. */
export const ANN = 'dbk_test_delivery_ann_0123456789abcdef01';
export const ANN_NO_DESTINATIONS = 'dbk_test_delivery_ann_nodest_0123456789a';
export const BEN = 'dbk_test_delivery_ben_0123456789abcdef01';

/**
 * Monday 2026-11-23, noon UTC: the days of 19 and 20 November and the week of 16 November have
 * ended, the month has not.
 */
export const MONDAY = Date.parse('2026-11-23T12:00:00Z');
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const world = {
  version: 1,
  users: [
    { id: 'u_ann', email: 'ann@example.com', name: 'Ann Example', plan: 'core', timezone: 'UTC' },
    { id: 'u_ben', email: 'ben@example.com', name: 'Ben Example', plan: 'core', timezone: 'UTC' },
  ],
  projects: [
    { id: 'p_site', name: 'Website', createdBy: 'u_ann' },
    { id: 'p_ben', name: 'Ben work', createdBy: 'u_ben' },
  ],
  activities: [
    {
      id: 'a_ann_19',
      userId: 'u_ann',
      start: '2026-11-19T09:00:00Z',
      durationMinutes: 45,
      headline: 'Planning',
      projectId: 'p_site',
    },
    {
      id: 'a_ann_20',
      userId: 'u_ann',
      start: '2026-11-20T09:00:00Z',
      durationMinutes: 50,
      headline: 'Layout',
      projectId: 'p_site',
    },
    {
      id: 'a_ben_20',
      userId: 'u_ben',
      start: '2026-11-20T10:00:00Z',
      durationMinutes: 30,
      headline: 'Review',
      projectId: 'p_ben',
    },
  ],
  apiKeys: [
    {
      userId: 'u_ann',
      name: 'all',
      key: ANN,
      scopes: ['destinations:write', 'activity:write', 'summaries:read', 'user:read'],
    },
    {
      userId: 'u_ann',
      name: 'no destinations',
      key: ANN_NO_DESTINATIONS,
      scopes: ['activity:write', 'summaries:read'],
    },
    { userId: 'u_ben', name: 'all', key: BEN, scopes: ['destinations:write', 'activity:write'] },
  ],
};

const files = tempFiles();
after(() => files.remove());
let written = 0;

/** `doc` (the world by default) as a dataset file, removed when the tests end. */
export function datasetFile(doc: object = world): string {
  return files.write(`delivery-${++written}.json`, doc);
}

// ---------------------------------------------------------------------------------------------
// Receivers

/** How a receiver answers one request. */
type Answer =
  | { status: number; headers?: Record<string, string>; body?: string }
  /** Never answers (until the receiver closes). */
  | { hang: true }
  /** Sends its status and headers at once, then a byte every 100 ms for `ms`. */
  | { slowBodyMs: number; status: number };

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: a receiver reads whatever JSON it is sent
  json: any;
  /** Webhooks: null when `standardwebhooks` verified the signature, else why it did not. */
  signatureProblem?: string | null;
  /** When it arrived, on the wall clock. */
  at: number;
}

export interface Receiver {
  kind: 'slack' | 'discord' | 'webhook';
  /** Where deliveries go: a path that stands for the secret part of a real webhook URL. */
  url: string;
  /** Another path on the same server: only a followed redirect would reach it. */
  elsewhereUrl: string;
  /** Every request to `url`, in order. */
  requests: Received[];
  /** Requests that reached `elsewhereUrl`. */
  elsewhere: Received[];
  /** Webhooks: the destination's secret, to verify with. */
  secret: string | null;
  /** The answers to the next requests, in order; after them, the kind's usual answer. */
  script(...answers: Answer[]): void;
  /** How many requests carried each `webhook-id`. */
  countsById(): Map<string, number>;
  close(): Promise<void>;
}

const USUAL: Record<Receiver['kind'], Answer> = {
  // Slack answers a posted message with 200 and the text `ok`; Discord with 204 No Content.
  slack: { status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' },
  discord: { status: 204 },
  webhook: { status: 200, body: '' },
};

/** What Slack or Discord would refuse; a webhook consumer checks the signature instead. */
function shapeProblem(kind: Receiver['kind'], json: Received['json']): string | null {
  if (kind === 'slack') {
    if (typeof json?.text !== 'string' || !Array.isArray(json.blocks)) return 'slack wants {text, blocks}';
  }
  if (kind === 'discord') {
    if (!Array.isArray(json?.embeds) || json.embeds.length !== 1 || typeof json.allowed_mentions !== 'object')
      return 'discord wants {embeds: [one], allowed_mentions}';
  }
  return null;
}

export async function startReceiver(kind: Receiver['kind']): Promise<Receiver> {
  const queue: Answer[] = [];
  const requests: Received[] = [];
  const elsewhere: Received[] = [];
  const path = `/hooks/${kind}/T0SECRETPATH${kind.toUpperCase()}0123456789`;
  const receiver: Receiver = {
    kind,
    url: '',
    elsewhereUrl: '',
    requests,
    elsewhere,
    secret: null,
    script: (...answers) => queue.push(...answers),
    countsById() {
      const counts = new Map<string, number>();
      for (const r of requests) {
        const id = String(r.headers['webhook-id']);
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: Received['json'];
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const received: Received = { path: req.url ?? '', headers: req.headers, body, json, at: Date.now() };
      if (req.url !== path) {
        elsewhere.push(received);
        res.writeHead(200).end('redirect followed');
        return;
      }
      if (kind === 'webhook') {
        try {
          assert.ok(receiver.secret, 'the receiver was not given the secret');
          new Webhook(receiver.secret).verify(body, req.headers as Record<string, string>);
          received.signatureProblem = null;
        } catch (err) {
          received.signatureProblem = (err as Error).message;
        }
      }
      requests.push(received);
      const problem = shapeProblem(kind, json);
      const answer = queue.shift() ?? (problem ? { status: 400, body: problem } : USUAL[kind]);
      if ('hang' in answer) return;
      if ('slowBodyMs' in answer) {
        res.writeHead(answer.status, { 'content-type': 'text/plain' });
        const started = Date.now();
        const timer = setInterval(() => {
          if (res.destroyed || Date.now() - started >= answer.slowBodyMs) {
            clearInterval(timer);
            res.end();
          } else res.write('.');
        }, 100);
        res.on('close', () => clearInterval(timer));
        return;
      }
      res.writeHead(answer.status, answer.headers).end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  receiver.url = `http://127.0.0.1:${port}${path}`;
  receiver.elsewhereUrl = `http://127.0.0.1:${port}/somewhere/else`;
  return receiver;
}

// ---------------------------------------------------------------------------------------------
// The app, the clock and the worker

export interface DeliveryWorld {
  t: TestApp;
  app: App;
  /** The pinned clock, shared by the app, summary generation and the worker. */
  now(): number;
  setNow(ms: number): void;
  advance(ms: number): number;
  /** Builds the summaries due at the clock's time, as the scheduler would. */
  generate(): Promise<GenerateStats>;
  /** A worker that attempts what is due at the clock's time, then stops; how many attempts. */
  deliver(options?: { timeoutMs?: number; allowPrivate?: boolean; concurrency?: number }): Promise<number>;
  /** The worker's attempts, by kind and outcome, as the metrics would count them. */
  attempts: { kind: string; outcome: string }[];
  close(): Promise<void>;
}

/**
 * An app on a new database of `dialect` holding the world (or `dataset`), with private addresses allowed (the
 * receivers are on loopback) and the clock at MONDAY, unless `config` or `now` say otherwise.
 */
export async function openWorld(
  dialect: Dialect,
  options: { config?: Partial<Config>; now?: number; dataset?: object; metrics?: boolean } = {},
): Promise<DeliveryWorld> {
  let clock = options.now ?? MONDAY;
  const config: Partial<Config> = { deliveryAllowPrivate: true, deliveryTimeoutMs: 1000, ...options.config };
  const dataset = datasetFile(options.dataset);
  const database = await createTestDatabase(dialect);
  const metrics = options.metrics ? new Metrics(database.storage) : undefined;
  const t = await createTestApp(dialect, { database, dataset, now: clock, config, ...(metrics && { metrics }) });
  const attempts: DeliveryWorld['attempts'] = [];
  const made: DeliveryWorld = {
    t,
    app: t.app,
    now: () => clock,
    setNow(ms) {
      clock = ms;
      t.setNow(ms);
    },
    advance(ms) {
      made.setNow(clock + ms);
      return clock;
    },
    generate: () => generateSummaries(t.storage, { now: clock }),
    async deliver({ timeoutMs = config.deliveryTimeoutMs ?? 1000, allowPrivate = true, concurrency = 4 } = {}) {
      const worker = new DeliveryWorker({
        storage: t.storage,
        now: () => clock,
        timeoutMs,
        allowPrivate,
        pollMs: 0,
        concurrency,
        metrics: {
          deliveryAttempt: (kind, outcome) => {
            attempts.push({ kind, outcome });
            metrics?.deliveryAttempt(kind, outcome);
          },
        },
      });
      try {
        return await worker.runOnce();
      } finally {
        await worker.stop();
      }
    },
    attempts,
    close: async () => {
      await t.close();
      await database.drop();
    },
  };
  return made;
}

/** Creates a destination as Ann (or `key`) and answers it, with the secret of a webhook. */
export async function createDestination(
  w: DeliveryWorld,
  receiver: Pick<Receiver, 'kind' | 'url'> & { secret?: string | null },
  fields: Record<string, unknown> = {},
  key = ANN,
) {
  const res = await call(w.app, 'POST', '/destinations', {
    key,
    body: { kind: receiver.kind, url: receiver.url, ...fields },
  });
  assert.equal(res.status, 201, res.body);
  if ('secret' in receiver && res.json.secret) receiver.secret = res.json.secret;
  return res.json.destination as { id: string; [field: string]: unknown };
}

/** GET /destinations/:id/deliveries as Ann, oldest attempt first. */
export async function attemptsOf(w: DeliveryWorld, id: string, key = ANN) {
  const res = await call(w.app, 'GET', `/destinations/${id}/deliveries`, { key });
  assert.equal(res.status, 200, res.body);
  // biome-ignore lint/suspicious/noExplicitAny: the listing's attempts, as the API answers them
  return (res.json.attempts as any[]).slice().reverse();
}

/** GET /destinations/:id as Ann. */
export async function destinationOf(w: DeliveryWorld, id: string, key = ANN) {
  const res = await call(w.app, 'GET', `/destinations/${id}`, { key });
  assert.equal(res.status, 200, res.body);
  return res.json.destination;
}

/** A failure envelope as the API answers it. */
export const failure = (error: string) => ({ success: false, error, message: error });
