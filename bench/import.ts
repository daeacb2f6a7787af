/**
 * Import benchmark: generates an NDJSON file of N activities (default 1,000,000) into
 * bench/.data/, imports it with the real importer into a fresh SQLite file (and into a fresh
 * PostgreSQL database beside DAYBOOK_DATABASE_URL when that is a postgres:// URL), and prints
 * records/s and memory. Memory is sampled during the import to show it does not grow with
 * the file.
 *
 *   bash scripts/node.sh bench/import.ts [--activities N] [--regenerate]
 */
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { importDataset } from '../src/dataset/import.ts';
import { migrate, openStorage } from '../src/storage/database.ts';
import { writeActivityDataset } from './lib/activity-stream.ts';

const { values } = parseArgs({
  options: {
    activities: { type: 'string', default: '1000000' },
    regenerate: { type: 'boolean', default: false },
  },
});
const activities = Number(values.activities);
if (!Number.isInteger(activities) || activities < 1) {
  console.error('bench/import: --activities must be a positive integer');
  process.exit(2);
}

const dataDir = join(dirname(fileURLToPath(import.meta.url)), '.data');
mkdirSync(dataDir, { recursive: true });
const file = join(dataDir, `activities-${activities}.ndjson`);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

if (values.regenerate || !existsSync(file)) {
  const started = performance.now();
  const records = await writeActivityDataset(file, activities);
  const seconds = (performance.now() - started) / 1000;
  console.log(`generated ${records} records (${mib(statSync(file).size)}) in ${seconds.toFixed(1)} s: ${file}`);
}

async function run(label: string, url: string): Promise<void> {
  const storage = openStorage(url);
  try {
    await migrate(storage);
    const samples: string[] = [];
    let nextSample = 0.25;
    const started = performance.now();
    const counts = await importDataset(storage, file, {
      onProgress: (n) => {
        // Records applied so far against the activities expected; the header lines are few.
        if (n >= activities * nextSample) {
          const { rss, heapUsed } = process.memoryUsage();
          samples.push(`${Math.round(nextSample * 100)}%: ${mib(rss)} (JS heap ${mib(heapUsed)})`);
          nextSample += 0.25;
        }
      },
    });
    const seconds = (performance.now() - started) / 1000;
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    console.log(
      `${label}: ${total} records (${counts.activity} activities) in ${seconds.toFixed(1)} s = ` +
        `${Math.round(total / seconds)} records/s, ${Math.round(counts.activity / seconds)} activities/s`,
    );
    console.log(
      `${label}: RSS during import ${samples.join(', ')}; peak RSS ${mib(process.resourceUsage().maxRSS * 1024)}`,
    );
  } finally {
    await storage.close();
  }
}

const sqliteFile = join(dataDir, 'import-bench.db');
for (const suffix of ['', '-wal', '-shm']) rmSync(sqliteFile + suffix, { force: true });
await run('sqlite', `sqlite:${sqliteFile}`);
for (const suffix of ['', '-wal', '-shm']) rmSync(sqliteFile + suffix, { force: true });

const pgUrl = process.env.DAYBOOK_DATABASE_URL ?? '';
if (/^postgres(ql)?:\/\//.test(pgUrl)) {
  // A fresh database on the same server, so the benchmark never touches real data.
  const name = `daybook_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const benchUrl = new URL(pgUrl);
  benchUrl.pathname = `/${name}`;
  try {
    await run('postgres', benchUrl.toString());
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
