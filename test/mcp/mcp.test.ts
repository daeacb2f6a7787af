/**
 * `/mcp` through the official SDK's client over HTTP, against a listening server on the example
 * data: each tool answers what its route answers, refusals are tool errors with Daybook's
 * messages, bad input is a tool error naming the field, an unknown key is a 401.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type CallToolResult, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { importDataset } from '../../src/dataset/import.ts';
import { generateSummaries } from '../../src/services/summaries/generate.ts';
import {
  call,
  createSharedTestDatabase,
  createTestApp,
  DEFAULT_NOW,
  EXAMPLE,
  forEachDialect,
  KEYS,
  type TestApp,
  type TestDatabase,
} from '../helper.ts';

/** Alice's key with every scope, activity:write included (the example dataset has none). */
const ALICE_WRITE = 'dbk_test_mcp_alice_write_0123456789abcdef';
/** Alice's key without search:read. */
const ALICE_NO_SEARCH = 'dbk_test_mcp_alice_nosearch_0123456789abc';
const ALL_SCOPES = [
  'reports:read',
  'summaries:read',
  'projects:read',
  'projects:write',
  'search:read',
  'user:read',
  'activity:write',
];

const TOOL_NAMES = [
  'add_manual_task',
  'generate_report',
  'get_message',
  'get_summary',
  'list_projects',
  'log_activity',
  'search_content',
];

/** The payload of a route's answer, without the envelope's `success`. */
const payload = (json: Record<string, unknown>) => {
  const { success, ...rest } = json;
  assert.equal(success, true, JSON.stringify(json));
  return rest;
};

forEachDialect('MCP over Streamable HTTP', (dialect) => {
  let t: TestApp;
  let url: URL;
  let dir: string;
  const clients: Client[] = [];

  let database: TestDatabase | undefined;

  before(async () => {
    // SQLite: on a file, so that the writing tools go through the write thread as the routes do
    // (services/recording/recorder.ts).
    if (dialect === 'sqlite') {
      database = await createSharedTestDatabase(dialect);
      await importDataset(database.storage, EXAMPLE, { now: () => DEFAULT_NOW });
    }
    t = await createTestApp(dialect, database ? { database, dataset: null, config: { writeThread: true } } : {});
    dir = await mkdtemp(join(tmpdir(), 'daybook-mcp-'));
    const keys = join(dir, 'keys.json');
    await writeFile(
      keys,
      JSON.stringify({
        version: 1,
        apiKeys: [
          { userId: 'u_alice', name: 'assistant', key: ALICE_WRITE, scopes: ALL_SCOPES },
          {
            userId: 'u_alice',
            name: 'no search',
            key: ALICE_NO_SEARCH,
            scopes: ALL_SCOPES.filter((scope) => scope !== 'search:read'),
          },
        ],
      }),
    );
    await importDataset(t.storage, keys, { now: () => DEFAULT_NOW });
    await generateSummaries(t.storage, { now: DEFAULT_NOW });
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = new URL('/mcp', address);
  });

  after(async () => {
    for (const client of clients) await client.close();
    await t.close();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  async function connect(key: string, how: 'bearer' | 'x-api-key' = 'bearer'): Promise<Client> {
    const headers = how === 'bearer' ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
    const client = new Client({ name: 'daybook-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    clients.push(client);
    return client;
  }

  const callTool = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;

  /** A successful tool answer: its structured content, and its first text. */
  function answered(result: CallToolResult) {
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    const [first, json] = result.content as { type: string; text: string }[];
    assert.equal(first?.type, 'text');
    assert.ok(first.text.length > 0);
    // The JSON text block repeats the structured content for clients that show text only.
    assert.deepEqual(JSON.parse(json!.text), result.structuredContent);
    return { structured: result.structuredContent as Record<string, unknown>, text: first.text };
  }

  function refused(result: CallToolResult): string {
    assert.equal(result.isError, true, JSON.stringify(result));
    return (result.content as { text: string }[])[0]!.text;
  }

  test('lists the seven tools, each with an object input schema', async () => {
    const client = await connect(ALICE_WRITE);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), TOOL_NAMES);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.ok(tool.description && tool.description.length > 20, tool.name);
      assert.ok(!JSON.stringify(tool.inputSchema).includes('x-error'), tool.name);
    }
    const report = tools.find((tool) => tool.name === 'generate_report')!;
    assert.ok('dateRange' in (report.inputSchema.properties ?? {}));
    const summary = tools.find((tool) => tool.name === 'get_summary')!;
    assert.deepEqual(Object.keys(summary.inputSchema.properties ?? {}), ['date', 'level']);
  });

  test('x-api-key works as well as Authorization: Bearer', async () => {
    const client = await connect(ALICE_WRITE, 'x-api-key');
    assert.equal((await client.listTools()).tools.length, TOOL_NAMES.length);
  });

  test('generate_report answers what POST /report answers', async () => {
    const client = await connect(ALICE_WRITE);
    const bodies = [
      {},
      {
        dateRange: { from: Date.parse('2026-11-16T00:00:00Z'), to: Date.parse('2026-11-21T00:00:00Z') },
        aggregationLevel: 'task',
        sort: 'asc',
      },
      {
        dateRange: { from: Date.parse('2026-11-16T00:00:00Z'), to: Date.parse('2026-11-18T00:00:00Z') },
        aggregationLevel: 'activity',
      },
    ];
    for (const body of bodies) {
      const route = await call(t.app, 'POST', '/report', { key: ALICE_WRITE, body });
      assert.equal(route.status, 200);
      const { structured, text } = answered(await callTool(client, 'generate_report', body));
      assert.deepEqual(structured, payload(route.json));
      assert.ok((route.json.rows as unknown[]).length > 0);
      assert.match(text, /row/);
    }
  });

  test('search_content answers what POST /search answers', async () => {
    const client = await connect(ALICE_WRITE);
    const body = { query: 'rate limiter', limit: 5, days: 14 };
    const route = await call(t.app, 'POST', '/search', { key: ALICE_WRITE, body });
    assert.equal(route.status, 200);
    const { structured, text } = answered(await callTool(client, 'search_content', body));
    assert.deepEqual(structured, payload(route.json));
    assert.ok((route.json.results as unknown[]).length > 0);
    assert.equal(text, route.json.message);
  });

  test('get_message answers what POST /message answers, as text by default', async () => {
    const client = await connect(ALICE_WRITE);
    const body = { date: '2026-11-16', level: 'day' };
    const route = await call(t.app, 'POST', '/message', { key: ALICE_WRITE, body: { ...body, format: 'text' } });
    assert.equal(route.status, 200, route.body);
    const { structured, text } = answered(await callTool(client, 'get_message', body));
    assert.deepEqual(structured, payload(route.json));
    assert.equal(text, route.json.content);
    const html = await call(t.app, 'POST', '/message', { key: ALICE_WRITE, body: { ...body, format: 'html' } });
    const asHtml = answered(await callTool(client, 'get_message', { ...body, format: 'html' }));
    assert.deepEqual(asHtml.structured, payload(html.json));
    // No summary: the route's 404 message.
    const none = await call(t.app, 'POST', '/message', { key: ALICE_WRITE, body: { date: '2025-01-01' } });
    assert.equal(none.status, 404);
    assert.equal(refused(await callTool(client, 'get_message', { date: '2025-01-01' })), none.json.error);
  });

  test('get_summary answers the data /message renders', async () => {
    const client = await connect(ALICE_WRITE);
    const body = { date: '2026-11-16' };
    const route = await call(t.app, 'POST', '/message', { key: ALICE_WRITE, body: { ...body, format: 'text' } });
    assert.equal(route.status, 200, route.body);
    const { structured, text } = answered(await callTool(client, 'get_summary', body));
    const summary = structured.summary as { level: string; totalMinutes: number; projects: { name: string }[] };
    assert.equal(structured.subject, route.json.metadata.subject);
    assert.equal(summary.level, 'day');
    assert.ok(summary.totalMinutes > 0);
    assert.ok(text.startsWith(`${route.json.metadata.subject}:`), text);
    for (const project of summary.projects) assert.ok(route.json.content.includes(project.name), project.name);
  });

  test('list_projects answers what GET /projects answers', async () => {
    const client = await connect(ALICE_WRITE);
    const all = await call(t.app, 'GET', '/projects?includeArchived=true', { key: ALICE_WRITE });
    assert.equal(all.status, 200);
    const listed = answered(await callTool(client, 'list_projects', { includeArchived: true }));
    assert.deepEqual(listed.structured, payload(all.json));
    assert.match(listed.text, /projects?/);
    const page = await call(t.app, 'GET', '/projects?limit=2&sort=updatedAt', { key: ALICE_WRITE });
    const paged = answered(await callTool(client, 'list_projects', { limit: 2, sort: 'updatedAt' }));
    assert.deepEqual(paged.structured, payload(page.json));
  });

  test('add_manual_task creates a task as POST /tasks does', async () => {
    const client = await connect(ALICE_WRITE);
    const body = { title: 'Write MCP docs', date: '2026-11-21', minutes: 45, project: 'p_api' };
    const route = await call(t.app, 'POST', '/tasks', { key: ALICE_WRITE, body: { ...body, id: 'k_mcp_route' } });
    assert.equal(route.status, 201, route.body);
    const { structured, text } = answered(await callTool(client, 'add_manual_task', { ...body, id: 'k_mcp_tool' }));
    const task = structured.task as Record<string, unknown>;
    assert.deepEqual({ ...task, id: 'k_mcp_route' }, route.json.task);
    assert.match(text, /Write MCP docs/);
    // Stored: the report sees both tasks.
    const report = answered(
      await callTool(client, 'generate_report', {
        dateRange: { from: Date.parse('2026-11-20T00:00:00Z'), to: Date.parse('2026-11-22T00:00:00Z') },
        aggregationLevel: 'task',
      }),
    );
    const ids = (report.structured.rows as { id: string }[]).map((row) => row.id);
    assert.ok(ids.includes('task:k_mcp_tool') && ids.includes('task:k_mcp_route'), ids.join());
  });

  test('log_activity records activities as POST /activities does', async () => {
    const client = await connect(ALICE_WRITE);
    const item = { start: '2026-11-21T10:00:00Z', durationMinutes: 30, headline: 'Pairing on MCP' };
    const route = await call(t.app, 'POST', '/activities', {
      key: ALICE_WRITE,
      body: { activities: [{ ...item, id: 'a_mcp_route' }] },
    });
    assert.equal(route.status, 200, route.body);
    const tool = answered(await callTool(client, 'log_activity', { activities: [{ ...item, id: 'a_mcp_tool' }] }));
    assert.deepEqual(tool.structured, { ...payload(route.json), ids: ['a_mcp_tool'] });
    assert.match(tool.text, /1 activity created/);
    // Again: the same id is replaced.
    const again = answered(await callTool(client, 'log_activity', { activities: [{ ...item, id: 'a_mcp_tool' }] }));
    assert.deepEqual(again.structured, { created: 0, updated: 1, ids: ['a_mcp_tool'] });
  });

  test('a key without the scope gets the route 403 message as a tool error', async () => {
    const client = await connect(ALICE_NO_SEARCH);
    const route = await call(t.app, 'POST', '/search', { key: ALICE_NO_SEARCH, body: { query: 'seeds' } });
    assert.equal(route.status, 403);
    const message = refused(await callTool(client, 'search_content', { query: 'seeds' }));
    assert.equal(message, 'API key missing required scope: search:read');
    assert.equal(message, route.json.error);
    // The example keys: a read-only key cannot write, one without reports:read cannot report.
    const readOnly = await connect(KEYS.aliceReadOnly);
    assert.equal(
      refused(await callTool(readOnly, 'add_manual_task', { title: 'x' })),
      'API key missing required scope: activity:write',
    );
    assert.equal(refused(await callTool(readOnly, 'generate_report')), 'API key missing required scope: reports:read');
    // Implied scopes grant as on the routes: reports:read reads summaries.
    const bob = await connect(KEYS.bob);
    assert.notEqual((await callTool(bob, 'list_projects')).isError, true);
  });

  test('a free-plan key is refused the Core tools, as on the routes', async () => {
    const client = await connect(KEYS.carolFree);
    const route = await call(t.app, 'POST', '/report', { key: KEYS.carolFree, body: {} });
    assert.equal(route.status, 403);
    assert.equal(refused(await callTool(client, 'generate_report')), route.json.error);
    assert.equal(route.json.error, 'This endpoint requires the Core plan or higher.');
    // Search needs no plan.
    assert.notEqual((await callTool(client, 'search_content', { query: 'seeds' })).isError, true);
  });

  test('an unknown or revoked key is a 401 from /mcp', async () => {
    for (const key of ['dbk_not_a_key_0123456789', KEYS.daveRevoked]) {
      const client = new Client({ name: 'daybook-test', version: '1.0.0' });
      await assert.rejects(
        client.connect(
          new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
        ),
        /401|Invalid API key/,
      );
    }
    const raw = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(raw.status, 401);
    assert.deepEqual(await raw.json(), { success: false, error: 'Missing API key', message: 'Missing API key' });
  });

  test('bad input is a tool error naming the field, never a 500', async () => {
    const client = await connect(ALICE_WRITE);
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['generate_report', { dateRange: { from: 5 }, aggregationLevel: 'day' }, /dateRange\.to is required/],
      ['generate_report', { aggregationLevel: 'day' }, /dateRange is required/],
      ['generate_report', { dateRange: { from: 0, to: 1 }, aggregationLevel: 'hour' }, /aggregationLevel/],
      ['search_content', { query: 5 }, /query/],
      ['get_message', { date: 'yesterday' }, /date must be a date in the form YYYY-MM-DD/],
      ['get_summary', { level: 'decade' }, /level must be one of/],
      ['list_projects', { limit: 0 }, /limit must be an integer between 1 and/],
      ['add_manual_task', {}, /title/],
      ['add_manual_task', { title: 'x', minutes: 5000 }, /minutes must be an integer from 1 to 1440/],
      ['log_activity', { activities: [] }, /activities must hold between 1 and 1000 items/],
      ['log_activity', { activities: [{ start: 'soon', headline: 'x' }] }, /activities\[0\]\.start/],
    ];
    for (const [name, args, expected] of cases) {
      const message = refused(await callTool(client, name, args));
      assert.match(message, expected, `${name} ${JSON.stringify(args)}: ${message}`);
      assert.doesNotMatch(message, /Internal Server Error/);
    }
    // The route words the same input the same way.
    const route = await call(t.app, 'POST', '/tasks', { key: ALICE_WRITE, body: { title: 'x', minutes: 5000 } });
    assert.equal(route.status, 400);
    assert.equal(refused(await callTool(client, 'add_manual_task', { title: 'x', minutes: 5000 })), route.json.error);
  });

  test('GET and DELETE /mcp are 405 in the envelope (stateless: no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const res = await call(t.app, method, '/mcp', { key: ALICE_WRITE });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.allow, 'POST');
      assert.equal(res.json.success, false);
    }
  });

  test('a body that is not JSON-RPC, or not JSON, is a 4xx, never a 500', async () => {
    const post = (body: string) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-api-key': ALICE_WRITE,
        },
        body,
      });
    const malformed = await post('{"jsonrpc":');
    assert.equal(malformed.status, 400);
    assert.equal(((await malformed.json()) as { error: string }).error, 'Malformed JSON body');
    for (const body of ['{}', '[]', '"tools/list"', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":5}']) {
      const res = await post(body);
      assert.ok(res.status >= 200 && res.status < 500, `${body}: ${res.status}`);
      await res.arrayBuffer();
    }
    const client = await connect(ALICE_WRITE);
    assert.equal(refused(await callTool(client, 'no_such_tool')), 'Unknown tool: no_such_tool');
  });

  test('/mcp counts against the key rate limit like any route', async () => {
    const limited = await createTestApp(dialect, { config: { rateLimitPerMinute: 2 } });
    try {
      const initialize = {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      };
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await limited.app.inject({
          method: 'POST',
          url: '/mcp',
          headers: { 'x-api-key': KEYS.aliceAll, accept: 'application/json, text/event-stream' },
          payload: initialize,
        });
        statuses.push(res.statusCode);
        if (res.statusCode === 429) assert.ok(res.headers['retry-after']);
      }
      assert.deepEqual(statuses, [200, 200, 429]);
    } finally {
      await limited.close();
    }
  });

  test('answers carry the rate-limit headers and are not cached', async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': ALICE_WRITE,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    assert.equal(res.status, 200);
    assert.ok(res.headers.get('ratelimit-limit'));
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const body = (await res.json()) as { result: { serverInfo: { name: string } } };
    assert.equal(body.result.serverInfo.name, 'daybook');
  });
});
