/**
 * GET /docs in a real browser (Debian's chromium, installed by scripts/browser.sh, driven by
 * playwright-core): a visitor pastes the demo key, calls GET /user, and sees the answer.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium } from 'playwright-core';
import { seedDemoOnFirstRun } from '../../src/first-run.ts';
import { DEFAULT_NOW, type TestApp, createTestApp, forEachDialect } from '../helper.ts';

const CHROMIUM = '/usr/bin/chromium';
const outputDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-output');

forEachDialect('the /docs page in a browser', (dialect) => {
  let t: TestApp;
  let url: string;
  let key: string;
  let profile: string;
  let browser: BrowserContext;

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: run bash scripts/browser.sh`);
    t = await createTestApp(dialect, { dataset: null });
    const demo = await seedDemoOnFirstRun(t.storage, { env: {}, now: DEFAULT_NOW });
    assert.ok(demo);
    key = demo.key.key;
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    profile = await mkdtemp(join(tmpdir(), 'daybook-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 1100 },
      args: [
        '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  test('a visitor pastes the demo key, calls GET /user and sees the answer; nothing loads from elsewhere', async () => {
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(url) && !request.url().startsWith('data:')) elsewhere.push(request.url());
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));

    await page.goto(`${url}/docs`);
    await page.locator('.information-container .title').filter({ hasText: 'Daybook API' }).waitFor();

    await page.locator('.auth-wrapper button.authorize').click();
    const dialog = page.locator('.modal-ux');
    await dialog.locator('input').first().fill(key);
    await dialog.locator('button.authorize').click();
    await dialog.locator('button.btn-done').click();

    const operation = page.locator('.opblock-get').filter({ has: page.locator('[data-path="/user"]') });
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.execute').click();

    const response = operation.locator('.live-responses-table .response').first();
    await response.locator('.response-col_status').filter({ hasText: '200' }).waitFor();
    const body = await response.locator('.response-col_description pre').first().innerText();
    assert.deepEqual(JSON.parse(body), { success: true, name: 'Amara Okafor', email: 'amara.okafor@example.com' });
    // The request the page sent carried the pasted key in the header.
    assert.ok((await operation.locator('.curl-command').innerText()).includes(`x-api-key: ${key}`));

    await mkdir(outputDir, { recursive: true });
    await operation.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(outputDir, `docs-page-${dialect}.png`), fullPage: false });
    assert.deepEqual(elsewhere, [], 'every request goes to this server');
    assert.deepEqual(pageErrors, []);
    await page.close();
  });
});
