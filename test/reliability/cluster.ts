/**
 * A PostgreSQL cluster of a test's own (initdb into a temporary directory, on a free port), to
 * stop, cut off or freeze without touching the shared server.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './processes.ts';

const run = promisify(execFile);

/** initdb and pg_ctl of the newest PostgreSQL installed, or null. */
function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(root, versions[0], 'bin');
}

const bin = postgresBin();
/** initdb refuses root: the cluster then belongs to the system's postgres user. */
const asRoot = process.getuid?.() === 0;

/** Why a test of a cluster of its own cannot run here, or null. */
export const NO_CLUSTER: string | null = bin === null ? 'initdb is not installed' : null;

export class Cluster {
  readonly dir: string;
  readonly port: number;
  /** The processes stopped by freeze(), to resume. */
  #frozen: number[] = [];

  constructor(dir: string, port: number) {
    this.dir = dir;
    this.port = port;
  }

  static async create(): Promise<Cluster> {
    const dir = await mkdtemp(join(tmpdir(), 'daybook-outage-'));
    if (asRoot) {
      const { stdout } = await run('id', ['-u', 'postgres']);
      const { stdout: group } = await run('id', ['-g', 'postgres']);
      await chown(dir, Number(stdout.trim()), Number(group.trim()));
    }
    const cluster = new Cluster(dir, await freePort());
    await cluster.tool('initdb', ['-D', cluster.data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    await cluster.start();
    return cluster;
  }

  get data(): string {
    return join(this.dir, 'data');
  }

  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async tool(name: string, args: string[]): Promise<void> {
    const program = join(bin!, name);
    if (asRoot) await run('runuser', ['-u', 'postgres', '--', program, ...args]);
    else await run(program, args);
  }

  start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
    return this.tool('pg_ctl', ['-D', this.data, '-o', options, '-l', join(this.dir, 'log'), '-w', 'start']);
  }

  stop(): Promise<void> {
    return this.tool('pg_ctl', ['-D', this.data, '-m', 'fast', '-w', 'stop']);
  }

  /**
   * Stops this cluster's server and every process of it (`kill -STOP`): connections stay open
   * and new ones are accepted by the kernel, but nothing is answered until thaw().
   */
  async freeze(): Promise<void> {
    const postmaster = Number((await readFile(join(this.data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    // The postmaster first, so that it starts no process after its children were listed.
    process.kill(postmaster, 'SIGSTOP');
    this.#frozen.push(postmaster);
    const { stdout } = await run('ps', ['-o', 'pid=', '--ppid', String(postmaster)]);
    for (const pid of stdout.split('\n').map(Number).filter(Boolean)) {
      process.kill(pid, 'SIGSTOP');
      this.#frozen.push(pid);
    }
  }

  /** Resumes what freeze() stopped (`kill -CONT`). */
  thaw(): void {
    for (const pid of this.#frozen.splice(0)) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Gone meanwhile.
      }
    }
  }

  /** One statement on the `postgres` database, on a connection of its own. */
  async admin(statement: string, values: unknown[] = []): Promise<pg.QueryResult> {
    const client = new pg.Client({ connectionString: this.url('postgres') });
    client.on('error', () => {});
    await client.connect();
    try {
      return await client.query(statement, values);
    } finally {
      await client.end();
    }
  }

  async remove(): Promise<void> {
    this.thaw();
    await this.stop().catch(() => {});
    await rm(this.dir, { recursive: true, force: true });
  }
}
