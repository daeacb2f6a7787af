/**
 * Runs the summary generator inside `daybook serve`: once at start, then every interval.
 * Runs never overlap; stopping ends the run in progress after the summary it is building (the
 * rest stays due), so a shutdown waits for one summary, not for a whole run.
 */
import type { Storage } from '../../storage/database.ts';
import { type GenerateStats, generateSummaries } from './generate.ts';

export interface SummaryScheduler {
  stop(): Promise<void>;
}

export interface SchedulerOptions {
  storage: Storage;
  intervalSeconds: number;
  now: () => number;
  /** After each run, with how long it took in ms. */
  onRun?: (stats: GenerateStats, ms: number) => void;
  onError?: (err: unknown, ms: number) => void;
}

export function startSummaryScheduler(options: SchedulerOptions): SummaryScheduler {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const stopping = new AbortController();

  const run = () => {
    const started = performance.now();
    running = generateSummaries(options.storage, { now: options.now(), signal: stopping.signal })
      .then(
        (stats) => options.onRun?.(stats, performance.now() - started),
        (err) => options.onError?.(err, performance.now() - started),
      )
      .finally(() => {
        if (!stopped) timer = setTimeout(run, options.intervalSeconds * 1000);
      });
  };
  if (options.intervalSeconds > 0) run();

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      stopping.abort();
      await running;
    },
  };
}
