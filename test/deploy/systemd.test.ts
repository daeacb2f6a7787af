/**
 * docs/deploy/daybook.service passes `systemd-analyze verify`: the unit as shipped, with only
 * ExecStart pointed at an executable in a temporary directory (verify insists that it exists),
 * and the shipped copy fails on nothing but that missing executable. Skipped where the machine
 * has no systemd-analyze.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, test } from 'node:test';

const run = promisify(execFile);
const root = join(fileURLToPath(import.meta.url), '..', '..', '..');
const unitPath = join(root, 'docs/deploy/daybook.service');
const INSTALLED = '/opt/daybook/bin/daybook';

async function which(tool: string): Promise<string | null> {
  try {
    return (await run('bash', ['-c', `command -v ${tool}`])).stdout.trim() || null;
  } catch {
    return null;
  }
}

async function verify(file: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run('systemd-analyze', ['verify', file]);
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

const tool = await which('systemd-analyze');
const dir = await mkdtemp(join(tmpdir(), 'daybook-systemd-'));
after(() => rm(dir, { recursive: true, force: true }));

test('the unit has the hardening and settings the deployment guide describes', async () => {
  const unit = await readFile(unitPath, 'utf8');
  for (const line of [
    'DynamicUser=yes',
    'StateDirectory=daybook',
    'ProtectSystem=strict',
    'ProtectHome=yes',
    'PrivateTmp=yes',
    'NoNewPrivileges=yes',
    'Environment=DAYBOOK_DATABASE_URL=sqlite:/var/lib/daybook/daybook.db',
    'EnvironmentFile=-/etc/daybook/daybook.env',
    `ExecStart=${INSTALLED} serve`,
    'KillSignal=SIGTERM',
    'Restart=on-failure',
  ]) {
    assert.ok(unit.split('\n').includes(line), `daybook.service lacks ${line}`);
  }
  // V8 writes machine code to memory it then executes.
  assert.doesNotMatch(unit, /^MemoryDenyWriteExecute=yes/m);
});

test('systemd-analyze verify accepts the unit', {
  skip: tool ? false : 'systemd-analyze is not installed',
}, async () => {
  const unit = await readFile(unitPath, 'utf8');
  const executable = join(dir, 'opt/daybook/bin/daybook');
  await mkdir(join(dir, 'opt/daybook/bin'), { recursive: true });
  await writeFile(executable, '#!/bin/sh\nexit 0\n');
  await chmod(executable, 0o755);
  // The file name is the unit's name, as verify reads it.
  const copy = join(dir, 'daybook.service');
  await writeFile(copy, unit.replaceAll(INSTALLED, executable));

  const verified = await verify(copy);
  assert.equal(verified.code, 0, verified.output);
  assert.equal(verified.output.trim(), '', 'verify printed warnings');

  // The shipped file as is: the only complaint is the install it points at being absent here.
  const shipped = await verify(unitPath);
  const complaints = shipped.output
    .trim()
    .split('\n')
    .filter((line) => line !== '');
  if (shipped.code === 0) assert.deepEqual(complaints, []);
  else
    assert.deepEqual(complaints, [
      `daybook.service: Command ${INSTALLED} is not executable: No such file or directory`,
    ]);
});
