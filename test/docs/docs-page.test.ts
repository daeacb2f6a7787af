/**
 * GET /docs in a real browser (Debian's chromium, installed by scripts/browser.sh, driven by
 * playwright-core), on a database seeded as a first start seeds it: a visitor pastes the demo key
 * and presses Execute on every operation with the example the page fills in.
 *
 * The browser drives the first database of the run (SQLite unless DAYBOOK_TEST_DIALECTS says
 * otherwise): the page is the same whichever database answers, and rendering it is most of this
 * file's time. Every request the page sent there is then sent again, byte for byte but for the
 * demo key, to a server on each other database, which must answer it the same way.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, type Page, chromium } from 'playwright-core';
import { seedDemoOnFirstRun } from '../../src/first-run.ts';
import { DIALECTS, type TestApp, call, createTestApp } from '../helper.ts';
import type { Dialect } from '../../src/storage/database.ts';

const CHROMIUM = '/usr/bin/chromium';
const outputDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'test-output');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/**
 * The server's clock, months after the day the committed document's examples are dated from:
 * only examples dated from the day the server answers on find the demo's days.
 */
const NOW = Date.parse('2027-03-10T09:30:00.000Z');

/** What Execute answers with each operation's example on the demo: success, and the refused delete. */
const EXPECTED_STATUS: Record<string, number> = {
  // The POST records the activity its DELETE example then deletes.
  'POST /activities': 200,
  'DELETE /activities/{id}': 200,
  // The task POST /tasks creates is renamed, then deleted, by the next two.
  'POST /tasks': 201,
  'POST /tasks/{id}': 200,
  'DELETE /tasks/{id}': 200,
  'POST /day-comments': 200,
  // POST /destinations creates the destination the others then test, list, read, change and delete.
  'GET /destinations': 200,
  'POST /destinations': 201,
  'POST /destinations/{id}/test': 200,
  'GET /destinations/{id}/deliveries': 200,
  'GET /destinations/{id}': 200,
  'POST /destinations/{id}': 200,
  'PATCH /destinations/{id}': 200,
  'DELETE /destinations/{id}': 200,
  'POST /api/v1/users/current/heartbeats': 201,
  'POST /api/v1/users/current/heartbeats.bulk': 201,
  'GET /api/v1/users/current/statusbar/today': 200,
  'POST /api/compat/wakatime/v1/users/current/heartbeats': 201,
  'POST /api/compat/wakatime/v1/users/current/heartbeats.bulk': 201,
  'GET /api/compat/wakatime/v1/users/current/statusbar/today': 200,
  'GET /user': 200,
  'GET /message': 200,
  'POST /message': 200,
  'POST /report': 200,
  'POST /search': 200,
  'GET /projects': 200,
  'POST /projects': 201,
  'GET /projects/{id}': 200,
  'POST /projects/{id}': 200,
  'DELETE /projects/{id}': 403,
  'POST /project': 200,
};

/** A request the page sent when Execute was pressed, as the server received it. */
interface Executed {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  contentType: string | undefined;
  body: string | null;
}
const executed: Executed[] = [];

/** A server on a database seeded as a first start seeds it, and the demo key that start prints. */
async function demoServer(dialect: Dialect): Promise<{ t: TestApp; key: string }> {
  const t = await createTestApp(dialect, { dataset: null, now: NOW });
  const demo = await seedDemoOnFirstRun(t.storage, { env: {}, now: NOW });
  assert.ok(demo);
  return { t, key: demo.key.key };
}

const [browserDialect = 'sqlite', ...otherDialects] = DIALECTS;

describe(`the /docs page in a browser [${browserDialect}]`, () => {
  const dialect = browserDialect;
  let t: TestApp;
  let url: string;
  let key: string;
  let profile: string;
  let browser: BrowserContext;

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: run bash scripts/browser.sh`);
    ({ t, key } = await demoServer(dialect));
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    profile = await mkdtemp(join(tmpdir(), 'daybook-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 1100 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
  });

  /** Opens /docs and pastes the demo key under Authorize. */
  async function openAuthorized(page: Page): Promise<void> {
    await page.goto(`${url}/docs`);
    await page.locator('.information-container .title').filter({ hasText: 'Daybook API' }).waitFor();
    await page.locator('.auth-wrapper button.authorize').click();
    const dialog = page.locator('.modal-ux');
    await dialog.locator('input').first().fill(key);
    await dialog.locator('button.authorize').click();
    await dialog.locator('button.btn-done').click();
  }

  /** An operation's block (a deprecated one is styled as deprecated rather than by its method). */
  const operationBlock = (page: Page, method: string, path: string) =>
    page
      .locator('.opblock')
      .filter({ has: page.locator(`.opblock-summary [data-path="${path}"]`) })
      .filter({ has: page.locator('.opblock-summary-method', { hasText: new RegExp(`^${method}$`, 'i') }) });

  test('a visitor pastes the demo key, calls GET /user and sees the answer; nothing loads from elsewhere', async () => {
    const page = await browser.newPage();
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(url) && !request.url().startsWith('data:')) elsewhere.push(request.url());
    });
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));

    await openAuthorized(page);
    const operation = operationBlock(page, 'get', '/user');
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

  test('Execute with the example the page fills in succeeds on every operation (DELETE /projects is refused as documented)', async () => {
    const document = (await call(t.app, 'GET', '/openapi.json')).json;
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      METHODS.filter((method) => (item as Record<string, unknown>)[method]).map((method) => ({ method, path })),
    );
    assert.deepEqual(
      operations.map(({ method, path }) => `${method.toUpperCase()} ${path}`).sort(),
      Object.keys(EXPECTED_STATUS).sort(),
      'every operation of the document has its expected status here',
    );

    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await openAuthorized(page);
    const answered: Record<string, number> = {};
    for (const { method, path } of operations) {
      const name = `${method.toUpperCase()} ${path}`;
      const expected = EXPECTED_STATUS[name]!;
      assert.ok(document.paths[path][method].responses[expected], `${name} documents ${expected}`);
      const operation = operationBlock(page, method, path);
      await operation.locator('.opblock-summary').click();
      const sent = page.waitForRequest((request) => ['fetch', 'xhr'].includes(request.resourceType()));
      await operation.locator('button.execute').click();
      const request = await sent;
      const target = new URL(request.url());
      executed.push({
        name,
        method: request.method() as Executed['method'],
        path: `${target.pathname}${target.search}`,
        contentType: await request.headerValue('content-type').then((value) => value ?? undefined),
        body: request.postData(),
      });
      // The status cell of the answer the page received, as the visitor reads it.
      const response = operation.locator('.live-responses-table .response').first();
      const status = response.locator('.response-col_status');
      await status.waitFor();
      const body = await response.locator('.response-col_description pre').first().innerText();
      answered[name] = Number((await status.innerText()).trim());
      assert.equal(answered[name], expected, `${name} answered ${answered[name]}: ${body}`);
      // The envelope's success, where the route has one (the WakaTime-compatible answers have none).
      assert.notEqual(JSON.parse(body).success, expected >= 300, `${name}: ${body}`);
      await operation.locator('.opblock-summary').click();
    }
    assert.deepEqual(answered, EXPECTED_STATUS);
    assert.deepEqual(pageErrors, []);
    await page.close();
  });

  test('descriptions show their <placeholders> as written', async () => {
    const page = await browser.newPage();
    await page.goto(`${url}/docs`);
    const operation = operationBlock(page, 'post', '/report');
    await operation.locator('.opblock-summary').click();
    const description = await operation.locator('.opblock-description').first().innerText();
    for (const text of ['day:<date>', 'week:<first day>', 'task:<taskId>', 'task:hidden:<date>:<userId>']) {
      assert.ok(description.includes(text), `${text} is shown`);
    }
    await page.close();
  });
});

for (const dialect of otherDialects) {
  describe(`the requests /docs sends [${dialect}]`, () => {
    let t: TestApp;
    let key: string;
    before(async () => {
      ({ t, key } = await demoServer(dialect));
    });
    after(() => t?.close());

    test('each request Execute sent in the browser gets the same status here, in the same order', async () => {
      // The browser's run above records them; it runs first in this file.
      assert.deepEqual(executed.map(({ name }) => name).sort(), Object.keys(EXPECTED_STATUS).sort());
      for (const request of executed) {
        const response = await call(t.app, request.method, request.path, {
          key,
          ...(request.body === null ? {} : { body: request.body }),
          ...(request.contentType === undefined ? {} : { headers: { 'content-type': request.contentType } }),
        });
        const expected = EXPECTED_STATUS[request.name];
        assert.equal(response.status, expected, `${request.name} answered ${response.status}: ${response.body}`);
        assert.notEqual(response.json.success, response.status >= 300, `${request.name}: ${response.body}`);
      }
    });
  });
}
