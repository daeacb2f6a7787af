/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP, stateless (docs/mcp.md), on the
 * official SDK's v2 line. Each POST gets its own server and transport, made for the key that sent it. The key is checked like on
 * every route (401, 429), but no single scope: each tool checks the scope and plan of the route
 * it wraps (src/mcp/server.ts). GET and DELETE (a server-sent stream, ending a session) have no
 * meaning without sessions: the app answers them 405 in the envelope, as any unserved method.
 *
 * Not in the OpenAPI document: it is one JSON-RPC endpoint whose operations are the tools, which
 * an MCP client lists itself (`tools/list`); the routes the tools wrap are documented there.
 */
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { failureBody } from '../http/envelope.ts';
import type { RouteModule } from '../http/types.ts';
import { createMcpServer } from '../mcp/server.ts';

const mcpRoutes: RouteModule = (app, deps) => {
  app.post(
    '/mcp',
    {
      config: { anyScope: true, authorizationHeader: true },
      schema: { hide: true } as object,
    },
    async (request, reply) => {
      const server = createMcpServer(deps, request.auth, request.log);
      const transport = new NodeStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      // The transport writes the answer itself: the headers set so far (rate limits, no-store,
      // nosniff) go with it.
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) reply.raw.setHeader(name, value as string | number | string[]);
      }
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (err) {
        request.log.error({ err }, 'MCP request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          reply.raw.end(JSON.stringify(failureBody('Internal Server Error')));
        } else reply.raw.end();
      }
    },
  );
};

export default mcpRoutes;
