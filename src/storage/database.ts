import { mkdirSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import SqliteDatabase from 'better-sqlite3';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  type Migration,
  type MigrationProvider,
  Migrator,
  PostgresDialect,
  SelectQueryNode,
  type PostgresPool,
  SqliteDialect,
  type SqliteDatabase as KyselySqliteDatabase,
  sql,
  type TransactionSettings,
} from 'kysely';
import pg from 'pg';
import { pgConnectTimeoutMs, pgPoolSize, pgWriters } from '../config.ts';
import { DatabaseHealth } from './health.ts';
import type { ThreadWriteLock } from './thread-write-lock.ts';
import { WalSync } from './wal-sync.ts';
import type { Database } from './schema.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Storage {
  db: Kysely<Database>;
  dialect: Dialect;
  /** A printable description of the database without credentials. */
  describe: string;
  /** PostgreSQL: the connections of this process's pool, in use and idle, and the requests waiting for one. */
  poolStats?: () => { total: number; idle: number; waiting: number };
  /** An in-memory SQLite database: it exists only on this connection (no other thread or process sees it). */
  inMemory: boolean;
  /**
   * PostgreSQL only: from now on the server cancels a statement still running after `ms`, and
   * one it does not answer at all (frozen, out of reach) is given up UNANSWERED_GRACE_MS later,
   * its connection closed (boundingStatements). For serving; migrations and imports, whose
   * statements may take minutes, run without it.
   */
  setStatementTimeout?: (ms: number) => void;
  /** PostgreSQL only: this process's large write transactions, at most DAYBOOK_PG_WRITERS at once (writeTransaction). */
  writeSlots?: WriteSlots;
  /**
   * SQLite only: statements on the one connection, for a read that consumes its rows one at a
   * time as SQLite steps (`iterate()`) instead of as one array. Use it only inside
   * `db.connection().execute(…)`, which holds the connection so no transaction of another
   * request is open on it, and consume synchronously.
   */
  sqlite?: SqliteStatements;
  /**
   * Whether the database answers, told once per change (storage/health.ts). Connection errors
   * met anywhere (a request, a pooled connection lost while idle or checked out) are given to
   * its `suspect`.
   */
  health: DatabaseHealth;
  /** Resolves once the database has answered a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

interface SqliteStatements {
  prepare(sql: string): SqliteDatabase.Statement;
  /**
   * Runs `work` (synchronous statements) without waiting for another process's write lock: a
   * busy database fails it at once (SQLITE_BUSY) instead of holding up the process.
   */
  withoutWaiting<T>(work: () => T): T;
  /**
   * Runs `work` with commits that are not synced to disk (synchronous = NORMAL): they survive a
   * crash of the process, and reach the disk with the next commit that is synced. For a commit
   * whose loss at a power cut would do no harm; the data it follows must be synced already.
   */
  unsynced<T>(work: () => Promise<T>): Promise<T>;
  /**
   * Runs `work` (a write transaction, holding the connection) with its commit not synced by
   * SQLite where the log can be synced from another thread (a file in WAL mode): then the
   * caller must await `logSynced()` before it tells anyone the write is stored. Elsewhere `work`
   * commits synced as any other.
   */
  syncedAside<T>(work: () => Promise<T>): Promise<T>;
  /** Resolves once every commit so far is on disk (WalSync; at once where commits sync themselves). */
  logSynced(): Promise<void>;
  /**
   * From now on this connection's writes take `lock` (null: no longer), shared with another
   * thread of the process that writes the file (storage/thread-write-lock.ts): every write
   * statement run through Kysely, every Kysely transaction that is not read only, and each try
   * of writeTransaction's BEGIN IMMEDIATE.
   */
  shareWrites(lock: ThreadWriteLock | null): void;
  /** Runs `work` (holding the connection) with the shared write lock held, where there is one. */
  writing<T>(work: () => Promise<T>): Promise<T>;
  /** The shared write lock, if any (shareWrites). */
  readonly writeLock: ThreadWriteLock | null;
  /** Closes the log's file kept open for syncing it, once its syncs under way are done (after the connection closed). */
  closeLog(): Promise<void>;
  /** The database file (empty for an in-memory database). */
  file: string;
  /** How many pages of write-ahead log make a commit checkpoint it (wal_autocheckpoint; SQLite's default 1000). */
  setAutoCheckpoint(pages: number): void;
  /** How long a statement waits for another process's lock from now on (busy_timeout), in ms. */
  setBusyTimeout(ms: number): void;
  /**
   * A consistent copy of the database into `file` while others read and write it (SQLite's
   * online backup, step by step, so this process keeps serving meanwhile).
   */
  backup(file: string): Promise<void>;
  /** This process's write transactions, one at a time in the order they asked (writeTransaction). */
  turns: WriteTurns;
}

/**
 * Hands this process's SQLite write transactions their turn one at a time, first come first
 * served, and keeps them from filling a whole turn of the event loop.
 *
 * Node reads, in one turn of its event loop, every connection that was ready when the turn
 * began, and a write used to run as soon as its request was read: under a steady load of large
 * batches one turn ran ten of them back to back, and a request that arrived meanwhile waited
 * for those and for the next turn's, about one write in ten taking twice as long as the others.
 * Now writes run until they have taken TURN_BUDGET_MS of a turn; the rest wait, in the order
 * they asked, for the next turn, after the loop has read what arrived meanwhile (which queues
 * behind them). Small writes still run at once, several in a turn.
 */
class WriteTurns {
  private busy = false;
  private readonly waiting: (() => void)[] = [];
  /** Time the writes took in this turn of the event loop, in ms. */
  private spent = 0;
  private resetting = false;
  private started = 0;

  /**
   * Resolves when it is the caller's turn (undefined: at once); the caller must call `done()`
   * once its transaction has ended.
   */
  take(): Promise<void> | undefined {
    if (!this.busy && this.spent < TURN_BUDGET_MS) {
      this.busy = true;
      this.started = performance.now();
      return undefined;
    }
    const turn = new Promise<void>((resolve) => this.waiting.push(resolve));
    if (!this.busy) {
      // Over the budget and none running: the first waiter starts the next turn.
      this.busy = true;
      this.nextTurn();
    }
    return turn;
  }

  done(): void {
    this.spent += performance.now() - this.started;
    this.nextTurn();
    if (this.spent < TURN_BUDGET_MS) this.handOn();
  }

  private handOn(): void {
    const next = this.waiting.shift();
    if (!next) {
      this.busy = false;
      return;
    }
    this.started = performance.now();
    next();
  }

  /** Once the loop has gone round (setImmediate runs after it has read the connections). */
  private nextTurn(): void {
    if (this.resetting) return;
    this.resetting = true;
    setImmediate(() => {
      this.resetting = false;
      const stalled = this.spent >= TURN_BUDGET_MS;
      this.spent = 0;
      if (stalled) this.handOn();
    });
  }
}

/**
 * Lets a PostgreSQL process run at most `count` large write transactions at once; the others
 * wait, first come first served, holding no connection and no lock.
 *
 * Ten writers of 1,000-activity batches, all at once, interleaved on the database's cores and
 * held all ten of the pool's connections (reads waited for one): one batch in a hundred took
 * more than twice as long as the median (p99 325–421 ms, p50 190 ms). Three at a time keep the
 * database and this process busy (one batch is sent while others are written) and the others
 * wait in order: p99 228–268 ms and more batches per second (docs/performance.md, "Writes").
 * A write transaction never waits for another to begin, so the order cannot deadlock.
 */
class WriteSlots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(count: number) {
    this.free = count;
  }

  /** Resolves when the caller may begin (undefined: at once); the caller must call `done()` after. */
  take(): Promise<void> | undefined {
    if (this.free > 0) {
      this.free--;
      return undefined;
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  done(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/** How much of one turn of the event loop write transactions may take before the rest wait for the next. */
const TURN_BUDGET_MS = 10;

/**
 * How long a statement of a serving process waits for another process's write lock (an import
 * holding it): better-sqlite3 waits synchronously, so every request of the process would wait
 * with it. Past it, SQLITE_BUSY: 503 with Retry-After. Write transactions wait longer, without
 * blocking (writeTransaction).
 */
export const SERVING_BUSY_TIMEOUT_MS = 50;

/** How long a write waits for another process's transaction before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5000;

// bigint columns (instants, counts) come back from pg as strings unless told otherwise;
// every value we keep in them fits in a double.
pg.types.setTypeParser(20, (value) => Number(value));

export function openStorage(url: string): Storage {
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    // A server that stops answering fails the requests that wait on it instead of holding them
    // (and a shutdown) forever: a connection is waited for DAYBOOK_PG_CONNECT_TIMEOUT_MS, and a
    // statement STATEMENT_WAIT_MS until the serving process bounds it (setStatementTimeout).
    const connectTimeoutMs = pgConnectTimeoutMs();
    const pool = new pg.Pool({
      connectionString: url,
      max: pgPoolSize(),
      connectionTimeoutMillis: connectTimeoutMs,
      query_timeout: STATEMENT_WAIT_MS,
    });
    const limit: StatementLimit = { ms: 0 };
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: preparingStatements(boundingStatements(pool, limit)) }),
    });
    // The watch asks on a connection of its own: a pooled one may be one the server has just
    // closed (pg_terminate_backend) though it answers new ones.
    const health = new DatabaseHealth(() => pingAlone(url, connectTimeoutMs));
    // A connection the server closes (a restart, a failover, pg_terminate_backend) emits
    // 'error' on its client: pg-pool listens only while the client is idle, and an 'error' with
    // no listener ends the process. Every client gets a listener of its own for its whole life;
    // the pool drops a client that failed when it is released, and the query it was running
    // (if any) fails with the error, answered 503 (http/app.ts).
    const lost = (err: Error) => {
      health.suspect(err);
    };
    pool.on('connect', (client) => client.on('error', lost));
    // The same for an idle client (pg-pool then removes it and emits 'error' on the pool).
    pool.on('error', lost);
    const parsed = new URL(url);
    return {
      db,
      dialect: 'postgres',
      describe: `postgres://${parsed.host}${parsed.pathname}`,
      poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      inMemory: false,
      writeSlots: new WriteSlots(pgWriters()),
      setStatementTimeout: (ms) => {
        limit.ms = ms;
      },
      health,
      ping: () => ping(db),
      close: () => {
        health.close();
        return db.destroy();
      },
    };
  }
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    const memory = file === ':memory:' || file === '';
    if (!memory) mkdirSync(dirname(file), { recursive: true });
    const sqlite = new SqliteDatabase(memory ? ':memory:' : file);
    const wal = !memory && sqlite.pragma('journal_mode = WAL', { simple: true }) === 'wal';
    // FULL: a committed transaction survives a power loss, not only a process crash. Write
    // transactions commit with NORMAL and sync the log from another thread (WalSync).
    sqlite.pragma('synchronous = FULL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    sqlite.pragma('cache_size = -16384');
    const statements = keepingStatements(sqlite, memory ? '' : file, wal ? new WalSync(`${file}-wal`) : null);
    const db = new Kysely<Database>({ dialect: new SharedWritesSqliteDialect(statements) });
    const health = new DatabaseHealth(() => ping(db));
    return {
      db,
      dialect: 'sqlite',
      sqlite: statements,
      describe: memory ? 'sqlite::memory:' : `sqlite:${file}`,
      inMemory: memory,
      health,
      ping: () => ping(db),
      close: async () => {
        health.close();
        await db.destroy();
        await statements.closeLog();
      },
    };
  }
  // Only what comes before a colon is shown: the rest may hold a password.
  const shown = url.includes(':') ? `${url.slice(0, url.indexOf(':'))}:…` : url;
  throw new Error(
    `DAYBOOK_DATABASE_URL must start with sqlite: or postgres:// such as sqlite:./data/daybook.db (got "${shown}")`,
  );
}

async function ping(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}

/**
 * A trivial query on a new connection to the PostgreSQL server of `url`, closed after it; each
 * step waited for at most `timeoutMs`.
 */
async function pingAlone(url: string, timeoutMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * How long a statement's answer is waited for before setStatementTimeout: the longest statements
 * of a migration or an import (an ANALYZE, a migration that rewrites a table) take seconds or more.
 */
const STATEMENT_WAIT_MS = 120_000;

/**
 * How much longer than the statement timeout an answer is waited for. A server that is alive
 * cancels the statement itself (57014), which leaves the connection clean; only one that does
 * not answer at all is given up on by the client.
 */
const UNANSWERED_GRACE_MS = 1000;

/** pg's message for an answer not received within `query_timeout`. */
const UNANSWERED = 'Query read timeout';

/** The statement timeout of the connections' sessions, in ms; 0: the server's own setting. */
interface StatementLimit {
  ms: number;
}

interface ClientPool {
  connect(): Promise<pg.PoolClient>;
  end(): Promise<void>;
}

type QueryFunction = (config: unknown, values?: unknown) => Promise<pg.QueryResult>;

/**
 * Bounds every statement on the pool's connections by `limit`: the server's statement_timeout,
 * set on a connection before it is handed out, and the client's wait for an answer,
 * UNANSWERED_GRACE_MS longer. A connection whose answer never came is in the middle of a
 * statement, perhaps of a transaction: returned to the pool, the next request would wait
 * behind that statement or run inside that transaction. It is closed at once instead (the
 * server rolls back what was open on it), and what else is asked on it before the pool drops
 * it at its release (the transaction's rollback) fails at once with the same error.
 */
function boundingStatements(pool: pg.Pool, limit: StatementLimit): ClientPool {
  const queries = new WeakMap<pg.PoolClient, QueryFunction>();
  const applied = new WeakMap<pg.PoolClient, number>();
  return {
    end: () => pool.end(),
    async connect() {
      const client = await pool.connect();
      let query = queries.get(client);
      if (query === undefined) {
        query = givingUpUnanswered(client, limit);
        queries.set(client, query);
        applied.set(client, 0);
      }
      if (limit.ms !== applied.get(client)) {
        try {
          await query('select set_config($1, $2, false)', ['statement_timeout', String(limit.ms)]);
        } catch (err) {
          client.release(err as Error);
          throw err;
        }
        applied.set(client, limit.ms);
      }
      return client;
    },
  };
}

/** Replaces the client's query with one bounded as boundingStatements says; returns it. */
function givingUpUnanswered(client: pg.PoolClient, limit: StatementLimit): QueryFunction {
  const send = client.query.bind(client) as QueryFunction;
  let unanswered: Error | null = null;
  const givenUp = (err: Error) => {
    if (err.message === UNANSWERED && unanswered === null) {
      unanswered = err;
      // With a statement under way, end() closes the socket at once (it does not wait for the
      // server); the pool sees the client ending and drops it when it is released.
      client.end().catch(() => {});
    }
    throw err;
  };
  // Not async, and no copy beyond the one object pg needs: this runs for every statement.
  const query: QueryFunction = (config, values) => {
    if (unanswered) return Promise.reject(unanswered);
    const wait = limit.ms > 0 ? limit.ms + UNANSWERED_GRACE_MS : STATEMENT_WAIT_MS;
    let bounded: unknown;
    if (typeof config === 'string') bounded = { text: config, query_timeout: wait };
    // A cursor (an object that submits itself) keeps the pool's query_timeout.
    else if (typeof (config as { submit?: unknown }).submit === 'function') bounded = config;
    else bounded = { ...(config as object), query_timeout: wait };
    return send(bounded, values).catch(givenUp);
  };
  (client as { query: unknown }).query = query;
  return query;
}

/** Most statement texts a process names (and so keeps prepared on each connection). */
const PREPARED_TEXTS = 1000;
/**
 * Longer texts are not named: they are the multi-row VALUES lists of imports, whose text changes
 * with the batch size and which would each keep a plan on every connection.
 */
const PREPARED_TEXT_LENGTH = 4096;
/** Statements worth keeping: queries and writes, not transaction control, cursors or DDL. */
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * PostgreSQL parses, analyses and plans every unnamed statement anew, which costs it as much
 * as running the short queries of a request. Named, a statement is prepared once per
 * connection and then only bound and run. Each distinct text gets a name the first time it is
 * seen, up to PREPARED_TEXTS (texts that vary with their values stay unnamed beyond that). A
 * prepared statement fails with "cached plan must not change result type" once a migration of
 * another process changes the columns it returns: that text is then run unnamed from then on.
 */
function preparingStatements(pool: ClientPool): PostgresPool {
  const names = new Map<string, string | null>();
  const nameOf = (text: string): string | null => {
    let name = names.get(text);
    if (name === undefined) {
      // Past the limit new texts are neither named nor remembered, so the map stays bounded.
      if (names.size >= PREPARED_TEXTS) return null;
      name = text.length <= PREPARED_TEXT_LENGTH && PREPARABLE.test(text) ? `daybook_${names.size}` : null;
      names.set(text, name);
    }
    return name;
  };
  const prepared = new WeakSet<pg.PoolClient>();
  return {
    end: () => pool.end(),
    async connect() {
      const client = await pool.connect();
      if (prepared.has(client)) return client;
      prepared.add(client);
      const query = client.query.bind(client) as (config: unknown, values?: unknown) => Promise<pg.QueryResult>;
      (client as { query: unknown }).query = async (text: unknown, values?: unknown[]) => {
        const name = typeof text === 'string' && Array.isArray(values) ? nameOf(text) : null;
        if (name === null) return query(text, values);
        try {
          return await query({ name, text, values });
        } catch (err) {
          if ((err as { code?: string }).code !== '0A000') throw err;
          names.set(text as string, null);
          return query(text, values);
        }
      };
      return client;
    },
  };
}

const STATEMENT_CACHE_SIZE = 256;

/**
 * better-sqlite3 compiles a statement on every prepare() and Kysely prepares every query it
 * runs, though the same SQL comes again and again (each batch of an import, each request's
 * queries). Keeping the most recent statements saves that work. A statement still being
 * iterated cannot run twice at once, so a busy one is never handed out again.
 */
function keepingStatements(
  sqlite: SqliteDatabase.Database,
  file: string,
  walSync: WalSync | null,
): KyselySqliteDatabase & SqliteStatements {
  const statements = new Map<string, SqliteDatabase.Statement>();
  // Nested unsynced work (a restamp after an unsynced transaction's commit) syncs again only at the outermost end.
  let unsyncedDepth = 0;
  // The busy timeout as openStorage sets it, then as setBusyTimeout does: known here rather than
  // asked of SQLite at every write transaction.
  let busyTimeoutMs = BUSY_TIMEOUT_MS;
  let writeLock: ThreadWriteLock | null = null;
  const keeping: KyselySqliteDatabase & SqliteStatements = {
    turns: new WriteTurns(),
    close: () => sqlite.close(),
    backup: async (file: string) => {
      await sqlite.backup(file);
    },
    file,
    setAutoCheckpoint(pages: number) {
      sqlite.pragma(`wal_autocheckpoint = ${Math.max(0, Math.floor(pages))}`);
    },
    // The pragmas of every write go through kept statements: sqlite.pragma() prepares anew.
    async unsynced<T>(work: () => Promise<T>): Promise<T> {
      if (unsyncedDepth++ === 0) setting('synchronous = NORMAL');
      try {
        return await work();
      } finally {
        if (--unsyncedDepth === 0) setting('synchronous = FULL');
      }
    },
    syncedAside<T>(work: () => Promise<T>): Promise<T> {
      return walSync ? keeping.unsynced(work) : work();
    },
    logSynced: () => walSync?.sync() ?? Promise.resolve(),
    get writeLock() {
      return writeLock;
    },
    shareWrites(lock: ThreadWriteLock | null) {
      writeLock = lock;
    },
    async writing<T>(work: () => Promise<T>): Promise<T> {
      const lock = keeping.writeLock;
      if (!lock || lock.held) return work();
      await lock.acquire();
      try {
        return await work();
      } finally {
        lock.release();
      }
    },
    closeLog: async () => {
      await walSync?.close();
    },
    setBusyTimeout(ms: number) {
      busyTimeoutMs = Math.max(0, Math.floor(ms));
      setting(`busy_timeout = ${busyTimeoutMs}`);
    },
    withoutWaiting<T>(work: () => T): T {
      const waits = busyTimeoutMs;
      setting('busy_timeout = 0');
      try {
        return work();
      } finally {
        setting(`busy_timeout = ${waits}`);
      }
    },
    prepare,
  };
  /** Sets a pragma through a kept statement (one that answers with the new value, or not). */
  function setting(pragma: string): void {
    const statement = prepare(`pragma ${pragma}`);
    if (statement.reader) statement.get();
    else statement.run();
  }
  function prepare(sql: string): SqliteDatabase.Statement {
    const kept = statements.get(sql);
    if (kept && !kept.busy) {
      statements.delete(sql);
      statements.set(sql, kept);
      return kept;
    }
    const statement = sqlite.prepare(sql);
    statements.set(sql, statement);
    if (statements.size > STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
    return statement;
  }
  return keeping;
}

/**
 * A transaction that writes. On SQLite it takes the write lock at once (BEGIN IMMEDIATE): one
 * that begins by reading and writes later fails outright (SQLITE_BUSY) when another connection —
 * a running server creating a project or stamping a key's use — committed in between, whereas
 * the lock taken first is waited for like any other.
 *
 * `afterCommit` runs once the transaction has committed, on the same connection before it is
 * handed on: on SQLite the process has one connection, and a step after the commit that asked
 * for it again would wait behind every transaction queued meanwhile (under a load of writes,
 * about doubling a write's latency for some of them).
 *
 * On a SQLite file the commit is not synced by SQLite on this thread: the log is synced from
 * another (WalSync) once the connection and the turn are handed on, and the promise resolves
 * after that sync, so what the caller reports as stored is on disk.
 *
 * Write transactions take turns: on SQLite one at a time (WriteTurns); on PostgreSQL `large` ones
 * (a batch of many records) at most DAYBOOK_PG_WRITERS at once (WriteSlots), while small ones run
 * beside them at once: those are a few short statements, whose time goes to round trips rather
 * than the database's cores, and a turn to wait for would only delay them.
 */
export async function writeTransaction<T>(
  storage: Storage,
  work: (trx: Kysely<Database>) => Promise<T>,
  afterCommit?: (db: Kysely<Database>) => Promise<void>,
  { large = false }: { large?: boolean } = {},
): Promise<T> {
  const turns = storage.sqlite?.turns ?? (large ? storage.writeSlots : undefined);
  const run = () =>
    storage.db.connection().execute(async (connection) => {
      let result: T;
      if (storage.dialect !== 'sqlite') {
        result = await connection.transaction().execute(work);
        await afterCommit?.(connection);
        return result;
      }
      const sqlite = storage.sqlite!;
      // The commit's sync is waited for below, after the connection and the turn are handed on.
      return sqlite.syncedAside(async () => {
        await beginImmediate(sqlite);
        // The shared write lock (if any) is held from here to the end of afterCommit.
        try {
          try {
            result = await work(connection);
            await sql`commit`.execute(connection);
          } catch (err) {
            // SQLite may have rolled back already (some errors end the transaction themselves).
            await sql`rollback`.execute(connection).catch(() => {});
            throw err;
          }
          await afterCommit?.(connection);
        } finally {
          sqlite.writeLock?.release();
        }
        return result;
      });
    });
  let result: T;
  if (!turns) result = await run();
  else {
    await turns.take();
    try {
      result = await run();
    } finally {
      turns.done();
    }
  }
  await storage.sqlite?.logSynced();
  return result;
}

/** How long a write transaction of SQLite waits for another process's write lock (an import) in all. */
const WRITE_LOCK_WAIT_MS = 2000;

/**
 * `begin immediate` on SQLite without blocking the process: better-sqlite3 waits for a lock
 * synchronously (busy_timeout), which would freeze every request of the server while another
 * process (an import) writes. Tried without waiting, then again after growing pauses that leave
 * the event loop free, for WRITE_LOCK_WAIT_MS; then SQLITE_BUSY (503 with Retry-After).
 */
async function beginImmediate(sqlite: SqliteStatements): Promise<void> {
  const deadline = Date.now() + WRITE_LOCK_WAIT_MS;
  for (let pause = 5; ; pause = Math.min(pause * 2, 200)) {
    // The shared write lock (if any) first, then the file's: the lock is never held while this
    // waits for another process, so the other thread's writes do not wait on that process too.
    await sqlite.writeLock?.acquire();
    try {
      sqlite.withoutWaiting(() => sqlite.prepare('begin immediate').run());
      return;
    } catch (err) {
      sqlite.writeLock?.release();
      const busy = String((err as { code?: string }).code).startsWith('SQLITE_BUSY');
      if (!busy || Date.now() + pause > deadline) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/**
 * Kysely's SQLite dialect, with the connection's writes taking the shared write lock where it has
 * one (shareWrites): a statement that writes (SQLite's own judgement: `readonly` of the prepared
 * statement) outside a transaction takes it for itself; a transaction that is not read only
 * takes it at its `begin`, so that no commit of the other thread falls between its first read
 * and its first write, and lets it go at its end. Where the connection holds the lock already
 * (inside writeTransaction) nothing more is taken.
 */
class SharedWritesSqliteDialect extends SqliteDialect {
  private readonly statements: KyselySqliteDatabase & SqliteStatements;

  constructor(statements: KyselySqliteDatabase & SqliteStatements) {
    super({ database: statements });
    this.statements = statements;
  }

  override createDriver(): Driver {
    return new SharedWritesDriver(super.createDriver(), this.statements);
  }
}

class SharedWritesDriver implements Driver {
  private readonly inner: Driver;
  private readonly statements: KyselySqliteDatabase & SqliteStatements;
  private wrapped: { inner: DatabaseConnection; outer: DatabaseConnection } | null = null;
  /** Whether the open transaction took the lock at its begin. */
  private transactionHolds = false;

  constructor(inner: Driver, statements: KyselySqliteDatabase & SqliteStatements) {
    this.inner = inner;
    this.statements = statements;
  }

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    if (this.wrapped?.inner !== connection) {
      const statements = this.statements;
      this.wrapped = {
        inner: connection,
        outer: {
          executeQuery<R>(query: CompiledQuery) {
            const lock = statements.writeLock;
            // A select never writes; anything else is asked of SQLite (a raw statement may write).
            if (
              !lock ||
              lock.held ||
              SelectQueryNode.is(query.query) ||
              (statements.prepare(query.sql) as SqliteDatabase.Statement).readonly
            )
              return connection.executeQuery<R>(query);
            return statements.writing(() => connection.executeQuery<R>(query));
          },
          streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
        },
      };
    }
    return this.wrapped.outer;
  }

  private innerOf(connection: DatabaseConnection): DatabaseConnection {
    return this.wrapped?.outer === connection ? this.wrapped.inner : connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const lock = this.statements.writeLock;
    if (lock && !lock.held && settings.accessMode !== 'read only') {
      await lock.acquire();
      this.transactionHolds = true;
    }
    try {
      await this.inner.beginTransaction(this.innerOf(connection), settings);
    } catch (err) {
      this.endTransaction();
      throw err;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.commitTransaction(this.innerOf(connection));
    } finally {
      this.endTransaction();
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.rollbackTransaction(this.innerOf(connection));
    } finally {
      this.endTransaction();
    }
  }

  private endTransaction(): void {
    if (!this.transactionHolds) return;
    this.transactionHolds = false;
    this.statements.writeLock?.release();
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(this.innerOf(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

const migrationsDir = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Migrations are the files in ./migrations, applied in file-name order. */
class FolderMigrations implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await readdir(migrationsDir)).filter((f) => /^\d{4}-[\w-]+\.ts$/.test(f)).sort();
    const migrations: Record<string, Migration> = {};
    for (const file of files) {
      migrations[file.replace(/\.ts$/, '')] = await import(pathToFileURL(join(migrationsDir, file)).href);
    }
    return migrations;
  }
}

/** Applies the pending migrations (up to and including `to`, a migration's name, when given). */
export async function migrate(storage: Storage, options: { to?: string } = {}): Promise<string[]> {
  const migrator = new Migrator({ db: storage.db, provider: new FolderMigrations() });
  const { error, results } =
    options.to === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(options.to);
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
