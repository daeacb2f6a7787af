/**
 * The `daybook` command line as a function: parse the arguments, run the command on the given
 * streams and environment, and answer the exit status. It never ends the process; the program
 * (src/cli.ts) does that, and tests call it directly.
 */
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { isDatabaseUnavailable } from '../storage/health.ts';
import { type CliIo, type CommandIo, UsageError, commandIo } from './context.ts';

interface CommandModule {
  register(program: Command, io: CommandIo): void;
}

/** Every other file in this folder adds its commands. */
const NOT_COMMANDS = new Set(['context.ts', 'run.ts']);
const here = dirname(fileURLToPath(import.meta.url));
let modules: Promise<CommandModule[]> | null = null;

function commandModules(): Promise<CommandModule[]> {
  modules ??= (async () => {
    const files = (await readdir(here)).filter((f) => f.endsWith('.ts') && !NOT_COMMANDS.has(f)).sort();
    return Promise.all(
      files.map(async (file) => (await import(pathToFileURL(join(here, file)).href)) as CommandModule),
    );
  })();
  return modules;
}

/** Standard output closed by its reader (`daybook export | head`): stop quietly, as Unix tools do. */
export const readerGone = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code === 'EPIPE';

/**
 * Runs `daybook args…` (`args` without the node and script paths) and resolves with its exit
 * status: 0 done, 1 failed, 2 called wrongly (a usage error or what commander refuses).
 */
export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  const commands = commandIo(io);
  // A new program per run: commander keeps the parsed options on its command objects. Output
  // settings and exitOverride are set first, as commands added later inherit them.
  const program = new Command('daybook')
    .description('Daybook: a self-hostable work-activity API server')
    .version(packageVersion(), '-V, --version', 'print the version of Daybook')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // Commander's own default when the stream is no terminal.
      getOutHelpWidth: () => (io.stdout.isTTY && io.stdout.columns) || 80,
      getErrHelpWidth: () => (io.stderr.isTTY && io.stderr.columns) || 80,
    });
  for (const module of await commandModules()) module.register(program, commands);

  try {
    await program.parseAsync(args, { from: 'user' });
    return 0;
  } catch (err) {
    if (readerGone(err)) return 0;
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    commands.err(`daybook: ${whatToChange(err as Error, io.env)}`);
    return err instanceof UsageError ? 2 : 1;
  }
}

function packageVersion(): string {
  const file = join(here, '..', '..', 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/**
 * An error as a person can act on it: a database that cannot be reached is named with the
 * setting that points at it, not as `connect ECONNREFUSED 127.0.0.1:5999`.
 */
function whatToChange(err: Error, env: NodeJS.ProcessEnv): string {
  // The variable as set (the whole configuration may be what failed to load).
  const url = env.DAYBOOK_DATABASE_URL ?? '';
  if (url.startsWith('postgres') && isDatabaseUnavailable(err)) {
    let where = 'the server';
    try {
      where = new URL(url).host;
    } catch {}
    return `cannot reach PostgreSQL at ${where} (DAYBOOK_DATABASE_URL): ${err.message}`;
  }
  return err.message;
}
