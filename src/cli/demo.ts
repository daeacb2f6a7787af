import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { type DemoCounts, writeDemoJson, writeDemoNdjson } from '../demo/generate.ts';
import { isNdjson } from '../dataset/read.ts';
import { importDemo } from '../demo/import-demo.ts';
import { type DemoKey, type DemoOptions, buildWorkspace } from '../demo/workspace.ts';
import { type CommandIo, UsageError } from './context.ts';
import { collectGarbageEvery } from '../lib/heap.ts';

function wholeNumber(name: string, value: string, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new UsageError(`${name} must be a whole number from 1 to ${max} (got "${value}")`);
  return n;
}

function instant(value: string | undefined): number {
  if (value === undefined) return Date.now();
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(ms)) {
    throw new UsageError(`--now must be an ISO 8601 instant such as 2026-11-22T12:00:00Z (got "${value}")`);
  }
  return ms;
}

function describeCounts(counts: DemoCounts): string {
  return Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([type, n]) => `${type}: ${n}`)
    .join(', ');
}

function describeKeys(keys: DemoKey[]): string[] {
  return keys.map((k) => `  ${k.key}  ${k.userName} — ${k.name}${k.revoked ? ' (revoked)' : ''}`);
}

export function register(program: Command, { stdout, stderr, out, err, withStorage }: CommandIo): void {
  program
    .command('demo')
    .description(
      'generate a realistic demo workspace; imports it unless --out is given (same seed, same data; new random keys each time)',
    )
    .option('--users <n>', 'number of people', '10')
    .option('--days <n>', 'days of history, ending yesterday', '60')
    .option('--seed <text>', 'seed of the generator', '1')
    .option('--now <instant>', 'the clock the days end before (ISO 8601; default: now)')
    .option(
      '--keys-from-seed',
      'derive the API keys from the seed too, for a byte-identical file (anyone who knows the seed can work them out: never on a shared server)',
    )
    .option(
      '--out <file>',
      'write a dataset file instead of importing: NDJSON when it ends in .ndjson or .jsonl, "-" for NDJSON on standard output, else a JSON document',
    )
    .action(
      async (o: { users: string; days: string; seed: string; now?: string; out?: string; keysFromSeed?: boolean }) => {
        const options: DemoOptions = {
          users: wholeNumber('--users', o.users, 1000),
          days: wholeNumber('--days', o.days, 3660),
          seed: o.seed,
          now: instant(o.now),
          // Keys carry 160 random bits unless asked to follow from the seed (docs/api.md, "Every request").
          ...(o.keysFromSeed ? {} : { keySalt: randomBytes(32).toString('hex') }),
        };
        const keysAre = o.keysFromSeed
          ? 'derived from the seed: for trying things out, never on a shared server'
          : 'random';
        // With the dataset on standard output, everything else goes to standard error.
        const say = o.out === '-' ? err : out;
        const bar = stderr.isTTY
          ? new SingleBar({ format: '{stage} {value} records | {duration}s', stream: stderr })
          : null;
        bar?.start(0, 0, { stage: 'generating' });
        const collect = collectGarbageEvery();
        const progress = (stage: string, records: number) => {
          if (stage === 'importing') collect(records);
          bar?.setTotal(records);
          bar?.update(records, { stage });
        };

        if (o.out !== undefined) {
          const ndjson = o.out === '-' || isNdjson(o.out);
          const target: Writable = o.out === '-' ? stdout : createWriteStream(o.out);
          const counts = ndjson
            ? await writeDemoNdjson(options, target, (n) => progress('generating', n))
            : await writeDemoJson(options, target);
          if (target !== stdout) {
            target.end();
            await finished(target);
          }
          bar?.stop();
          say(`wrote the demo workspace to ${o.out === '-' ? 'standard output' : o.out} (${describeCounts(counts)})`);
          say(`API keys in the file (plaintext, ${keysAre}):`);
          for (const line of describeKeys(buildWorkspace(options).keys)) say(line);
          return;
        }

        const result = await withStorage((storage) =>
          importDemo(storage, options, (p) => progress(p.stage, p.records)),
        );
        bar?.stop();
        say(`imported the demo workspace (${describeCounts(result.counts)}); built ${result.summaries} summaries`);
        say(`API keys (${keysAre}):`);
        for (const line of describeKeys(result.keys)) say(line);
      },
    );
}
