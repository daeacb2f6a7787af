/**
 * `daybook destinations …` (docs/delivery.md): the same destinations as `/destinations`, for an
 * operator on the server's machine, with the same rules (the service's, not a copy of them).
 */
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { ApiError } from '../errors.ts';
import type { CreateDestinationBody, UpdateDestinationBody } from '../schemas/destinations.ts';
import {
  changeDestination,
  createDestination,
  deliveriesOf,
  listDestinationsOf,
  removeDestination,
  testDestination,
} from '../services/delivery/destinations.ts';
import type { DeliverySettings } from '../services/delivery/worker.ts';
import { findUser, type UserRow } from '../storage/accounts.ts';
import type { Storage } from '../storage/database.ts';
import { type CommandIo, parseChoice, printList, UsageError } from './context.ts';

const KINDS = ['slack', 'discord', 'webhook'] as const;
const LEVELS = ['day', 'week', 'month', 'quarter', 'year'] as const;

function levelsOption(value: string): CreateDestinationBody['levels'] {
  const levels = value
    .split(',')
    .map((l) => l.trim())
    .filter(Boolean);
  if (levels.length === 0) throw new UsageError(`--levels needs at least one of ${LEVELS.join(', ')}`);
  return [...new Set(levels.map((l) => parseChoice('--levels', l, LEVELS)))];
}

/** The service's 400s and 404s, said as a command's mistakes. */
async function asCommand<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ApiError && err.status < 500) throw new UsageError(err.message);
    throw err;
  }
}

async function userOf(storage: Storage, id: string): Promise<UserRow> {
  const user = await findUser(storage.db, id);
  if (!user) throw new UsageError(`no user with id "${id}"`);
  return user;
}

export function register(program: Command, { out, err, env, withStorage }: CommandIo): void {
  const settings = (): DeliverySettings => {
    const config = loadConfig(env);
    return { timeoutMs: config.deliveryTimeoutMs, allowPrivate: config.deliveryAllowPrivate };
  };
  const destinations = program
    .command('destinations')
    .description('where summaries are delivered: Slack, Discord and signed webhooks (docs/delivery.md)');

  destinations
    .command('list')
    .requiredOption('--user <id>', 'the user whose destinations to list')
    .option('--json', 'a JSON array instead, for scripts')
    .description('list destinations: a header row, then id, kind, url (masked), levels, updates, state tab-separated')
    .action(async (o: { user: string; json?: boolean }) => {
      const list = await withStorage(async (s) => listDestinationsOf(s, (await userOf(s, o.user)).id));
      if (o.json) return out(JSON.stringify(list, null, 2));
      printList(
        out,
        list.map((d) => ({
          id: d.id,
          kind: d.kind,
          url: d.url,
          levels: d.levels.join(','),
          updates: d.updates ? 'updates' : 'once',
          state: d.enabled ? 'enabled' : `disabled${d.disabledReason ? `: ${d.disabledReason}` : ''}`,
        })),
        ['id', 'kind', 'url', 'levels', 'updates', 'state'],
        false,
      );
    });

  destinations
    .command('add')
    .requiredOption('--user <id>', 'the user whose summaries are delivered')
    .requiredOption('--kind <kind>', KINDS.join(', '))
    .requiredOption('--url <url>', 'the incoming-webhook URL (Slack, Discord) or the https endpoint (webhook)')
    .option('--levels <list>', `comma-separated levels out of ${LEVELS.join(', ')}`, 'day')
    .option('--updates', 'deliver a summary again when it is rebuilt after late data')
    .option('--name <name>', 'a label of your own')
    .description('add a destination; a webhook prints its signing secret this once')
    .action(
      async (o: { user: string; kind: string; url: string; levels: string; updates?: boolean; name?: string }) => {
        const body: CreateDestinationBody = {
          kind: parseChoice('--kind', o.kind, KINDS),
          url: o.url,
          levels: levelsOption(o.levels),
          updates: Boolean(o.updates),
          ...(o.name !== undefined && { name: o.name }),
        };
        const created = await withStorage(async (s) =>
          asCommand(async () => createDestination(s, (await userOf(s, o.user)).id, body, settings(), Date.now())),
        );
        err(
          `created destination ${created.destination.id} (${created.destination.kind}, ${created.destination.levels.join(',')})`,
        );
        if (created.secret) {
          err('its signing secret is shown only this once:');
          out(created.secret);
        } else out(created.destination.id);
      },
    );

  destinations
    .command('update')
    .argument('<id>', 'destination id (from destinations list)')
    .requiredOption('--user <id>', 'the destination’s user')
    .option('--url <url>', 'a new URL')
    .option('--levels <list>', `comma-separated levels out of ${LEVELS.join(', ')}`)
    .option('--updates', 'deliver rebuilt summaries again')
    .option('--no-updates', 'deliver each summary once')
    .option('--enable', 'enable it (also after the server disabled it)')
    .option('--disable', 'pause deliveries')
    .description('change a destination')
    .action(
      async (
        id: string,
        o: { user: string; url?: string; levels?: string; updates?: boolean; enable?: boolean; disable?: boolean },
      ) => {
        if (o.enable && o.disable) throw new UsageError('give --enable or --disable, not both');
        const body: UpdateDestinationBody = {
          ...(o.url !== undefined && { url: o.url }),
          ...(o.levels !== undefined && { levels: levelsOption(o.levels) }),
          ...(o.updates !== undefined && { updates: o.updates }),
          ...(o.enable && { enabled: true }),
          ...(o.disable && { enabled: false }),
        };
        const changed = await withStorage(async (s) =>
          asCommand(async () => changeDestination(s, (await userOf(s, o.user)).id, id, body, settings(), Date.now())),
        );
        out(`${changed.id}: ${changed.enabled ? 'enabled' : 'disabled'}, ${changed.levels.join(',')}`);
      },
    );

  destinations
    .command('remove')
    .argument('<id>', 'destination id (from destinations list)')
    .requiredOption('--user <id>', 'the destination’s user')
    .description('delete a destination with its deliveries')
    .action(async (id: string, o: { user: string }) => {
      await withStorage(async (s) => asCommand(async () => removeDestination(s, (await userOf(s, o.user)).id, id)));
      out(`removed ${id}`);
    });

  destinations
    .command('test')
    .argument('<id>', 'destination id (from destinations list)')
    .requiredOption('--user <id>', 'the destination’s user')
    .description('send a sample summary now and say how it went (exit status 1 when it was not delivered)')
    .action(async (id: string, o: { user: string }) => {
      const result = await withStorage(async (s) =>
        asCommand(async () => testDestination(s, await userOf(s, o.user), id, settings(), Date.now())),
      );
      const { attempt } = result;
      if (result.delivered) return out(`delivered (HTTP ${attempt.statusCode}, ${attempt.durationMs} ms)`);
      throw new Error(`not delivered: ${attempt.error ?? attempt.outcome}`);
    });

  destinations
    .command('deliveries')
    .argument('<id>', 'destination id (from destinations list)')
    .requiredOption('--user <id>', 'the destination’s user')
    .option('--json', 'a JSON array instead, for scripts')
    .description('recent attempts, newest first: a header row, then tab-separated fields')
    .action(async (id: string, o: { user: string; json?: boolean }) => {
      const attempts = await withStorage(async (s) =>
        asCommand(async () => deliveriesOf(s, (await userOf(s, o.user)).id, id, 50)),
      );
      printList(
        out,
        attempts.map((a) => ({
          attemptedAt: a.attemptedAt,
          deliveryId: a.deliveryId,
          attempt: a.attempt,
          event: a.event,
          period: a.level ? `${a.level} ${a.periodStart}` : '',
          outcome: a.outcome,
          status: a.statusCode ?? '',
          error: a.error ?? '',
          next: a.nextAttemptAt ?? '',
        })),
        ['attemptedAt', 'deliveryId', 'attempt', 'event', 'period', 'outcome', 'status', 'error', 'next'],
        Boolean(o.json),
      );
    });
}
