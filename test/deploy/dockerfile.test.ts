/**
 * docs/deploy/Dockerfile without Docker (images cannot be pulled here): its own steps, read from
 * the file, carried out in a clean directory as an unprivileged user (nobody when the tests run
 * as root): each stage's COPY, RUN (npm ci from the registry), ENV, then the CMD, and the
 * HEALTHCHECK command must pass against it; the SQLite database lands in the volume; the
 * STOPSIGNAL stops it with exit code 0. What this cannot check is the base image itself
 * (node:24-slim's Node and Debian); Node 24 here is the one running the tests. Needs the npm
 * registry on its first run; not in `npm run test:fast`.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, chown, cp, mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { FULL_SUITE_ONLY } from '../helper.ts';
import { freePort } from '../reliability/processes.ts';

const root = join(fileURLToPath(import.meta.url), '..', '..', '..');
const asRoot = process.getuid?.() === 0;
// Who runs the steps the image runs as its user.
const user = asRoot ? { uid: 65534, gid: 65534 } : { uid: process.getuid!(), gid: process.getgid!() };

interface Instruction {
  op: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(text: string): Instruction[] {
  const joined = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n\s*/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [op, ...rest] = line.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
}

function run(command: string[], options: { cwd: string; env: NodeJS.ProcessEnv; privileged: boolean }): ChildProcess {
  return spawn(command[0]!, command.slice(1), {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.privileged || !asRoot ? {} : user),
  });
}

async function finished(child: ChildProcess): Promise<{ code: number | null; output: string }> {
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

const dir = await mkdtemp(join(tmpdir(), 'daybook-dockerfile-'));
let server: ChildProcess | undefined;
after(async () => {
  if (server && server.exitCode === null && server.signalCode === null) {
    server.kill('SIGKILL');
    await once(server, 'exit');
  }
  await rm(dir, { recursive: true, force: true });
});

test('the Dockerfile builds and starts as an unprivileged user, and its health check passes', {
  skip: FULL_SUITE_ONLY,
}, async () => {
  const steps = instructions(await readFile(join(root, 'docs/deploy/Dockerfile'), 'utf8'));
  const data = join(dir, 'data');
  const home = join(dir, 'home');
  await mkdir(home);
  await chmod(dir, 0o755);
  // npm's download cache outlives the run (the packages are checked against the lockfile's
  // hashes either way): the first run fetches them from the registry.
  const npmCache = join(tmpdir(), 'daybook-dockerfile-npm-cache');
  await mkdir(npmCache, { recursive: true });
  if (asRoot) await finished(spawn('chown', ['-R', `${user.uid}:${user.gid}`, npmCache]));
  if (asRoot) await chown(home, user.uid, user.gid);
  // The image's absolute paths, here.
  const local = (text: string) => text.replaceAll('/data', data).replaceAll('node:node', `${user.uid}:${user.gid}`);
  // Node 24 (the one running this test) first on PATH, as in node:24-slim.
  const baseEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
    HOME: home,
    npm_config_cache: npmCache,
  };

  const stages = new Map<string, string>();
  let workdir = '';
  let env: NodeJS.ProcessEnv = {};
  let privileged = true;
  let cmd: string[] = [];
  let healthcheck: string[] = [];
  let stopSignal: NodeJS.Signals = 'SIGTERM';
  const volumes: string[] = [];
  for (const { op, args } of steps) {
    if (op === 'FROM') {
      const [image, , name] = args.split(/\s+/);
      assert.equal(image, 'node:24-slim');
      const stageDir = join(dir, `stage-${stages.size}`);
      stages.set(name ?? String(stages.size), stageDir);
      await mkdir(stageDir);
      if (asRoot) await chown(stageDir, user.uid, user.gid);
      workdir = stageDir;
      env = { ...baseEnv };
      privileged = true;
    } else if (op === 'WORKDIR') {
      assert.equal(args, '/app');
    } else if (op === 'ENV') {
      for (const pair of args.split(/\s+/)) {
        const [key, value] = pair.split('=', 2) as [string, string];
        env[key] = local(value);
      }
    } else if (op === 'COPY') {
      const parts = args.split(/\s+/);
      const from = parts[0]!.startsWith('--from=') ? stages.get(parts.shift()!.slice('--from='.length)) : root;
      assert.ok(from, `COPY ${args}: no such stage`);
      const dest = join(workdir, parts.pop()!);
      for (const source of parts) {
        const target = dest.endsWith('/') || parts.length > 1 ? join(dest, source.split('/').pop()!) : dest;
        // A path in another stage is absolute there (/app/...).
        await cp(join(from, source.replace(/^\/app\//, '')), target, { recursive: true, verbatimSymlinks: true });
      }
      if (asRoot) {
        // COPY leaves files root's, readable by all: as here.
        await finished(spawn('chmod', ['-R', 'a+rX', workdir]));
      }
    } else if (op === 'RUN') {
      if (!privileged || !asRoot) {
        // The user's steps, and npm as the image's root would run it (as nobody here).
        await finished(spawn('chown', ['-R', `${user.uid}:${user.gid}`, workdir]));
      }
      const step = await finished(
        run(['bash', '-c', local(args)], { cwd: workdir, env, privileged: privileged && !args.startsWith('npm') }),
      );
      assert.equal(step.code, 0, `RUN ${args}\n${step.output}`);
    } else if (op === 'USER') {
      assert.equal(args, 'node', 'the image runs as its non-root user');
      privileged = false;
    } else if (op === 'VOLUME') {
      volumes.push(...(JSON.parse(args) as string[]));
    } else if (op === 'HEALTHCHECK') {
      healthcheck = JSON.parse(args.slice(args.indexOf('CMD ') + 4)) as string[];
    } else if (op === 'CMD') {
      cmd = JSON.parse(args) as string[];
    } else if (op === 'STOPSIGNAL') {
      stopSignal = args as NodeJS.Signals;
    } else {
      assert.ok(['EXPOSE'].includes(op), `a step this test does not carry out: ${op}`);
    }
  }
  assert.deepEqual(volumes, ['/data']);
  assert.deepEqual(cmd, ['bin/daybook', 'serve']);
  assert.equal(env.DAYBOOK_DATABASE_URL, `sqlite:${data}/daybook.db`);
  // --omit=dev: no development tools in the image.
  await assert.rejects(stat(join(workdir, 'node_modules/typescript')));
  await stat(join(workdir, 'node_modules/fastify'));
  assert.equal((await stat(data)).uid, user.uid, 'the volume belongs to the image user');

  const port = await freePort();
  env = { ...env, PORT: String(port) };
  server = run(cmd, { cwd: workdir, env, privileged: false });
  const served = finished(server);
  let healthy = false;
  for (let i = 0; i < 150 && !healthy && server.exitCode === null; i++) {
    const check = await finished(run(healthcheck, { cwd: workdir, env, privileged: false }));
    healthy = check.code === 0;
    if (!healthy) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.ok(healthy, `the health check never passed: ${server.exitCode === null ? '' : (await served).output}`);
  const database = await stat(join(data, 'daybook.db'));
  assert.equal(database.uid, user.uid);

  server.kill(stopSignal);
  const stopped = await served;
  assert.equal(stopped.code, 0, stopped.output);
});
