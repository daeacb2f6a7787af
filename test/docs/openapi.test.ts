/** GET /openapi.json and GET /docs: the generated API description and the page built from it. */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { OPENAPI_FILE, formatOpenApi } from '../../scripts/openapi.ts';
import type { App } from '../../src/http/types.ts';
import { SCOPES } from '../../src/services/scopes.ts';
import { DEFAULT_NOW, type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/**
 * Routes that are not part of the API: operator probes, the documentation and `/` pointing to it,
 * and `/mcp`, one JSON-RPC endpoint whose operations are MCP tools that clients list themselves
 * (docs/mcp.md).
 */
const UNDOCUMENTED = /^\/((healthz|readyz|openapi\.json|docs|mcp)(\/|$)|$)/;
const DAY_MS = 86_400_000;

/** Every description and summary of the document, with where it is. */
function markdownTexts(node: unknown, where = ''): { where: string; text: string }[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => markdownTexts(item, `${where}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    (key === 'description' || key === 'summary') && typeof value === 'string'
      ? [{ where: `${where}/${key}`, text: value }]
      : markdownTexts(value, `${where}/${key}`),
  );
}

/**
 * Every method and path the app serves, read from Fastify's route tree: each line of
 * printRoutes() is a segment whose full path is its ancestors' segments joined.
 */
function servedRoutes(app: App): { method: string; path: string }[] {
  const routes: { method: string; path: string }[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = line.match(/^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    stack.length = depth;
    stack.push(match[2]!);
    for (const method of (match[3] ?? '').split(', ').filter((m) => m && m !== 'HEAD')) {
      routes.push({ method: method.toLowerCase(), path: stack.join('') });
    }
  }
  return routes;
}

forEachDialect('the OpenAPI document', (dialect) => {
  let t: TestApp;
  let doc: any;
  /** The document as the code generates it (and docs/openapi.json holds it), before the server dates its examples. */
  const generatedDocument = (): any => structuredClone(t.app.swagger());
  before(async () => {
    t = await createTestApp(dialect);
    doc = (await call(t.app, 'GET', '/openapi.json')).json;
  });
  after(() => t.close());

  test('is served without a key as a valid OpenAPI 3.1 document', async () => {
    const res = await call(t.app, 'GET', '/openapi.json');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(doc.openapi, '3.1.0');
    const result = await new Validator().validate(structuredClone(doc));
    assert.deepEqual(result, { valid: true });
  });

  test('declares the x-api-key header as its security scheme', () => {
    assert.deepEqual(doc.components.securitySchemes.apiKey, {
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
      description: doc.components.securitySchemes.apiKey.description,
    });
  });

  test('lists every endpoint the server serves, and nothing it does not', () => {
    const served = servedRoutes(t.app).filter((r) => !UNDOCUMENTED.test(r.path));
    const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((method) => ({
        method,
        path: path.replace(/\{(\w+)\}/g, ':$1'),
      })),
    );
    const key = (r: { method: string; path: string }) => `${r.method.toUpperCase()} ${r.path}`;
    assert.ok(
      served.some((r) => key(r) === 'GET /user'),
      'the route tree was read',
    );
    assert.deepEqual(documented.map(key).sort(), served.map(key).sort());
  });

  test('every operation names its scope, plan, security and every error response', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const op = (item as Record<string, any>)[method];
        if (!op) continue;
        const where = `${method.toUpperCase()} ${path}`;
        assert.ok(SCOPES.includes(op['x-required-scope']), `${where} has x-required-scope`);
        assert.ok(op['x-accepted-scopes'].includes(op['x-required-scope']), where);
        assert.deepEqual(op.security, [{ apiKey: [] }], where);
        assert.ok(op.description.includes(`**Scope:** \`${op['x-required-scope']}\``), where);
        for (const status of ['400', '401', '403', '405', '413', '415', '429', '500']) {
          assert.ok(op.responses[status], `${where} documents ${status}`);
          assert.notEqual(
            op.responses[status].description,
            'Default Response',
            `${where} ${status} says what it means`,
          );
        }
        assert.ok(
          op.responses['403'].description.includes(`API key missing required scope: ${op['x-required-scope']}`),
          where,
        );
      }
    }
  });

  test('GET /user: scope user:read, Core plan, and the shape of its answer', () => {
    const op = doc.paths['/user'].get;
    assert.equal(op['x-required-scope'], 'user:read');
    assert.equal(op['x-required-plan'], 'core');
    assert.match(op.responses['403'].description, /This endpoint requires the Core plan or higher\./);
    assert.deepEqual(op.responses['200'].content['application/json'].schema.required, ['success', 'name', 'email']);
    assert.ok(op.responses['200'].headers['RateLimit-Remaining']);
    assert.ok(op.responses['429'].headers['Retry-After']);
    assert.deepEqual(op.responses['429'].content['application/json'].schema.properties.error, {
      type: 'string',
      const: 'rate_limited',
    });
  });

  test('a body is required only where an empty one is refused; the deprecated operation documents its headers', () => {
    const required = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => (item as Record<string, any>)[m]?.requestBody?.required).map(
        (m) => `${m.toUpperCase()} ${path}`,
      ),
    );
    assert.deepEqual(required, [
      'POST /activities',
      'POST /destinations',
      'POST /search',
      'POST /tasks',
      'POST /day-comments',
    ]);
    assert.equal(doc.paths['/report'].post.requestBody.required, false);
    for (const response of Object.values(doc.paths['/project'].post.responses) as any[]) {
      assert.ok(response.headers.Deprecation && response.headers.Link);
    }
    assert.equal(doc.paths['/projects'].get.responses['200'].headers.Deprecation, undefined);
  });

  test('no description holds a <placeholder> outside a code span, where Swagger UI would take it for HTML', () => {
    const texts = markdownTexts(doc);
    assert.ok(
      texts.some(({ text }) => text.includes('`day:<date>`')),
      'the /report ids are in the descriptions',
    );
    for (const { where, text } of texts) {
      const outsideCode = text.replace(/`[^`]*`/g, '');
      assert.doesNotMatch(outsideCode, /<[A-Za-z]/, where);
    }
  });

  test('the served examples are dated from the day the server answers on (UTC), both in /openapi.json and on /docs', async () => {
    const body = (document: any, path: string) => document.paths[path].post.requestBody.content['application/json'];
    const queryOf = (document: any) =>
      document.paths['/message'].get.parameters as { name: string; example: unknown }[];
    const generated = generatedDocument();
    t.setNow(Date.parse('2027-03-10T23:30:00.000Z'));
    try {
      for (const url of ['/openapi.json', '/docs/json']) {
        const served = (await call(t.app, 'GET', url)).json;
        const today = Date.parse('2027-03-10T00:00:00.000Z');
        const report = { dateRange: { from: today - 7 * DAY_MS, to: today }, aggregationLevel: 'day', sort: 'desc' };
        assert.deepEqual(body(served, '/report').example, report, url);
        const message = { date: '2027-03-02', level: 'week', format: 'text' };
        assert.deepEqual(body(served, '/message').example, message, url);
        assert.deepEqual(Object.fromEntries(queryOf(served).map((p) => [p.name, p.example])), message, url);
        assert.equal(body(served, '/activities').example.activities[0].start, '2027-03-09T09:00:00Z', url);
        assert.equal(body(served, '/tasks').example.date, '2027-03-09', url);
        assert.equal(body(served, '/day-comments').example.date, '2027-03-09', url);
        // Nothing else differs from the document the code generates.
        body(served, '/report').example = body(generated, '/report').example;
        body(served, '/message').example = body(generated, '/message').example;
        for (const path of [
          '/activities',
          '/tasks',
          '/day-comments',
          ...['/api/v1', '/api/compat/wakatime/v1'].flatMap((p) => [
            `${p}/users/current/heartbeats`,
            `${p}/users/current/heartbeats.bulk`,
          ]),
        ])
          body(served, path).example = body(generated, path).example;
        for (const [i, parameter] of queryOf(served).entries()) parameter.example = queryOf(generated)[i]!.example;
        assert.deepEqual(served, generated, url);
      }
    } finally {
      t.setNow(DEFAULT_NOW);
    }
  });

  test('every operation has an example of each parameter and of its body', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of METHODS) {
        const op = (item as Record<string, any>)[method];
        if (!op) continue;
        for (const parameter of op.parameters ?? []) {
          if (parameter.schema.default === undefined)
            assert.notEqual(parameter.example, undefined, `${method} ${path} ${parameter.name}`);
        }
        if (op.requestBody) assert.ok(op.requestBody.content['application/json'].example, `${method} ${path}`);
      }
    }
  });

  test('the committed docs/openapi.json is what the code generates (run `npm run openapi` after changing a route)', async () => {
    const committed = await readFile(OPENAPI_FILE, 'utf8').catch(() => '{}');
    const fresh = generatedDocument();
    const generated = formatOpenApi(fresh);
    if (committed === generated) return;
    // Name what drifted instead of printing two 200 kB strings.
    const old = JSON.parse(committed);
    const changed = [...new Set([...Object.keys(old.paths ?? {}), ...Object.keys(fresh.paths)])].filter(
      (path) => JSON.stringify(old.paths?.[path]) !== JSON.stringify(fresh.paths[path]),
    );
    const rest =
      JSON.stringify({ ...old, paths: null }) !== JSON.stringify({ ...fresh, paths: null }) ? ['(top level)'] : [];
    assert.fail(
      `docs/openapi.json is out of date (${[...rest, ...changed].join(', ') || 'formatting'}): run \`npm run openapi\``,
    );
  });
});

forEachDialect('the docs page', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect);
  });
  after(() => t.close());

  test("GET /docs is an HTML page without a key, loading only this server's scripts and styles", async () => {
    const res = await call(t.app, 'GET', '/docs');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    const sources = [...res.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(sources.length >= 4);
    for (const source of sources) {
      assert.ok(source.startsWith('/docs/'), `${source} is served by Daybook`);
      const asset = await call(t.app, 'GET', source);
      assert.equal(asset.status, 200, source);
    }
    assert.match(String(res.headers['content-security-policy']), /default-src 'self'/);
  });

  test('the page reads the same document as /openapi.json', async () => {
    const page = await call(t.app, 'GET', '/docs/json');
    const api = await call(t.app, 'GET', '/openapi.json');
    assert.deepEqual(page.json, api.json);
  });

  test('GET / answers without a key where the documentation is; other methods are 405, other paths still 404', async () => {
    const root = await call(t.app, 'GET', '/');
    assert.deepEqual(
      [root.status, root.json],
      [200, { success: true, name: 'Daybook', docs: '/docs', openapi: '/openapi.json' }],
    );
    for (const method of ['POST', 'PUT', 'DELETE', 'HEAD'] as const) {
      const res = await call(t.app, method, '/', { body: method === 'HEAD' ? undefined : {} });
      assert.deepEqual([res.status, res.headers.allow], [405, 'GET'], method);
    }
    const unknown = await call(t.app, 'GET', '/index.html');
    assert.deepEqual(
      [unknown.status, unknown.json],
      [404, { success: false, error: 'Not Found', message: 'Not Found' }],
    );
  });

  test('documentation assets that do not exist are 404 in the envelope', async () => {
    const res = await call(t.app, 'GET', '/docs/static/nothing.js');
    assert.deepEqual([res.status, res.json], [404, { success: false, error: 'Not Found', message: 'Not Found' }]);
  });
});
