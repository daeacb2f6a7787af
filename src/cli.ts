/** The `daybook` program (bin/daybook): the command line of ./cli/run.ts on this process. */
import { readerGone, runCli } from './cli/run.ts';

// `ps` and `top` show the process as daybook (Node names its main thread MainThread).
process.title = 'daybook';

process.stdout.on('error', (err) => {
  if (!readerGone(err)) throw err;
  process.exit(0);
});

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
