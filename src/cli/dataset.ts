import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { exportDataset } from '../dataset/export.ts';
import { ImportError, importDataset } from '../dataset/import.ts';
import { isNdjson } from '../dataset/read.ts';
import { type CommandIo, UsageError } from './context.ts';
import { collectGarbageEvery } from '../lib/heap.ts';

export function register(program: Command, { stdout, stderr, out, err, withStorage }: CommandIo): void {
  program
    .command('import')
    .argument('<file>', 'dataset file: NDJSON when it ends in .ndjson or .jsonl, else a JSON document')
    .description('load a dataset file (upsert by id, all-or-nothing)')
    .action(async (file: string) => {
      const found = await stat(file).catch(() => null);
      if (!found) throw new UsageError(`cannot read ${file}`);
      if (!found.isFile()) throw new UsageError(`cannot read ${file}: not a file`);
      const bar = stderr.isTTY
        ? new SingleBar({ format: 'importing {value} records | {rate} records/s | {duration}s', stream: stderr })
        : null;
      const started = Date.now();
      const collect = collectGarbageEvery();
      bar?.start(0, 0, { rate: 0 });
      try {
        const counts = await withStorage((storage) =>
          importDataset(storage, file, {
            onProgress: (n) => {
              collect(n);
              const seconds = (Date.now() - started) / 1000;
              bar?.setTotal(n);
              bar?.update(n, { rate: Math.round(n / Math.max(seconds, 0.001)) });
            },
          }),
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
