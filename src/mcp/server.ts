/**
 * One MCP server per `/mcp` request (stateless Streamable HTTP, docs/mcp.md), for the key that
 * sent it: `tools/list` lists every tool, `tools/call` checks the tool's scope and plan against
 * the key, validates the arguments with the route's schema and runs the tool. Any refusal or
 * failure is a tool error (`isError: true`) carrying Daybook's message, never a 500.
 */
import AjvModule from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
// The low-level Server: the tools' input schemas are JSON Schema (TypeBox), not a Standard Schema.
import { type CallToolResult, type Tool as ListedTool, Server } from '@modelcontextprotocol/server';
import { ApiError } from '../errors.ts';
import { type AuthContext, CORE_PLAN_REQUIRED, missingScope } from '../http/auth.ts';
import { DATABASE_UNAVAILABLE } from '../http/envelope.ts';
import type { RouteDeps } from '../http/types.ts';
import { describeValidationError, ERROR_KEYWORD } from '../http/validation.ts';
import { grants } from '../services/scopes.ts';
import { TOOLS, type Tool } from './tools.ts';

// Ajv and ajv-formats are CommonJS; their class/function is the default export's `default`.
type AjvClass = typeof import('ajv').default;
const Ajv = ((AjvModule as unknown as { default?: AjvClass }).default ?? AjvModule) as AjvClass;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: InstanceType<AjvClass>,
) => void;

/** As the routes validate a JSON body (src/http/app.ts): exact types, defaults filled in, each failure with its schema. */
const ajv = new Ajv({
  coerceTypes: false,
  useDefaults: true,
  removeAdditional: false,
  verbose: true,
  strict: false,
  strictNumbers: true,
});
ajv.addKeyword(ERROR_KEYWORD);
addFormats(ajv);

const validators = new Map<string, ValidateFunction>();
function validatorOf(tool: Tool): ValidateFunction {
  let validate = validators.get(tool.name);
  if (!validate) {
    validate = ajv.compile(tool.input);
    validators.set(tool.name, validate);
  }
  return validate;
}

/** The schema as published to clients: plain JSON, without Daybook's own error wording. */
function published(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema), (key, value) => (key === ERROR_KEYWORD ? undefined : value));
}

const listed: ListedTool[] = TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: published(tool.input) as ListedTool['inputSchema'],
  annotations: { readOnlyHint: tool.readOnly, destructiveHint: false, openWorldHint: false },
}));

const SERVER_INFO = { name: 'daybook', version: '0.1.0' };

const failure = (message: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: message }] });

export function createMcpServer(deps: RouteDeps, auth: AuthContext, log: { error(obj: object, msg: string): void }) {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      "Daybook records and reports a person's work: tasks, activities (time spans) and projects. " +
      'Use generate_report or get_summary to answer what was done in a period, search_content to find work by ' +
      'words, and add_manual_task or log_activity to record work. Times are Unix milliseconds or ISO 8601; dates are ' +
      "YYYY-MM-DD in the account's timezone.",
  });
  server.setRequestHandler('tools/list', () => ({ tools: listed }));
  server.setRequestHandler('tools/call', async (request): Promise<CallToolResult> => {
    const tool = TOOLS.find((candidate) => candidate.name === request.params.name);
    if (!tool) return failure(`Unknown tool: ${request.params.name}`);
    // The order of the routes' checks (docs/api.md, "Every request"): scope, plan, then the input.
    if (!grants(auth.scopes, tool.scope)) return failure(missingScope(tool.scope));
    if (tool.plan === 'core' && auth.user.plan === 'free') return failure(CORE_PLAN_REQUIRED);
    const input = structuredClone(request.params.arguments ?? {});
    const validate = validatorOf(tool);
    if (!validate(input)) {
      return failure(describeValidationError((validate.errors ?? []) as FastifySchemaValidationError[], 'arguments'));
    }
    try {
      const answer = await tool.run(deps, auth, input as never);
      return {
        structuredContent: answer.structured,
        content: [
          { type: 'text', text: answer.text },
          { type: 'text', text: JSON.stringify(answer.structured) },
        ],
      };
    } catch (error) {
      if (error instanceof ApiError) return failure(error.message);
      if (deps.storage.health.suspect(error)) return failure(DATABASE_UNAVAILABLE);
      log.error({ err: error, tool: tool.name }, 'MCP tool failed');
      return failure('Internal Server Error');
    }
  });
  return server;
}
