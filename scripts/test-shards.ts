/**
 * Runs test files in parallel shards: each shard is one Node process that runs its files one
 * after another in that process (`--test-isolation=none`), so the modules are loaded and the
 * schemas compiled once per shard rather than once per file. Most tests spend their time waiting
 * (on child processes, a browser, PostgreSQL, timers), so more shards than cores keep both busy.
 *
 * Files are dealt out by how long each took last time (longest first, each to the shard with the
 * least so far): test-output/test-timings-<tier>.json, written after every run, or else the
 * committed test/timings-<tier>.json (`full` or `fast`, as the files run on different databases).
 * A file in neither counts as DEFAULT_SECONDS. The figures only balance the shards: stale ones
 * make a run slower, never wrong.
 *
 * Each shard's spec output is printed whole when it ends, then the totals of all of them; the
 * exit code is 1 when any shard failed.
 *
 *   node scripts/test-shards.ts [--shards N] file...
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const OUTPUT = 'test-output';
/** `npm test` and `npm run test:fast` run the files on different databases: each has its own. */
const TIER = process.env.DAYBOOK_TEST_TIER === 'fast' ? 'fast' : 'full';
const LEARNED = join(OUTPUT, `test-timings-${TIER}.json`);
const COMMITTED = join('test', `timings-${TIER}.json`);
const DEFAULT_SECONDS = 2;
const REPORTER = join(import.meta.dirname, 'test-timings-reporter.ts');

const { values, positionals: files } = parseArgs({
  options: { shards: { type: 'string', default: String(availableParallelism() * 2) } },
  allowPositionals: true,
});
const shardCount = Math.max(1, Math.min(files.length, Number.parseInt(values.shards, 10) || 1));

function readTimings(path: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}
const timings = existsSync(LEARNED) ? readTimings(LEARNED) : readTimings(COMMITTED);
const weight = (file: string) => timings[file] ?? DEFAULT_SECONDS;

const shards = Array.from({ length: shardCount }, () => ({ files: [] as string[], seconds: 0 }));
for (const file of [...files].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b))) {
  const lightest = shards.reduce((best, shard) => (shard.seconds < best.seconds ? shard : best));
  lightest.files.push(file);
  lightest.seconds += weight(file);
}

interface Outcome {
  index: number;
  code: number;
  seconds: number;
  log: string;
}

function runShard(index: number, shardFiles: string[]): Promise<Outcome> {
  const logPath = join(OUTPUT, `shard-${index}.log`);
  const timingsPath = join(OUTPUT, `shard-${index}-timings.json`);
  const log = openSync(logPath, 'w');
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      '--test',
      '--test-isolation=none',
      '--test-timeout=300000',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${REPORTER}`,
      `--test-reporter-destination=${timingsPath}`,
      ...shardFiles,
    ],
    { stdio: ['ignore', log, log] },
  );
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      const seconds = (performance.now() - started) / 1000;
      resolve({ index, code: code ?? (signal ? 1 : 0), seconds, log: readFileSync(logPath, 'utf8') });
    });
  });
}

mkdirSync(OUTPUT, { recursive: true });
const started = performance.now();
console.log(`${files.length} test files in ${shardCount} shards`);
const outcomes = await Promise.all(
  shards.map((shard, index) =>
    runShard(index + 1, shard.files).then((outcome) => {
      console.log(
        `\n== shard ${outcome.index} (${shard.files.length} files): exit ${outcome.code} after ${outcome.seconds.toFixed(0)} s`,
      );
      process.stdout.write(outcome.log);
      return outcome;
    }),
  ),
);

// What this run learned, for the next one's shards: half the old figure and half the new, as a
// file's time moves with what runs beside it.
const learned = { ...timings };
for (const { index } of outcomes) {
  for (const [file, seconds] of Object.entries(readTimings(join(OUTPUT, `shard-${index}-timings.json`)))) {
    learned[file] = file in timings ? (weight(file) + seconds) / 2 : seconds;
  }
}
const rounded = Object.fromEntries(
  Object.entries(learned)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([file, seconds]) => [file, Math.round(seconds * 10) / 10]),
);
writeFileSync(LEARNED, `${JSON.stringify(rounded, null, 2)}\n`);

const totals = new Map<string, number>();
for (const { log } of outcomes) {
  for (const match of log.matchAll(/^ℹ (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm)) {
    totals.set(match[1]!, (totals.get(match[1]!) ?? 0) + Number(match[2]));
  }
}
const failed = outcomes.filter(({ code }) => code !== 0).map(({ index }) => index);
console.log(
  `\n== all shards: ${[...totals].map(([name, count]) => `${name} ${count}`).join(', ')}; ` +
    `${((performance.now() - started) / 1000).toFixed(0)} s` +
    (failed.length > 0 ? `; shard ${failed.join(', ')} failed (their output above ends with the failures)` : ''),
);
process.exit(failed.length > 0 ? 1 : 0);
