import type { Command } from 'commander';
import { isValidTimezone } from '../lib/time.ts';
import { generateApiKey, hashApiKey, newId } from '../services/api-keys.ts';
import { SCOPES, isScope } from '../services/scopes.ts';
import {
  type UserChanges, findTeam, findUser, insertApiKey, insertTeam, insertUser, listApiKeys, listUsers,
  revokeApiKey, setMemberStatus, updateUser, upsertMember,
} from '../storage/accounts.ts';
import { recomputeLocalDates } from '../storage/activities.ts';
import { UsageError, parseChoice, withStorage } from './context.ts';

const PLANS = ['free', 'core', 'pro'] as const;
const WEEK_STARTS = ['monday', 'sunday'] as const;

function checkTimezone(tz: string): string {
  if (!isValidTimezone(tz)) throw new UsageError(`--timezone must be an IANA timezone such as Europe/Berlin (got "${tz}")`);
  return tz;
}

function checkTarget(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1440) throw new UsageError(`--daily-target must be 1 to 1440 minutes`);
  return n;
}

function uniqueViolation(err: unknown): never {
  const message = (err as Error).message;
  if (/unique|duplicate key/i.test(message)) {
    throw new UsageError(/email/.test(message) ? 'that e-mail address is already in use' : /handle/.test(message) ? 'that handle is already in use' : 'that id is already in use');
  }
  throw err;
}

export function register(program: Command): void {
  const users = program.command('users').description('manage users');
  users
    .command('create')
    .requiredOption('--email <email>', 'sign-in e-mail address')
    .option('--id <id>', 'user id (default: generated)')
    .option('--name <name>', 'name from the settings')
    .option('--display-name <name>', 'display name from the identity provider')
    .option('--handle <handle>', 'unique handle, a-z 0-9 _ . -')
    .option('--timezone <tz>', 'IANA timezone', 'UTC')
    .option('--plan <plan>', 'free, core or pro', 'core')
    .option('--daily-target <minutes>', 'daily target in minutes', '480')
    .option('--week-start <day>', 'monday or sunday', 'monday')
    .action(async (o) => {
      if (!/^[^@\s]+@[^@\s]+$/.test(o.email)) throw new UsageError(`--email must be an e-mail address`);
      if (o.handle !== undefined && !/^[a-z0-9_.-]{2,40}$/.test(o.handle)) {
        throw new UsageError('--handle must be 2 to 40 characters of a-z 0-9 _ . -');
      }
      const id = o.id ?? newId('u');
      await withStorage((s) =>
        insertUser(s.db, {
          id,
          email: o.email,
          name: o.name ?? null,
          displayName: o.displayName ?? null,
          handle: o.handle ?? null,
          timezone: checkTimezone(o.timezone),
          plan: parseChoice('--plan', o.plan, PLANS),
          dailyTargetMinutes: checkTarget(o.dailyTarget),
          weekStart: parseChoice('--week-start', o.weekStart, WEEK_STARTS),
          createdAt: Date.now(),
        }).catch(uniqueViolation),
      );
      console.log(id);
    });

  users
    .command('list')
    .description('list users as tab-separated id, email, name, plan, timezone')
    .action(async () => {
      for (const u of await withStorage((s) => listUsers(s.db))) {
        console.log([u.id, u.email, u.name ?? u.display_name ?? '', u.plan, u.timezone].join('\t'));
      }
    });

  users
    .command('update')
    .argument('<id>', 'user id')
    .option('--email <email>')
    .option('--name <name>', 'name from the settings ("" clears)')
    .option('--display-name <name>', '"" clears')
    .option('--handle <handle>')
    .option('--timezone <tz>')
    .option('--plan <plan>')
    .option('--daily-target <minutes>')
    .option('--week-start <day>')
    .action(async (id: string, o) => {
      const changes: UserChanges = {};
      if (o.email !== undefined) changes.email = o.email;
      if (o.name !== undefined) changes.name = o.name === '' ? null : o.name;
      if (o.displayName !== undefined) changes.display_name = o.displayName === '' ? null : o.displayName;
      if (o.handle !== undefined) changes.handle = o.handle;
      if (o.timezone !== undefined) changes.timezone = checkTimezone(o.timezone);
      if (o.plan !== undefined) changes.plan = parseChoice('--plan', o.plan, PLANS);
      if (o.dailyTarget !== undefined) changes.daily_target_minutes = checkTarget(o.dailyTarget);
      if (o.weekStart !== undefined) changes.week_start = parseChoice('--week-start', o.weekStart, WEEK_STARTS);
      if (Object.keys(changes).length === 0) throw new UsageError('nothing to change: give at least one option');
      await withStorage(async (s) => {
        const before = await findUser(s.db, id);
        if (!before) throw new UsageError(`no user with id "${id}"`);
        await s.db.transaction().execute(async (trx) => {
          await updateUser(trx, id, changes).catch(uniqueViolation);
          if (changes.timezone && changes.timezone !== before.timezone) {
            await recomputeLocalDates(trx, id, changes.timezone, Date.now());
          }
        });
      });
      console.log(`updated ${id}`);
    });

  const teams = program.command('teams').description('manage teams and memberships');
  teams
    .command('create')
    .requiredOption('--name <name>', 'team name')
    .option('--id <id>', 'team id (default: generated)')
    .action(async (o) => {
      const id = o.id ?? newId('t');
      await withStorage((s) => insertTeam(s.db, id, o.name).catch(uniqueViolation));
      console.log(id);
    });

  teams
    .command('add-member')
    .requiredOption('--team <id>')
    .requiredOption('--user <id>')
    .option('--role <role>', 'member or admin', 'member')
    .option('--status <status>', 'active or inactive', 'active')
    .action(async (o) => {
      await withStorage(async (s) => {
        if (!(await findTeam(s.db, o.team))) throw new UsageError(`no team with id "${o.team}"`);
        if (!(await findUser(s.db, o.user))) throw new UsageError(`no user with id "${o.user}"`);
        await upsertMember(s.db, {
          teamId: o.team,
          userId: o.user,
          role: parseChoice('--role', o.role, ['member', 'admin'] as const),
          status: parseChoice('--status', o.status, ['active', 'inactive'] as const),
        });
      });
      console.log(`${o.user} is a member of ${o.team}`);
    });

  teams
    .command('set-member-status')
    .requiredOption('--team <id>')
    .requiredOption('--user <id>')
    .requiredOption('--status <status>', 'active or inactive')
    .action(async (o) => {
      const status = parseChoice('--status', o.status, ['active', 'inactive'] as const);
      const found = await withStorage((s) => setMemberStatus(s.db, o.team, o.user, status));
      if (!found) throw new UsageError(`${o.user} is not a member of ${o.team}`);
      console.log(`${o.user} is ${status} in ${o.team}`);
    });

  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create')
    .requiredOption('--user <id>', 'owner of the key')
    .requiredOption('--name <name>', 'what the key is for')
    .option('--scopes <list>', `comma-separated scopes (default: all): ${SCOPES.join(', ')}`, SCOPES.join(','))
    .description('create a key; the key is printed once and stored only as a hash')
    .action(async (o) => {
      const scopes = [...new Set(String(o.scopes).split(',').map((s) => s.trim()).filter(Boolean))];
      const bad = scopes.find((s) => !isScope(s));
      if (bad !== undefined) throw new UsageError(`unknown scope "${bad}"; scopes are ${SCOPES.join(', ')}`);
      if (scopes.length === 0) throw new UsageError('--scopes needs at least one scope');
      const key = generateApiKey();
      const id = newId('key');
      await withStorage(async (s) => {
        if (!(await findUser(s.db, o.user))) throw new UsageError(`no user with id "${o.user}"`);
        await insertApiKey(s.db, { id, userId: o.user, name: o.name, keyHash: hashApiKey(key), scopes, createdAt: Date.now() });
      });
      console.error(`created key ${id} for ${o.user} (${scopes.join(' ')}); it is shown only this once:`);
      console.log(key);
    });

  keys
    .command('list')
    .option('--user <id>', 'only this user\'s keys')
    .description('list keys as tab-separated id, user, name, scopes, state, last used')
    .action(async (o) => {
      for (const k of await withStorage((s) => listApiKeys(s.db, o.user))) {
        const lastUsed = k.last_used_at === null ? 'never used' : new Date(k.last_used_at).toISOString();
        console.log([k.id, k.user_id, k.name, k.scopes, k.revoked ? 'revoked' : 'active', lastUsed].join('\t'));
      }
    });

  keys
    .command('revoke')
    .argument('<id>', 'key id (from keys list)')
    .action(async (id: string) => {
      if (!(await withStorage((s) => revokeApiKey(s.db, id)))) throw new UsageError(`no key with id "${id}"`);
      console.log(`revoked ${id}`);
    });
}
