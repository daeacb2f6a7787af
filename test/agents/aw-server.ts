/**
 * A stand-in aw-server for the agent's tests: a node:http server on 127.0.0.1 answering the two
 * routes the agent reads as ActivityWatch's aw-server does (aw_server/rest.py and api.py,
 * aw-core models.py and peewee.py):
 * - `GET /api/0/buckets/`: `{"<id>": {id, created, name, type, client, hostname, last_updated}}`;
 * - `GET /api/0/buckets/<id>/events?start&end&limit`: the events overlapping [start, end], newest
 *   first, trimmed to the range, each `{id, timestamp, duration, data}` with the timestamp as
 *   Python's `isoformat()` writes it (`2026-11-22T09:00:00.250000+00:00`) and seconds as a float.
 * It can stop and start again on the same port, as aw-server restarting does, and answer 503 for a while.
 */
import { type Server, createServer } from 'node:http';

export interface StandInEvent {
  /** ISO 8601 (any offset). */
  timestamp: string;
  /** Seconds. */
  duration: number;
  data: Record<string, unknown>;
}

interface StandInBucket {
  type: string;
  client: string;
  hostname: string;
  events: StandInEvent[];
}

/** Python's `datetime.isoformat()` of a UTC instant: microseconds only when there are some. */
function pythonIso(ms: number): string {
  const base = new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19);
  const micro = Math.round((ms % 1000) * 1000);
  return `${base}${micro ? `.${String(micro).padStart(6, '0')}` : ''}+00:00`;
}

export class StandInAwServer {
  readonly buckets = new Map<string, StandInBucket>();
  /** Requests answered, as `GET <path>`. */
  readonly requests: string[] = [];
  /** The next this many requests are answered 503, as aw-server answers when busy (rest.py HeartbeatResource). */
  busyFor = 0;
  private server: Server | null = null;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Adds the window and afk buckets of a host, named as aw-watcher-window and aw-watcher-afk name them. */
  addHost(hostname: string, window: StandInEvent[], afk: StandInEvent[] | null): void {
    this.buckets.set(`aw-watcher-window_${hostname}`, {
      type: 'currentwindow',
      client: 'aw-watcher-window',
      hostname,
      events: window,
    });
    if (afk)
      this.buckets.set(`aw-watcher-afk_${hostname}`, {
        type: 'afkstatus',
        client: 'aw-watcher-afk',
        hostname,
        events: afk,
      });
  }

  events(bucketId: string): StandInEvent[] {
    return this.buckets.get(bucketId)!.events;
  }

  /** aw-server's export (`GET /api/0/export`): every bucket with all its events, event ids scrubbed. */
  exportDocument(): unknown {
    return {
      buckets: Object.fromEntries(
        [...this.buckets].map(([id, b]) => [
          id,
          {
            id,
            created: '2026-11-01T08:00:00.000000+00:00',
            name: null,
            type: b.type,
            client: b.client,
            hostname: b.hostname,
            data: {},
            events: this.sorted(b).map((e) => ({ timestamp: pythonIso(e.start), duration: e.seconds, data: e.data })),
          },
        ]),
      ),
    };
  }

  private sorted(bucket: StandInBucket) {
    return bucket.events
      .map((e, i) => ({ id: i + 1, start: Date.parse(e.timestamp), seconds: e.duration, data: e.data }))
      .sort((a, b) => b.start - a.start);
  }

  private answer(path: string, query: URLSearchParams): [number, unknown] {
    if (path === '/api/0/buckets/') {
      return [
        200,
        Object.fromEntries(
          [...this.buckets].map(([id, b]) => {
            const last = this.sorted(b)[0];
            return [
              id,
              {
                id,
                created: '2026-11-01T08:00:00.000000+00:00',
                name: null,
                type: b.type,
                client: b.client,
                hostname: b.hostname,
                data: {},
                ...(last ? { last_updated: pythonIso(last.start + last.seconds * 1000) } : {}),
              },
            ];
          }),
        ),
      ];
    }
    const match = /^\/api\/0\/buckets\/([^/]+)\/events$/.exec(path);
    const bucket = match ? this.buckets.get(decodeURIComponent(match[1]!)) : undefined;
    if (!match) return [404, { message: 'not found' }];
    if (!bucket) return [404, { message: `There's no bucket named ${decodeURIComponent(match[1]!)}` }];
    const start = query.has('start') ? Date.parse(query.get('start')!) : Number.NEGATIVE_INFINITY;
    const end = query.has('end') ? Date.parse(query.get('end')!) : Number.POSITIVE_INFINITY;
    const events = this.sorted(bucket)
      .filter((e) => e.start <= end && e.start + e.seconds * 1000 >= start)
      .map((e) => {
        const from = Math.max(e.start, start);
        const to = Math.min(e.start + e.seconds * 1000, end);
        return { id: e.id, timestamp: pythonIso(from), duration: (to - from) / 1000, data: e.data };
      });
    return [200, events];
  }

  async start(port = this.port): Promise<void> {
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      this.requests.push(`${req.method} ${url.pathname}`);
      const [status, body] =
        this.busyFor-- > 0
          ? [503, { message: 'Server busy, try again later' }]
          : req.method === 'GET'
            ? this.answer(url.pathname, url.searchParams)
            : [405, {}];
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as { port: number }).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
