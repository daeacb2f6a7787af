import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { AgentError, describePass, runAgent, syncWithRetry } from '../agents/activitywatch-sync.ts';
import { isValidLocalDate } from '../lib/time.ts';
import { type CommandIo, UsageError } from './context.ts';

interface AgentFlags {
  awUrl: string;
  server?: string;
  key?: string;
  once?: boolean;
  since?: string;
  state?: string;
  interval: string;
}

/** A cron run that still finds a server down after 1 + 2 + 4 + 8 + 16 s gives up; the next run catches up. */
const ONCE_ATTEMPTS = 6;

/** `YYYY-MM-DD` is midnight on this machine (where the watchers run), else an ISO 8601 instant. */
function parseSince(value: string): number {
  if (isValidLocalDate(value)) {
    const [y, m, d] = value.split('-').map(Number);
    return new Date(y!, m! - 1, d!).getTime();
  }
  const ms = /^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms))
    throw new UsageError(`--since must be a date (YYYY-MM-DD) or an ISO 8601 instant with an offset (got "${value}")`);
  return ms;
}

function httpUrl(name: string, value: string): string {
  const url = URL.parse(value);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new UsageError(`${name} must be an http:// or https:// URL (got "${value}")`);
  return value;
}

/** Beside other programs' state: $XDG_STATE_HOME, else ~/.local/state (the XDG default). */
function defaultStatePath(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_STATE_HOME || join(homedir(), '.local', 'state'), 'daybook', 'activitywatch.json');
}

export function register(program: Command, { env, out, err }: CommandIo): void {
  const agent = program.command('agent').description('record time from trackers running on this machine');

  agent
    .command('activitywatch')
    .description("post ActivityWatch's not-afk window time to a Daybook server (docs/activitywatch.md)")
    .option('--aw-url <url>', 'the local aw-server', 'http://127.0.0.1:5600')
    .option('--server <url>', 'the Daybook server (default: $DAYBOOK_SERVER)')
    .option('--key <key>', 'a Daybook key with activity:write (default: $DAYBOOK_KEY)')
    .option('--once', 'one pass, then exit (for cron)')
    .option('--since <date>', 'read from this date (YYYY-MM-DD, local midnight) or instant, not from where it stopped')
    .option('--state <file>', 'where it remembers how far it got (default: $XDG_STATE_HOME/daybook/activitywatch.json)')
    .option('--interval <seconds>', 'seconds between passes', '60')
    .action(async (flags: AgentFlags) => {
      const server = flags.server ?? env.DAYBOOK_SERVER;
      const key = flags.key ?? env.DAYBOOK_KEY;
      if (!server) throw new UsageError('--server (or DAYBOOK_SERVER) is required');
      if (!key) throw new UsageError('--key (or DAYBOOK_KEY) is required');
      const interval = Number(flags.interval);
      if (!Number.isInteger(interval) || interval < 1 || interval > 86_400)
        throw new UsageError(`--interval must be a whole number of seconds from 1 to 86400 (got "${flags.interval}")`);
      const options = {
        awUrl: httpUrl('--aw-url', flags.awUrl),
        server: httpUrl('--server', server),
        key,
        statePath: flags.state ?? defaultStatePath(env),
        since: flags.since === undefined ? undefined : parseSince(flags.since),
        log: err,
      };
      if (flags.once) {
        const result = await syncWithRetry(options, { attempts: ONCE_ATTEMPTS });
        if (result) out(describePass(result));
        return;
      }
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
      try {
        err(`posting ActivityWatch time from ${options.awUrl} to ${options.server} every ${interval} s`);
        await runAgent(options, interval * 1000, stop.signal);
      } catch (error) {
        if (error instanceof AgentError) throw new Error(`agent stopped: ${error.message}`, { cause: error });
        throw error;
      } finally {
        process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      }
    });
}
