/**
 * The README's "Record your work" commands, run as written (bash and curl) against a listening
 * server with the real clock: every answer is a success, and the recorded work shows in the
 * report that follows. Only the base URL and the key are the test's own.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { importDataset } from '../../src/dataset/import.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import { type TestApp, createTestApp } from '../helper.ts';

const run = promisify(execFile);
const files = tempFiles();
/** A key as the demo's: it may record and read reports. */
const KEY = 'dbk_test_readme_record_0123456789abcd';
const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

/** The `sh` blocks of the README's section `heading`, in order. */
function shellBlocks(heading: string): string[] {
  const start = README.indexOf(`\n### ${heading}\n`);
  assert.ok(start >= 0, `README has a section "${heading}"`);
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

describe('README: record your work [sqlite]', () => {
  let t: TestApp;
  let base: string;
  before(async () => {
    // The commands date their work by the machine's clock: so does the server here.
    const now = Date.now();
    t = await createTestApp('sqlite', { now });
    await importDataset(
      t.storage,
      files.write('key.json', {
        version: 1,
        apiKeys: [{ userId: 'u_alice', name: 'README', key: KEY, scopes: ['activity:write', 'reports:read'] }],
      }),
      { now: () => now },
    );
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  });
  after(async () => {
    await t.close();
    files.remove();
  });

  /** Runs a block with bash; each curl's answer on a line of its own, parsed. */
  async function answers(block: string): Promise<{ success: boolean; [k: string]: unknown }[]> {
    assert.ok(block.includes('http://127.0.0.1:8080/'), block);
    const script = `set -e\ncurl() { command curl "$@"; echo; }\n${block.replaceAll('http://127.0.0.1:8080', base)}`;
    const { stdout } = await run('bash', ['-c', script], { env: { ...process.env, DAYBOOK_KEY: KEY } });
    return stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
  }

  test('an activity is recorded, shows in the report, and is deleted; a task and a day comment are recorded', async () => {
    const [activity, tasks] = shellBlocks('Record your work');
    assert.ok(activity && tasks, 'two command blocks');
    const yesterday = (await run('date', ['-u', '-d', 'yesterday', '+%Y-%m-%d'])).stdout.trim();

    const [recorded, report, deleted, ...rest] = await answers(activity);
    assert.equal(rest.length, 0);
    assert.deepEqual(recorded, { success: true, created: 1, updated: 0, ids: ['act_notes_1'] });
    assert.equal(report!.success, true, JSON.stringify(report));
    const day = (report!.rows as { date: string; duration: number }[]).find((r) => r.date === yesterday);
    assert.ok(day && day.duration >= 45, JSON.stringify(report!.rows));
    assert.deepEqual(deleted, { success: true });

    const [task, comment, after, ...more] = await answers(tasks);
    assert.equal(more.length, 0);
    assert.equal(task!.success, true, JSON.stringify(task));
    assert.equal((task!.task as { minutes: number }).minutes, 90);
    assert.equal(comment!.success, true, JSON.stringify(comment));
    assert.equal(after!.success, true, JSON.stringify(after));
    const rows = after!.rows as { date: string; comment: string }[];
    assert.ok(
      rows.some((r) => r.comment === 'Release day'),
      JSON.stringify(rows),
    );
  });
});
