/** Turns a schema validation failure into one sentence naming the field and what it must be. */
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

function fieldOf(error: FastifySchemaValidationError, dataVar: string): string {
  const path = (error.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  if (missing) return path ? `${path}.${missing}` : missing;
  return path || dataVar;
}

export function describeValidationError(errors: FastifySchemaValidationError[], dataVar: string): string {
  const error = errors[0];
  if (!error) return `${dataVar} is invalid`;
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
