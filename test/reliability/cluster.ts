/**
 * A PostgreSQL cluster of a test's own (initdb into a temporary directory, on a free port), to
 * stop or cut off without touching the shared server.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
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
    await this.stop().catch(() => {});
    await rm(this.dir, { recursive: true, force: true });
  }
}
