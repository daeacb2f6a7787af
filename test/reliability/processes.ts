/** Daybook as an operator runs it: `bin/daybook` processes, and how to end them hard. */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(import.meta.url), '..', '..', '..');

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** `bin/daybook <args>` on the database, as an operator runs it. */
export function daybook(args: string[], databaseUrl: string, env: Record<string, string> = {}): ChildProcess {
  return spawn('bash', [join(root, 'bin/daybook'), ...args], {
    cwd: root,
    env: {
      ...process.env,
      DAYBOOK_DATABASE_URL: databaseUrl,
      DAYBOOK_DEMO: 'off',
      DAYBOOK_SUMMARY_INTERVAL_SECONDS: '0',
      DAYBOOK_RATE_LIMIT_PER_MINUTE: '1000000',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * `daybook serve` on a free port, once it answers. `spawned` gets the process at once, for a test
 * that must act on it before it answers (it works from its first moment: summaries, deliveries).
 */
export async function serve(
  databaseUrl: string,
  env: Record<string, string> = {},
  spawned?: (child: ChildProcess) => void,
): Promise<{ child: ChildProcess; url: string; port: number }> {
  const port = await freePort();
  const child = daybook(['serve'], databaseUrl, { ...env, PORT: String(port), HOST: '127.0.0.1' });
  spawned?.(child);
  const url = `http://127.0.0.1:${port}`;
  // A minute: starting takes about 5 s on an idle machine here, and more while other tests load it.
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the server exited with ${child.exitCode ?? child.signalCode}`);
    }
    try {
      if ((await fetch(`${url}/healthz`)).ok) return { child, url, port };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the server did not start');
}

export async function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
