/**
 * Test support: a Daybook app on a fresh database of either dialect, provisioned from a
 * dataset file, driven through real HTTP with app.inject().
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { type Socket, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { after, describe } from 'node:test';
import type { FastifyLoggerOptions } from 'fastify';
import type { KyselyPlugin } from 'kysely';
import pg from 'pg';
import { type Config, loadConfig } from '../src/config.ts';
import { importDataset } from '../src/dataset/import.ts';
import { buildApp, loggerOptions } from '../src/http/app.ts';
import type { Metrics } from '../src/http/metrics.ts';
import type { App } from '../src/http/types.ts';
import { MemoryRateLimiter, type RateLimiter } from '../src/http/rate-limit.ts';
import type { ReadWorkers } from '../src/services/read-workers.ts';
import { type Dialect, migrate, openStorage, type Storage } from '../src/storage/database.ts';

export const fixturesDir = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
export const EXAMPLE = join(fixturesDir, 'example.json');

/** The keys of the example dataset (test/fixtures/example.json). */
export const KEYS = {
  aliceAll: 'dbk_example_alice_all_0123456789abcdef',
  aliceReadOnly: 'dbk_example_alice_ro_0123456789abcdef',
  bob: 'dbk_example_bob_0123456789abcdef01',
  carolFree: 'dbk_example_carol_0123456789abcdef',
  daveRevoked: 'dbk_example_dave_0123456789abcdef0',
} as const;

export const DIALECTS: Dialect[] = (process.env.DAYBOOK_TEST_DIALECTS ?? 'sqlite,postgres')
  .split(',')
  .filter((d): d is Dialect => d === 'sqlite' || d === 'postgres');

/**
 * `npm run test:fast` (scripts/test.sh --fast) is the edit loop: a test that only measures scale
 * (tens of seconds of one core) passes this as its `skip` there, and runs in `npm test`.
 */
export const FULL_SUITE_ONLY: string | false =
  process.env.DAYBOOK_TEST_TIER === 'fast' ? 'a scale test: npm test runs it' : false;

export const PG_ADMIN_URL = process.env.DAYBOOK_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.DAYBOOK_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Runs `fn` once per database dialect, as `name [sqlite]` and `name [postgres]`. */
export function forEachDialect(name: string, fn: (dialect: Dialect) => void): void {
  for (const dialect of DIALECTS) describe(`${name} [${dialect}]`, () => fn(dialect));
}

export interface TestDatabase {
  url: string;
  storage: Storage;
  /** Closes the storage and drops the database. */
  drop(): Promise<void>;
}

/**
 * A new, migrated, empty database of the dialect (a throwaway PostgreSQL database per call,
 * copied from the migrated template: see migratedTemplate).
 */
export async function createTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const url = 'sqlite::memory:';
    const storage = openStorage(url);
    await migrate(storage);
    return { url, storage, drop: () => storage.close() };
  }
  const database = recycled.pop() ?? (await createPostgresDatabase(processPrefix(), await migratedTemplate()));
  const storage = openStorage(database.url);
  // Nothing left to apply; were the template behind, this would still bring the copy up to date.
  await migrate(storage);
  return {
    url: database.url,
    storage,
    drop: async () => {
      await storage.close();
      if (await emptied(database.url)) recycled.push(database);
      else await database.drop();
    },
  };
}

/**
 * Copying the template costs PostgreSQL a quarter of a second of CPU (the copy is written to its
 * log, then dropped), and the suite makes hundreds: a database given back empty is kept for the
 * next test of this process instead. It is given back only when its tables are the template's
 * (a test that made or changed tables drops it as before), nobody else is connected and it holds
 * little, with every table emptied. The ones left when the process's tests end
 * are dropped; the name carries the process id, so one left by a run that was killed is dropped
 * by the next run (sweepAbandoned).
 */
const recycled: { url: string; drop(): Promise<void> }[] = [];
const RECYCLE_MAX_BYTES = 16 * 1024 * 1024;
let templateShape: Promise<string> | undefined;

/** The tables, columns, indexes and triggers of the public schema, as one string. */
async function schemaShape(client: pg.Client): Promise<string> {
  const { rows } = await client.query(`
    select string_agg(entry, ',' order by entry) as shape from (
      select c.relname || ':' || c.relkind::text || ':' || coalesce(a.attname || '/' || format_type(a.atttypid, a.atttypmod), '') as entry
        from pg_class c left join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
       where c.relnamespace = 'public'::regnamespace
      union all
      select 'trigger:' || tgname from pg_trigger t join pg_class c on c.oid = t.tgrelid
       where c.relnamespace = 'public'::regnamespace and not t.tgisinternal
    ) entries`);
  return rows[0].shape ?? '';
}

/** Empties a database a test gave back, when it can be reused; false when it must be dropped. */
async function emptied(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    templateShape ??= (async () => {
      const template = new pg.Client({ connectionString: postgresUrl(await migratedTemplate()) });
      await template.connect();
      try {
        return await schemaShape(template);
      } finally {
        await template.end();
      }
    })();
    const [shape, others] = await Promise.all([
      schemaShape(client),
      client.query(
        'select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      ),
    ]);
    if (shape !== (await templateShape) || others.rows[0].n !== 0) return false;
    const { rows } = await client.query(
      `select format('%I', relname) as name, pg_total_relation_size(oid) as bytes from pg_class
        where relnamespace = 'public'::regnamespace and relkind = 'r' and relname not like 'kysely_migration%'`,
    );
    // A test that filled it with much leaves its dead rows behind: a new copy costs less then.
    if (rows.reduce((sum, { bytes }) => sum + Number(bytes), 0) > RECYCLE_MAX_BYTES) return false;
    // A delete costs a hundredth of a truncate here. Foreign keys and triggers are off for it
    // (replica role), as every table is emptied alike; the template has no sequences to restart.
    await client.query('begin');
    await client.query('set local session_replication_role = replica');
    for (const { name } of rows) await client.query(`delete from ${name}`);
    await client.query('commit');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Drops the kept databases of test processes that are gone (a run that was killed). */
async function sweepAbandoned(admin: pg.Client): Promise<void> {
  const { rows } = await admin.query(String.raw`select datname from pg_database where datname ~ '^daybook_t_p\d+_'`);
  for (const { datname } of rows as { datname: string }[]) {
    const pid = Number(/^daybook_t_p(\d+)_/.exec(datname)![1]);
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH')
        await admin.query(`drop database if exists ${datname} with (force)`);
    }
  }
}

/** Drops the databases this process kept, once its tests are over. */
after(async () => {
  for (const database of recycled.splice(0)) await database.drop();
});

/**
 * A new, migrated, empty database that report worker threads can open too: a file for SQLite
 * (an in-memory database exists only on its own connection).
 */
export async function createSharedTestDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === 'postgres') return createTestDatabase('postgres');
  const dir = await mkdtemp(join(tmpdir(), 'daybook-shared-'));
  const url = `sqlite:${join(dir, 'daybook.db')}`;
  const storage = openStorage(url);
  await migrate(storage);
  return {
    url,
    storage,
    drop: async () => {
      await storage.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function postgresUrl(database: string): string {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * Waits until the server has no connection to the database left: pg's pool.end() resolves
 * before the server has seen its connections go.
 */
async function untilDisconnected(admin: pg.Client, database: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const { rows } = await admin.query('select count(*)::int as n from pg_stat_activity where datname = $1', [
      database,
    ]);
    if (rows[0].n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Test databases are named by the process that made them: sweepAbandoned drops a dead one's. */
const processPrefix = () => `daybook_t_p${process.pid}`;

/** A new, empty PostgreSQL database (unmigrated unless copied from `template`), and how to drop it. */
export async function createPostgresDatabase(
  prefix = processPrefix(),
  template?: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}${template ? ` template ${template}` : ''}`);
  await admin.end();
  return {
    url: postgresUrl(name),
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      // Dropping with force while a connection lingers kills it, and its client then throws an
      // uncaught error.
      await untilDisconnected(client, name);
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const migrationsDir = join(repoRoot, 'src', 'storage', 'migrations');

/** The migrations and every module of the project they import, hashed. */
async function migrationsHash(): Promise<string> {
  const hash = createHash('sha256');
  const seen = new Set<string>();
  const visit = async (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = await readFile(file, 'utf8');
    hash.update(`${relative(repoRoot, file)}\0${text}\0`);
    for (const [, imported] of text.matchAll(/from '(\.{1,2}\/[^']+)'/g)) await visit(join(dirname(file), imported!));
  };
  for (const file of (await readdir(migrationsDir)).filter((f) => f.endsWith('.ts')).sort())
    await visit(join(migrationsDir, file));
  return hash.digest('hex').slice(0, 16);
}

let template: Promise<string> | undefined;

/**
 * A PostgreSQL database that the migrations brought up to date, to copy instead of migrating
 * each test database (half a second each, on every test that needs one). It is named by the hash
 * of the migrations' source, so an edited migration gets a new one, and is built under another
 * name, renamed once complete. Test files run in parallel processes: an advisory lock lets one
 * build it while the others wait.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = `daybook_tpl_${await migrationsHash()}`;
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    try {
      await admin.query('select pg_advisory_lock(hashtext($1))', ['daybook test template']);
      await sweepAbandoned(admin);
      const { rows } = await admin.query('select 1 from pg_database where datname = $1', [name]);
      if (rows.length === 0) {
        const building = `${name}_building`;
        // Left half built by a run that was stopped.
        await admin.query(`drop database if exists ${building} with (force)`);
        await admin.query(`create database ${building}`);
        const storage = openStorage(postgresUrl(building));
        try {
          await migrate(storage);
        } finally {
          await storage.close();
        }
        // Neither a rename nor a copy is allowed while anyone is connected.
        await untilDisconnected(admin, building);
        await admin.query(`alter database ${building} rename to ${name}`);
      }
    } finally {
      await admin.end();
    }
    return name;
  })();
  return template;
}

export interface TestApp {
  app: App;
  storage: Storage;
  database: TestDatabase;
  /** Moves the pinned clock. */
  setNow(ms: number): void;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Dataset file to import first; EXAMPLE by default, null for an empty database. */
  dataset?: string | null;
  /** The pinned clock's start; 2026-11-22T12:00:00Z by default. */
  now?: number;
  config?: Partial<Config>;
  rateLimiter?: RateLimiter;
  database?: TestDatabase;
  /** Served at GET /metrics when `config.metricsToken` is set. */
  metrics?: Metrics;
  /** The server's log at this level, each line (JSON text) pushed to `lines`. */
  log?: { level: string; lines: string[] };
  /** The read workers, instead of those `config.reportWorkers` asks for; closed with the app. */
  readers?: ReadWorkers;
}

/** Fastify's logger options writing each log line into `lines`. */
function loggerInto(level: string, lines: string[]): FastifyLoggerOptions {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { ...(loggerOptions(level) as FastifyLoggerOptions), stream };
}

export const DEFAULT_NOW = Date.parse('2026-11-22T12:00:00.000Z');

export async function createTestApp(dialect: Dialect, options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase(dialect));
  let now = options.now ?? DEFAULT_NOW;
  const dataset = options.dataset === undefined ? EXAMPLE : options.dataset;
  if (dataset) await importDataset(database.storage, dataset, { now: () => now });
  const config: Config = {
    ...loadConfig({}),
    rateLimitPerMinute: 10_000,
    authFailuresPerMinute: 10_000,
    keyCacheMs: 0,
    // Large reports on worker threads have tests of their own (test/reports/report-workers.test.ts).
    reportWorkers: 0,
    ...options.config,
    // The storage is the test database; a test may point only the report workers elsewhere.
    databaseUrl: options.config?.databaseUrl ?? database.url,
  };
  const rateLimiter = options.rateLimiter ?? new MemoryRateLimiter(() => now);
  const app = await buildApp(
    {
      storage: database.storage,
      config,
      rateLimiter,
      now: () => now,
      ...(options.metrics && { metrics: options.metrics }),
      ...(options.readers && { readers: options.readers }),
    },
    options.log ? { logger: loggerInto(options.log.level, options.log.lines) } : undefined,
  );
  await app.ready();
  return {
    app,
    storage: database.storage,
    database,
    setNow: (ms) => {
      now = ms;
    },
    close: async () => {
      await app.close();
      await rateLimiter.close();
      if (!options.database) await database.drop();
    },
  };
}

/** Shorthand for a JSON request with a key. */
export async function call(
  app: App,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS',
  url: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers['x-api-key'] = options.key;
  const response = await app.inject({
    method,
    url,
    headers,
    ...(options.body === undefined ? {} : { payload: options.body as object }),
  });
  let json: any;
  try {
    json = response.json();
  } catch {
    json = undefined;
  }
  return { status: response.statusCode, headers: response.headers, json, body: response.body };
}

/**
 * A TCP relay to the server of `targetUrl` (Redis, PostgreSQL) that can hold every byte back, as
 * a server or network that stalls while the connection stays open, then let them through in
 * order. `url` is `targetUrl` pointed at the relay.
 */
export async function stallableRelay(
  targetUrl: string,
): Promise<{ url: string; stall(on: boolean): void; close(): Promise<void> }> {
  const target = new URL(targetUrl);
  let stalled = false;
  const held: [Socket, Buffer][] = [];
  const sockets: Socket[] = [];
  const relay = (from: Socket, to: Socket) =>
    from.on('data', (chunk) => (stalled ? held.push([to, chunk]) : to.write(chunk)));
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.push(client, upstream);
    relay(client, upstream);
    relay(upstream, client);
    for (const socket of [client, upstream]) socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relayed = new URL(targetUrl);
  relayed.hostname = '127.0.0.1';
  relayed.port = String((server.address() as { port: number }).port);
  return {
    url: relayed.toString(),
    stall(on) {
      stalled = on;
      if (!on) for (const [to, chunk] of held.splice(0)) to.write(chunk);
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface CountedDatabase extends TestDatabase {
  /** Statements run through `storage.db` since the database was wrapped. */
  readonly statements: number;
}

/**
 * `database` with every statement that completes through its `db` counted (queries, writes, a
 * transaction's statements; not BEGIN or COMMIT, nor statements run on SQLite's own handle), to
 * pass as `createTestApp`'s `database`: a test can then assert how many statements a request costs.
 */
export function countingStatements(database: TestDatabase): CountedDatabase {
  let statements = 0;
  // Kysely hands every executed statement's result to its plugins, fixed queries included.
  const counter: KyselyPlugin = {
    transformQuery: ({ node }) => node,
    transformResult: async ({ result }) => {
      statements++;
      return result;
    },
  };
  return {
    ...database,
    storage: { ...database.storage, db: database.storage.db.withPlugin(counter) },
    get statements() {
      return statements;
    },
  };
}

/** Polls `check` every 100 ms until it is true; fails after `ms` with `what`. */
export async function until(what: string, ms: number, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `${what}: not within ${ms / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
