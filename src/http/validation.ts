/**
 * Turns a schema validation failure into one sentence naming the field and what it must be.
 *
 * Where docs/api.md words a field's 400 its own way (`limit must be an integer between 1 and
 * 50`, `Invalid color value`), the schema says so with the `x-error` keyword, so the wording
 * sits beside the rule it explains and is published with it in the OpenAPI document:
 *
 * - `'x-error': 'text'` words every failure of that schema, and of the union branches or
 *   entries inside it that do not word their own;
 * - `'x-error': { type: 'text', required: 'text' }` words only the failures of those Ajv
 *   keywords (`type` also when a value has the type of no branch of a union; `required` when
 *   the field is missing; `null` when a null has the wrong type, else `type` words it too),
 *   leaving the others to the generic sentences below.
 *
 * In the text, `{value}` is the value as errors repeat it (`shown`: a string as it is, cut to
 * 100 characters, anything else by its kind) and `{quoted}` the same with a string in JSON
 * quotes, `{field}` the field's name (`activities[3].headline`). The keyword is Ajv's annotation only: it never changes what is valid.
 */
import type { FastifySchemaValidationError, FastifyValidationResult } from 'fastify/types/schema.js';
import { shown } from '../errors.ts';

export const ERROR_KEYWORD = 'x-error';

/** Ajv's error with the details of its `verbose` option: the schema that failed and the value. */
type SchemaError = FastifySchemaValidationError & { parentSchema?: Record<string, unknown>; data?: unknown };

function fieldOf(error: FastifySchemaValidationError, dataVar: string): string {
  // An entry of a list is named by its index: `activities[3].durationMinutes`.
  const path = (error.instancePath ?? '')
    .replace(/^\//, '')
    .replace(/\/(\d+)(?=\/|$)/g, '[$1]')
    .replace(/\//g, '.');
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  if (missing) return path ? `${path}.${missing}` : missing;
  return path || dataVar;
}

/** The schema's own wording of a failure of `keyword`, with the value filled in, or undefined. */
function wordingOf(schema: unknown, keyword: string, value: unknown, field = ''): string | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const wording = (schema as Record<string, unknown>)[ERROR_KEYWORD];
  const byKeyword = wording as Record<string, string> | undefined;
  const text =
    typeof wording === 'string'
      ? wording
      : ((keyword === 'type' && value === null ? byKeyword?.null : undefined) ?? byKeyword?.[keyword]);
  if (text === undefined) return undefined;
  return text.replace(/\{(value|quoted|field)\}/g, (_, placeholder: string) => {
    if (placeholder === 'field') return field;
    return placeholder === 'quoted' && typeof value === 'string' ? JSON.stringify(shown(value)) : shown(value);
  });
}

/** A missing field is worded by the field's own schema; any other failure by the schema that failed. */
function ownWording(error: SchemaError): string | undefined {
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty?: string }).missingProperty ?? '';
    const properties = error.parentSchema?.properties as Record<string, unknown> | undefined;
    return wordingOf(properties?.[missing], 'required', undefined, fieldOf(error, ''));
  }
  return wordingOf(error.parentSchema, error.keyword, error.data, fieldOf(error, ''));
}

function genericMessage(error: FastifySchemaValidationError, dataVar: string): string {
  const field = fieldOf(error, dataVar);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${field} is required`;
    case 'type':
      return `${field} must be ${params.type === 'integer' ? 'an integer' : `of type ${params.type}`}`;
    case 'enum':
      return `${field} must be one of: ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'const':
      return `${field} must be ${JSON.stringify(params.allowedValue)}`;
    case 'maxLength':
      return `${field} must be at most ${params.limit} characters`;
    case 'minLength':
      return `${field} must be at least ${params.limit} characters`;
    case 'maximum':
      return `${field} must be at most ${params.limit}`;
    case 'minimum':
      return `${field} must be at least ${params.limit}`;
    case 'maxItems':
      return `${field} must have at most ${params.limit} items`;
    case 'pattern':
    case 'format':
      return `${field} has an invalid format`;
    default:
      return `${field} ${error.message ?? 'is invalid'}`;
  }
}

/**
 * A value that fits no branch of a union (`string or null`) fails each branch: the first
 * branch's complaint alone would read `team must be of type null`. When one branch had the
 * value's type and failed on something else (a length, an entry of a list), its complaint is the
 * one that applies, worded by that branch or else by the union. When every branch failed on the
 * type, the union's wording of `type` applies, else a sentence naming the types a value can have
 * (null, which stands for "no value", only when it is the sole choice).
 */
function unionMessage(union: SchemaError, errors: SchemaError[], dataVar: string): string | null {
  // Ajv goes on after a branch's type error (to its enum, say): a branch failed on the type
  // when any of its errors says so, wherever that error comes in the list.
  const branches = new Map<string, SchemaError[]>();
  const prefix = `${union.schemaPath}/`;
  for (const e of errors) {
    if (e === union || !e.schemaPath.startsWith(prefix)) continue;
    const branch = e.schemaPath.slice(prefix.length).split('/')[0]!;
    branches.set(branch, [...(branches.get(branch) ?? []), e]);
  }
  const wrongType = (e: SchemaError) => e.keyword === 'type' && e.instancePath === union.instancePath;
  const fitting = [...branches.values()].find((list) => !list.some(wrongType))?.[0];
  if (fitting)
    return (
      ownWording(fitting) ??
      wordingOf(union.parentSchema, fitting.keyword, fitting.data, fieldOf(union, dataVar)) ??
      genericMessage(fitting, dataVar)
    );
  const own = wordingOf(union.parentSchema, 'type', union.data, fieldOf(union, dataVar));
  if (own !== undefined) return own;
  const types = [...branches.values()].flatMap((list) =>
    list.filter(wrongType).map((e) => String((e.params as { type?: unknown }).type)),
  );
  const values = [...new Set(types)].filter((type) => type !== 'null');
  const named = values.length > 0 ? values : [...new Set(types)];
  if (named.length === 0) return null;
  const described = named.map((type) => (type === 'integer' ? 'an integer' : `of type ${type}`));
  return `${fieldOf(union, dataVar)} must be ${described.join(' or ')}`;
}

export function describeValidationError(errors: FastifySchemaValidationError[], dataVar: string): string {
  const error = errors[0] as SchemaError | undefined;
  if (!error) return `${dataVar} is invalid`;
  // Ajv stops at the first failing keyword; a failed union reports its branches, then itself.
  const last = errors[errors.length - 1] as SchemaError;
  const union = errors.length > 1 && (last.keyword === 'anyOf' || last.keyword === 'oneOf') ? last : undefined;
  const message = union ? unionMessage(union, errors as SchemaError[], dataVar) : null;
  return message ?? ownWording(error) ?? genericMessage(error, dataVar);
}

/**
 * Ajv reads a query value such as `1e309` or `Infinity` as Infinity while coercing it to a
 * number, and then leaves out `minimum` and `maximum`, which it applies to finite numbers only:
 * the handler would get Infinity. A query or path value that became a number that is not finite
 * fails here as its field's type, worded by its schema like any other failure.
 */
export function finiteAfterCoercion(validate: FastifyValidationResult, schema: unknown): FastifyValidationResult {
  const properties = (schema as { properties?: Record<string, Record<string, unknown>> } | undefined)?.properties;
  // Only the fields that can become numbers are looked at, and a route without any keeps Ajv's own.
  const numeric = Object.entries(properties ?? {}).filter(([, field]) =>
    [field.type].flat().some((type) => type === 'integer' || type === 'number'),
  );
  if (numeric.length === 0) return validate;
  const notFinite = (entry: unknown) => typeof entry === 'number' && !Number.isFinite(entry);
  const checked: FastifyValidationResult = (data) => {
    const result = validate(data);
    checked.errors = validate.errors;
    if (result !== true || data === null || typeof data !== 'object') return result;
    for (const [field, parentSchema] of numeric) {
      const value = (data as Record<string, unknown>)[field];
      const bad = (Array.isArray(value) ? value : [value]).find(notFinite);
      if (bad === undefined) continue;
      const error: SchemaError = {
        keyword: 'type',
        instancePath: `/${field}`,
        schemaPath: `#/properties/${field}/type`,
        params: { type: parentSchema.type },
        message: `must be ${parentSchema.type}`,
        parentSchema,
        data: bad,
      };
      checked.errors = [error];
      return false;
    }
    return result;
  };
  return checked;
}
