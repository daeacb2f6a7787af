import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { exportDataset } from '../dataset/export.ts';
import { ImportError, importDataset } from '../dataset/import.ts';
import { isNdjson } from '../dataset/read.ts';
import { type CommandIo, UsageError, parseChoice } from './context.ts';
import { exportActivities } from '../agents/activitywatch.ts';
import { collectGarbageEvery } from '../lib/heap.ts';
import { findUser } from '../storage/accounts.ts';
import type { Storage } from '../storage/database.ts';

const FORMATS = ['daybook', 'activitywatch'] as const;

/**
 * An aw-server export (`GET /api/0/export`) as a dataset file of `userId`'s activities, in a
 * temporary folder that `use` may read; the same activities and ids as the agent posts
 * (agents/activitywatch.ts), so importing the export and running the agent agree.
 */
async function withActivityWatchDataset<T>(
  storage: Storage,
  file: string,
  userId: string,
  use: (path: string) => Promise<T>,
): Promise<T> {
  if (!(await findUser(storage.db, userId))) throw new UsageError(`no user with id "${userId}"`);
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new ImportError(`${file}: not a JSON document (${(error as Error).message})`);
  }
  let activities: ReturnType<typeof exportActivities>;
  try {
    activities = exportActivities(doc, Date.now());
  } catch (error) {
    throw new ImportError(`${file}: ${(error as Error).message}`);
  }
  const dir = await mkdtemp(join(tmpdir(), 'daybook-aw-'));
  try {
    const path = join(dir, 'activities.json');
    await writeFile(path, JSON.stringify({ version: 1, activities: activities.map((a) => ({ ...a, userId })) }));
    return await use(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function register(program: Command, { stdout, stderr, out, err, withStorage }: CommandIo): void {
  program
    .command('import')
    .argument('<file>', 'dataset file: NDJSON when it ends in .ndjson or .jsonl, else a JSON document')
    .description('load a dataset file, or an ActivityWatch export (upsert by id, all-or-nothing)')
    .option(
      '--from <format>',
      `daybook (a dataset file) or activitywatch (an aw-server export, with --user)`,
      'daybook',
    )
    .option('--user <id>', "whose activities an ActivityWatch export's window time becomes")
    .action(async (file: string, options: { from: string; user?: string }) => {
      const from = parseChoice('--from', options.from, FORMATS);
      if (from === 'activitywatch' && options.user === undefined)
        throw new UsageError('--from activitywatch needs --user <id>');
      if (from === 'daybook' && options.user !== undefined)
        throw new UsageError('--user goes with --from activitywatch');
      const found = await stat(file).catch(() => null);
      if (!found) throw new UsageError(`${file} does not exist (give the path of a dataset file)`);
      if (!found.isFile()) throw new UsageError(`cannot read ${file}: not a file`);
      // A JSON document tells its total before the records are applied; an NDJSON file does not.
      let knownTotal: number | null = null;
      const bar = stderr.isTTY
        ? new SingleBar({
            format: 'importing {bar} {value}/{total} records | {rate} records/s | {duration}s',
            stream: stderr,
          })
        : null;
      const started = Date.now();
      const collect = collectGarbageEvery();
      bar?.start(0, 0, { rate: 0 });
      try {
        const load = (storage: Storage, path: string) =>
          importDataset(storage, path, {
            onTotal: (n) => {
              knownTotal = n;
              bar?.setTotal(n);
            },
            onProgress: (n) => {
              collect(n);
              const seconds = (Date.now() - started) / 1000;
              if (knownTotal === null) bar?.setTotal(n);
              bar?.update(n, { rate: Math.round(n / Math.max(seconds, 0.001)) });
            },
          });
        const counts = await withStorage((storage) =>
          from === 'activitywatch'
            ? withActivityWatchDataset(storage, file, options.user!, (path) => load(storage, path))
            : load(storage, file),
        );
        bar?.stop();
        const total = Object.values(counts).reduce((a, b) => a + b, 0);
        const seconds = (Date.now() - started) / 1000;
        const detail = Object.entries(counts)
          .filter(([, n]) => n > 0)
          .map(([t, n]) => `${t}: ${n}`)
          .join(', ');
        out(`imported ${total} records in ${seconds.toFixed(1)} s (${detail || 'nothing'})`);
      } catch (error) {
        bar?.stop();
        // Exit status 1, not a usage error: the file is at fault, not how the command was called.
        if (error instanceof ImportError)
          throw new Error(`import failed, nothing was changed: ${error.message}`, { cause: error });
        throw error;
      }
    });

  program
    .command('export')
    .option('--out <file>', 'write to a file instead of standard output (NDJSON when it ends in .ndjson or .jsonl)')
    .option('--format <format>', 'json or ndjson (default: from --out, else json)')
    .description('write the whole database in the dataset format (API keys as keyHash)')
    .action(async (options: { out?: string; format?: string }) => {
      const format = options.format ?? (options.out !== undefined && isNdjson(options.out) ? 'ndjson' : 'json');
      if (format !== 'json' && format !== 'ndjson') throw new UsageError(`--format must be json or ndjson`);
      await withStorage(async (storage) => {
        const target = options.out ? createWriteStream(options.out) : stdout;
        const count = await exportDataset(storage, target, format);
        if (options.out) {
          target.end();
          await finished(target);
          err(`exported ${count} records to ${options.out}`);
        }
      });
    });
}
