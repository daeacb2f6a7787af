/** Turns a schema validation failure into one sentence naming the field and what it must be. */
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

function fieldOf(error: FastifySchemaValidationError, dataVar: string): string {
  const path = (error.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  if (missing) return path ? `${path}.${missing}` : missing;
  return path || dataVar;
}

/**
 * A value that fits no branch of a union (`string or null`) fails each branch: the first
 * branch's complaint alone would read `team must be of type null`. When every branch failed on
 * the type, the message names the types a value can have (null, which stands for "no value",
 * only when it is the sole choice); when one branch had the right type, its complaint (a
 * length, a range) is the one that applies.
 */
function unionMessage(errors: FastifySchemaValidationError[], dataVar: string): string | null {
  const union = errors.find((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  if (!union) return null;
  const branches = errors.filter((e) => e !== union && e.instancePath === union.instancePath && e.schemaPath.startsWith(union.schemaPath));
  const fitting = branches.find((e) => e.keyword !== 'type');
  if (fitting) return describeValidationError([fitting], dataVar);
  const types = [...new Set(branches.map((e) => String((e.params as { type?: unknown }).type)))];
  const values = types.filter((type) => type !== 'null');
  const named = values.length > 0 ? values : types;
  if (named.length === 0) return null;
  const described = named.map((type) => (type === 'integer' ? 'an integer' : `of type ${type}`));
  return `${fieldOf(union, dataVar)} must be ${described.join(' or ')}`;
}

export function describeValidationError(errors: FastifySchemaValidationError[], dataVar: string): string {
  const error = errors[0];
  if (!error) return `${dataVar} is invalid`;
  const union = errors.length > 1 ? unionMessage(errors, dataVar) : null;
  if (union) return union;
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
