/** The `daybook` command line. Each file in ./cli adds its commands. */
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { UsageError } from './cli/context.ts';

const program = new Command('daybook')
  .description('Daybook: a self-hostable work-activity API server')
  .showHelpAfterError()
  .exitOverride();

const commandsDir = join(dirname(fileURLToPath(import.meta.url)), 'cli');
for (const file of (await readdir(commandsDir)).filter((f) => f.endsWith('.ts') && f !== 'context.ts').sort()) {
  const module = (await import(pathToFileURL(join(commandsDir, file)).href)) as { register(program: Command): void };
  module.register(program);
}

/** Standard output closed by its reader (`daybook export | head`): stop quietly, as Unix tools do. */
const readerGone = (err: unknown) => (err as NodeJS.ErrnoException | null)?.code === 'EPIPE';
process.stdout.on('error', (err) => {
  if (!readerGone(err)) throw err;
  process.exit(0);
});

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (readerGone(err)) {
    process.exitCode = 0;
  } else if (err instanceof CommanderError) {
    process.exitCode = err.exitCode === 0 ? 0 : 2;
  } else if (err instanceof UsageError) {
    console.error(`daybook: ${err.message}`);
    process.exitCode = 2;
  } else {
    console.error(`daybook: ${(err as Error).message}`);
    process.exitCode = 1;
  }
}
