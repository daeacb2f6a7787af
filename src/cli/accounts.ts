import type { Command } from 'commander';
import { userRecord } from '../dataset/export.ts';
import { type RecordType, datasetSchema, describeSchemaError, recordValidator } from '../dataset/schema.ts';
import { isValidTimezone } from '../lib/time.ts';
import { generateApiKey, hashApiKey, newId } from '../services/api-keys.ts';
import { SCOPES, currentScopes, scopeNamed } from '../services/scopes.ts';
import {
  type UserChanges,
  findTeam,
  listTeams,
  findUser,
  insertApiKey,
  insertTeam,
  insertUser,
  listApiKeys,
  listUsers,
  revokeApiKey,
  setMemberStatus,
  updateUser,
  upsertMember,
} from '../storage/accounts.ts';
import { writeRecords } from '../storage/writes.ts';
import { type CommandIo, UsageError, parseChoice, printList } from './context.ts';

const PLANS = ['free', 'core', 'pro'] as const;
const WEEK_STARTS = ['monday', 'sunday'] as const;

/** The option that sets each field of a record, to name it in errors. */
const USER_OPTIONS: Record<string, string> = {
  id: '--id',
  email: '--email',
  name: '--name',
  displayName: '--display-name',
  handle: '--handle',
  timezone: '--timezone',
  plan: '--plan',
  dailyTargetMinutes: '--daily-target',
  weekStart: '--week-start',
};
const TEAM_OPTIONS: Record<string, string> = { id: '--id', name: '--name' };
/** What users update can change: all but the id. */
const USER_OPTIONS_UPDATE = Object.fromEntries(Object.entries(USER_OPTIONS).filter(([field]) => field !== 'id'));
const KEY_OPTIONS: Record<string, string> = { userId: '--user', name: '--name', scopes: '--scopes' };

/** A field's maxLength in the dataset schema, for help texts. */
function maxLength(type: RecordType, field: string): number | undefined {
  const defs = (
    datasetSchema as unknown as { $defs: Record<string, { properties?: Record<string, { maxLength?: number }> }> }
  ).$defs;
  return defs[type]?.properties?.[field]?.maxLength;
}

/**
 * Checks a record, built as `daybook export` would write it, against the dataset schema, so that
 * whatever an account command stores exports into a file that `daybook import` restores. A failure
 * is a usage error naming the option that set the field (`options`: field → option). With
 * `stored`, the other fields come from the database (users update): a failure in one of them
 * says so, and which option would repair it.
 */
function checkRecord(
  type: RecordType,
  record: Record<string, unknown>,
  options: Record<string, string>,
  stored?: { what: string; options: Record<string, string> },
): void {
  const validate = recordValidator(type);
  if (validate(record)) return;
  const described = describeSchemaError(validate.errors?.[0]);
  const colon = described.indexOf(': ');
  const field = described.slice(0, colon).split(/[.[]/)[0] ?? '';
  const option = options[field];
  if (option !== undefined) throw new UsageError(`${option}: ${described.slice(colon + 2)}`);
  if (stored === undefined) throw new UsageError(`the ${type} would not fit the dataset format: ${described}`);
  const repair = stored.options[field];
  throw new UsageError(
    `${stored.what} does not fit the dataset format (${described}), so an export would not import; ${
      repair === undefined ? 'this command cannot change that' : `give a new ${repair}`
    }`,
  );
}

function checkTimezone(tz: string): string {
  if (!isValidTimezone(tz))
    throw new UsageError(`--timezone must be an IANA timezone such as Europe/Berlin (got "${tz}")`);
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
    throw new UsageError(
      /email/.test(message)
        ? 'that e-mail address is already in use'
        : /handle/.test(message)
          ? 'that handle is already in use'
          : 'that id is already in use',
    );
  }
  throw err;
}

export function register(program: Command, { out, err, withStorage }: CommandIo): void {
  const users = program.command('users').description('manage users');
  users
    .command('create')
    .description('create a user and print its id')
    .requiredOption('--email <email>', 'sign-in e-mail address (unique)')
    .option('--id <id>', 'user id, 1 to 128 characters of A-Z a-z 0-9 _ . : - (default: generated)')
    .option('--name <name>', `name from the settings, at most ${maxLength('user', 'name')} characters`)
    .option(
      '--display-name <name>',
      `display name from the identity provider, at most ${maxLength('user', 'displayName')} characters`,
    )
    .option('--handle <handle>', 'unique handle, 2 to 40 characters of a-z 0-9 _ . -')
    .option('--timezone <tz>', 'IANA timezone', 'UTC')
    .option('--plan <plan>', 'free, core or pro', 'core')
    .option('--daily-target <minutes>', 'daily target in minutes, 1 to 1440', '480')
    .option('--week-start <day>', 'monday or sunday', 'monday')
    .action(async (o) => {
      const user = {
        id: o.id ?? newId('u'),
        email: o.email,
        name: o.name ?? null,
        displayName: o.displayName ?? null,
        handle: o.handle ?? null,
        timezone: checkTimezone(o.timezone),
        plan: parseChoice('--plan', o.plan, PLANS),
        dailyTargetMinutes: checkTarget(o.dailyTarget),
        weekStart: parseChoice('--week-start', o.weekStart, WEEK_STARTS),
        createdAt: Date.now(),
      };
      checkRecord(
        'user',
        userRecord({
          id: user.id,
          email: user.email,
          name: user.name,
          display_name: user.displayName,
          handle: user.handle,
          timezone: user.timezone,
          plan: user.plan,
          daily_target_minutes: user.dailyTargetMinutes,
          week_start: user.weekStart,
          created_at: user.createdAt,
        }),
        USER_OPTIONS,
      );
      await withStorage((s) => insertUser(s.db, user).catch(uniqueViolation));
      out(user.id);
    });

  users
    .command('list')
    .description('list users: a header row, then id, email, name, plan, timezone tab-separated')
    .option('--json', 'a JSON array instead, for scripts')
    .action(async (o: { json?: boolean }) => {
      const users = await withStorage((s) => listUsers(s.db));
      printList(
        out,
        users.map((u) => ({
          id: u.id,
          email: u.email,
          name: u.name ?? u.display_name ?? '',
          plan: u.plan,
          timezone: u.timezone,
        })),
        ['id', 'email', 'name', 'plan', 'timezone'],
        Boolean(o.json),
      );
    });

  users
    .command('update')
    .description(
      'change a user (the options of create except --id); a new timezone moves their activities to their new local days',
    )
    .argument('<id>', 'user id')
    .option('--email <email>', 'sign-in e-mail address (unique)')
    .option('--name <name>', `name from the settings, at most ${maxLength('user', 'name')} characters ("" clears)`)
    .option(
      '--display-name <name>',
      `display name from the identity provider, at most ${maxLength('user', 'displayName')} characters ("" clears)`,
    )
    .option('--handle <handle>', 'unique handle, 2 to 40 characters of a-z 0-9 _ . -')
    .option('--timezone <tz>', 'IANA timezone')
    .option('--plan <plan>', 'free, core or pro')
    .option('--daily-target <minutes>', 'daily target in minutes, 1 to 1440')
    .option('--week-start <day>', 'monday or sunday')
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
      // The stored user with the changes is checked; an error in a field this command does not
      // change names the stored user rather than an option.
      const given = Object.fromEntries(
        Object.keys(changes).map((column) => {
          const field = column.replace(/_(.)/g, (_, c: string) => c.toUpperCase());
          return [field, USER_OPTIONS[field]!];
        }),
      );
      await withStorage(async (s) => {
        const before = await findUser(s.db, id);
        if (!before) throw new UsageError(`no user with id "${id}"`);
        checkRecord('user', userRecord({ ...before, ...changes }), given, {
          what: `the stored user "${id}"`,
          options: USER_OPTIONS_UPDATE,
        });
        await writeRecords(s, {}, (session) => updateUser(session, id, changes).catch(uniqueViolation));
      });
      out(`updated ${id}`);
    });

  const teams = program.command('teams').description('manage teams and memberships');
  teams
    .command('create')
    .description('create a team and print its id')
    .requiredOption('--name <name>', `team name, 1 to ${maxLength('team', 'name')} characters`)
    .option('--id <id>', 'team id, 1 to 128 characters of A-Z a-z 0-9 _ . : - (default: generated)')
    .action(async (o) => {
      const id = o.id ?? newId('t');
      checkRecord('team', { id, name: o.name, members: [] }, TEAM_OPTIONS);
      await withStorage((s) => insertTeam(s.db, id, o.name).catch(uniqueViolation));
      out(id);
    });

  teams
    .command('list')
    .description('list teams: a header row, then id, name, active members, members tab-separated')
    .option('--json', 'a JSON array instead, for scripts')
    .action(async (o: { json?: boolean }) => {
      const teams = await withStorage((s) => listTeams(s.db));
      printList(out, teams, ['id', 'name', 'activeMembers', 'members'], Boolean(o.json));
    });

  teams
    .command('add-member')
    .description('add a user to a team, or change their role and status in it')
    .requiredOption('--team <team>', 'team id or exact name')
    .requiredOption('--user <id>', 'user id')
    .option('--role <role>', 'member or admin', 'member')
    .option('--status <status>', 'active or inactive', 'active')
    .action(async (o) => {
      const team = await withStorage(async (s) => {
        const team = await teamNamed(s.db, o.team);
        if (!(await findUser(s.db, o.user))) throw new UsageError(`no user with id "${o.user}"`);
        await upsertMember(s.db, {
          teamId: team,
          userId: o.user,
          role: parseChoice('--role', o.role, ['member', 'admin'] as const),
          status: parseChoice('--status', o.status, ['active', 'inactive'] as const),
        });
        return team;
      });
      out(`${o.user} is a member of ${team}`);
    });

  teams
    .command('set-member-status')
    .description("activate or deactivate a user's membership of a team")
    .requiredOption('--team <team>', 'team id or exact name')
    .requiredOption('--user <id>', 'user id')
    .requiredOption('--status <status>', 'active or inactive')
    .action(async (o) => {
      const status = parseChoice('--status', o.status, ['active', 'inactive'] as const);
      const { team, found } = await withStorage(async (s) => {
        const team = await teamNamed(s.db, o.team);
        return { team, found: await setMemberStatus(s.db, team, o.user, status) };
      });
      if (!found) throw new UsageError(`${o.user} is not a member of ${team}`);
      out(`${o.user} is ${status} in ${team}`);
    });

  const keys = program.command('keys').description('manage API keys');
  keys
    .command('create')
    .requiredOption('--user <id>', 'owner of the key')
    .requiredOption('--name <name>', `what the key is for, 1 to ${maxLength('apiKey', 'name')} characters`)
    .option(
      '--scopes <list>',
      `comma-separated scopes out of ${SCOPES.join(', ')} (messages:read, the former name of summaries:read, is summaries:read)`,
      SCOPES.join(','),
    )
    .description('create a key; the key is printed once and stored only as a hash')
    .action(async (o) => {
      const names = String(o.scopes)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = names.find((s) => scopeNamed(s) === undefined);
      if (bad !== undefined) throw new UsageError(`unknown scope "${bad}"; scopes are ${SCOPES.join(', ')}`);
      if (names.length === 0) throw new UsageError('--scopes needs at least one scope');
      const scopes = currentScopes(names);
      const key = generateApiKey();
      const id = newId('key');
      const keyHash = hashApiKey(key);
      checkRecord('apiKey', { id, userId: o.user, name: o.name, keyHash, scopes, revoked: false }, KEY_OPTIONS);
      await withStorage(async (s) => {
        if (!(await findUser(s.db, o.user))) throw new UsageError(`no user with id "${o.user}"`);
        await insertApiKey(s.db, { id, userId: o.user, name: o.name, keyHash, scopes, createdAt: Date.now() });
      });
      err(`created key ${id} for ${o.user} (${scopes.join(' ')}); it is shown only this once:`);
      out(key);
    });

  keys
    .command('list')
    .option('--user <id>', "only this user's keys")
    .option('--json', 'a JSON array instead, for scripts')
    .description('list keys: a header row, then id, user, name, scopes, state, last used tab-separated')
    .action(async (o: { user?: string; json?: boolean }) => {
      const keys = await withStorage((s) => listApiKeys(s.db, o.user));
      printList(
        out,
        keys.map((k) => ({
          id: k.id,
          user: k.user_id,
          name: k.name,
          scopes: k.scopes,
          state: k.revoked ? 'revoked' : 'active',
          lastUsed: k.last_used_at === null ? 'never used' : new Date(k.last_used_at).toISOString(),
        })),
        ['id', 'user', 'name', 'scopes', 'state', 'lastUsed'],
        Boolean(o.json),
      );
    });

  keys
    .command('revoke')
    .description('revoke a key; it answers 401 within DAYBOOK_KEY_CACHE_MS (2 s by default) in every server process')
    .argument('<id>', 'key id (from keys list)')
    .action(async (id: string) => {
      if (!(await withStorage((s) => revokeApiKey(s.db, id)))) throw new UsageError(`no key with id "${id}"`);
      out(`revoked ${id}`);
    });
}

/** A team given by id, else by its exact name (as the API takes them); the id. */
async function teamNamed(db: Parameters<typeof findTeam>[0], value: string): Promise<string> {
  if (await findTeam(db, value)) return value;
  const named = (await listTeams(db)).filter((t) => t.name === value.trim());
  if (named.length === 1) return named[0]!.id;
  if (named.length > 1)
    throw new UsageError(
      `${named.length} teams are named "${value}": give one of their ids (${named.map((t) => t.id).join(', ')})`,
    );
  throw new UsageError(`no team with id or name "${value}" (see daybook teams list)`);
}
