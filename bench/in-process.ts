/**
 * What each kind of request of the mixed scenario costs the server's one JavaScript thread,
 * without sockets or a load generator: requests go through `app.inject()` one at a time on the
 * benchmark database (prepared by `npm run bench`), and each kind prints its mean and p50 in ms.
 * `npm run bench` measures the server under load; this says where its time per request goes.
 *
 *   bash scripts/node.sh bench/in-process.ts [kind …] [--rounds N]
 *
 * The mix's writes are deleted again at the end (their summaries are rebuilt by the next
 * `npm run bench` or `daybook summaries generate`).
 * DAYBOOK_DATABASE_URL selects the database as for `npm run bench` (SQLite by default);
 * DAYBOOK_REPORT_WORKERS=0 builds large reports on the main thread, as one request costs.
 *
 * `mixed` also prints each kind's mean and p50 within the mix: there each cost 1.7–4.9 times its
 * figure on its own when measured (docs/performance.md), so the kinds' own figures do not add up
 * to the mix's.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { buildApp, loggerOptions } from '../src/http/app.ts';
import { MemoryRateLimiter } from '../src/http/rate-limit.ts';
import { openStorage } from '../src/storage/database.ts';
import { benchDatabaseUrl, datasetFacts, ensureDataset, summaryDaysOf } from './dataset.ts';
import { kindOf, MIXED_KINDS, type MixedKind, mixedRequests, scenarioRequests } from './lib/requests.ts';
import { runPrefix, scrubWritten, writeKeys } from './lib/writes.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rounds: { type: 'string', default: '2000' } },
});
const rounds = Number(values.rounds);
const kinds = positionals.length ? positionals : ['mixed', ...MIXED_KINDS];

const shape = [
  Number(process.env.BENCH_USERS ?? 100),
  Number(process.env.BENCH_DAYS ?? 365),
  Number(process.env.BENCH_SEED ?? 1),
] as const;
const facts = await datasetFacts(await ensureDataset(...shape));
const url = benchDatabaseUrl(...shape);
const storage = openStorage(url);
const config = {
  ...loadConfig({ DAYBOOK_DATABASE_URL: url, DAYBOOK_REPORT_WORKERS: process.env.DAYBOOK_REPORT_WORKERS }),
  rateLimitPerMinute: 1e9,
  authFailuresPerMinute: 1e9,
};
const app = await buildApp(
  { storage, config, rateLimiter: new MemoryRateLimiter(), now: Date.now },
  { logger: loggerOptions('warn') },
);
await app.ready();

console.log(`${'kind'.padEnd(21)} ${'mean ms'.padStart(8)} ${'p50 ms'.padStart(8)} ${'req/s'.padStart(8)}`);
const single = scenarioRequests(facts);
const summaryDays = await summaryDaysOf(url, facts.paidUsers);
// The mix's writes go in under this run's ids and are deleted at the end.
const access = await writeKeys(url, facts, facts.paidUsers);
const writes = { prefix: runPrefix(), keys: access.keys };
for (const kind of kinds) {
  const request = single[kind];
  if (!request && kind !== 'mixed' && !(MIXED_KINDS as readonly string[]).includes(kind)) {
    console.error(`unknown kind ${kind}; known: mixed, ${[...MIXED_KINDS, ...Object.keys(single)].join(', ')}`);
    process.exit(2);
  }
  const next = request
    ? () => request
    : mixedRequests(
        facts,
        summaryDays,
        // Each kind counts from the same n: its ids apart from the other kinds'.
        { ...writes, prefix: `${writes.prefix}${kind}-` },
        kind === 'mixed' ? undefined : (kind as MixedKind),
      );
  const times: number[] = [];
  const byKind = new Map<MixedKind, number[]>();
  // The first rounds warm the JIT, the caches and the database pages; they are not counted.
  const warmup = request ? Math.min(20, rounds) : Math.min(500, rounds);
  for (let n = -warmup; n < rounds; n++) {
    const r = next(n + 1_000_000);
    const started = performance.now();
    const res = await app.inject({
      method: r.method ?? 'GET',
      url: r.path,
      headers: { 'content-type': 'application/json', ...r.headers },
      ...(r.body ? { payload: r.body } : {}),
    });
    const elapsed = performance.now() - started;
    if (res.statusCode !== 200 && res.statusCode !== 201)
      throw new Error(`${kind}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    if (n >= 0) {
      times.push(elapsed);
      if (kind === 'mixed') {
        const own = kindOf(n + 1_000_000);
        const kept = byKind.get(own);
        if (kept) kept.push(elapsed);
        else byKind.set(own, [elapsed]);
      }
    }
  }
  printTimes(kind, times);
  if (byKind.size > 0) console.log('each kind in the mix:');
  for (const k of MIXED_KINDS) if (byKind.has(k)) printTimes(`  ${k}`, byKind.get(k)!);
}

/** One line: the kind, its mean and p50 in ms, and the requests per second the mean makes. */
function printTimes(label: string, times: number[]): void {
  times.sort((a, b) => a - b);
  const mean = times.reduce((s, t) => s + t, 0) / times.length;
  console.log(
    `${label.padEnd(21)} ${mean.toFixed(3).padStart(8)} ${times[Math.floor(times.length / 2)]!.toFixed(3).padStart(8)} ${Math.round(
      1000 / mean,
    )
      .toString()
      .padStart(8)}`,
  );
}
await app.close();
await storage.close();
await scrubWritten(url, writes.prefix);
await access.drop();
