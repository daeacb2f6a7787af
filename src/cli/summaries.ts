import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { isValidLocalDate } from '../lib/time.ts';
import { generateSummaries } from '../services/summaries/generate.ts';
import { findUser } from '../storage/accounts.ts';
import { type CommandIo, UsageError } from './context.ts';

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function register(program: Command, { stderr, out, withStorage }: CommandIo): void {
  const summaries = program.command('summaries').description('day, week, month, quarter and year summaries');

  summaries
    .command('generate')
    .description('build the summaries that are due (ended periods with tracked time, and ones whose data changed)')
    .option('--user <id>', 'only this user')
    .option('--until <date>', 'only periods that end on or before this local date (YYYY-MM-DD)')
    .action(async (options: { user?: string; until?: string }) => {
      if (options.until !== undefined && !isValidLocalDate(options.until)) {
        throw new UsageError(`--until must be a date in the form YYYY-MM-DD (got "${options.until}")`);
      }
      await withStorage(async (storage) => {
        const user = options.user === undefined ? undefined : await findUser(storage.db, options.user);
        if (options.user !== undefined && !user) throw new UsageError(`no user with id "${options.user}"`);
        const bar = stderr.isTTY
          ? new SingleBar({
              format: 'summaries |{bar}| {value}/{total} users | {built} built | {duration}s',
              stream: stderr,
            })
          : null;
        const started = Date.now();
        bar?.start(0, 0, { built: 0 });
        try {
          const stats = await generateSummaries(storage, {
            now: started,
            user,
            until: options.until,
            onProgress: (p) => {
              bar?.setTotal(p.usersTotal);
              bar?.update(p.usersDone, { built: p.built });
            },
          });
          bar?.stop();
          const seconds = ((Date.now() - started) / 1000).toFixed(1);
          out(
            `built ${count(stats.built, 'summary', 'summaries')} for ${count(stats.users, 'user', 'users')} in ${seconds} s ` +
              `(${stats.current} already current, ${stats.removed} removed, ${stats.claimedElsewhere} built by another process)` +
              (stats.deliveriesQueued ? `; ${count(stats.deliveriesQueued, 'delivery', 'deliveries')} queued` : ''),
          );
        } catch (err) {
          bar?.stop();
          throw err;
        }
      });
    });
}
