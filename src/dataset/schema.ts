/**
 * The dataset exchange format (version 1): its JSON Schema, validated with Ajv (2020-12).
 * dataset.schema.json beside this file is the product's own copy of the contract.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ErrorObject, ValidateFunction } from 'ajv';

export const RECORD_TYPES = [
  'user',
  'team',
  'portfolio',
  'category',
  'project',
  'task',
  'activity',
  'dayComment',
  'apiKey',
] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

/** JSON-document array name of each record type. */
export const ARRAY_OF: Record<RecordType, string> = {
  user: 'users',
  team: 'teams',
  portfolio: 'portfolios',
  category: 'categories',
  project: 'projects',
  task: 'tasks',
  activity: 'activities',
  dayComment: 'dayComments',
  apiKey: 'apiKeys',
};

export const schemaPath = join(dirname(fileURLToPath(import.meta.url)), 'dataset.schema.json');
export const datasetSchema = JSON.parse(readFileSync(schemaPath, 'utf8')) as { $id: string };

// Ajv and ajv-formats are CommonJS; their class/function is the default export's `default`.
type AjvClass = typeof import('ajv').default;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: AjvClass }).default ?? Ajv2020Module) as AjvClass;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: InstanceType<AjvClass>,
) => void;

const ajv = new Ajv2020({ allErrors: false, strict: false, useDefaults: false });
addFormats(ajv);
ajv.addSchema(datasetSchema);

let documentValidator: ValidateFunction | undefined;

/**
 * Checks a whole JSON document, leaving the first failures in `validateDocument.errors`.
 * Compiled on first use: a third of a second that the server and most commands never need.
 */
export function validateDocument(document: unknown): boolean {
  documentValidator ??= ajv.getSchema(datasetSchema.$id)!;
  const valid = documentValidator(document) as boolean;
  validateDocument.errors = documentValidator.errors;
  return valid;
}
validateDocument.errors = undefined as ErrorObject[] | null | undefined;

const recordValidators = new Map<RecordType, ValidateFunction>();
export function recordValidator(type: RecordType): ValidateFunction {
  let validate = recordValidators.get(type);
  if (!validate) {
    validate = ajv.compile({ $ref: `${datasetSchema.$id}#/$defs/${type}` });
    recordValidators.set(type, validate);
  }
  return validate;
}

/** "field: message" for the first schema error, with the path inside the record. */
/** What each string format of the schema asks for, in words. */
const FORMAT_MESSAGES: Record<string, string> = {
  email: 'must be an e-mail address with a dotted domain, such as ada@example.com',
  'date-time': 'must be an ISO 8601 instant with Z or an offset, such as 2026-11-20T09:00:00Z',
  date: 'must be a date in the form YYYY-MM-DD',
};

/** What each pattern of the schema asks for, in words. */
const PATTERN_MESSAGES: Record<string, string> = {
  '^[A-Za-z0-9_.:-]+$': 'may hold only letters A-Z and a-z, digits and _ . : -',
  '^[a-z0-9_.-]{2,40}$': 'must be 2 to 40 of a-z, 0-9 and _ . -',
  '^\\d{4}-\\d{2}-\\d{2}$': 'must be a date in the form YYYY-MM-DD',
  '^[0-9a-f]{64}$': 'must be 64 lowercase hexadecimal digits (a SHA-256 hash)',
};

export function describeSchemaError(error: ErrorObject | undefined, prefix = ''): string {
  if (!error) return 'invalid record';
  const path = (error.instancePath || '').split('/').filter(Boolean);
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  const extra = (error.params as { additionalProperty?: string }).additionalProperty;
  if (missing) path.push(missing);
  if (extra) path.push(extra);
  const field = [prefix, ...path]
    .filter(Boolean)
    .join('.')
    .replace(/\.(\d+)(?=\.|$)/g, '[$1]');
  let message = error.message ?? 'is invalid';
  if (error.keyword === 'additionalProperties') message = 'is not a known field';
  if (error.keyword === 'enum')
    message = `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  if (error.keyword === 'const')
    message = `must be ${JSON.stringify((error.params as { allowedValue: unknown }).allowedValue)}`;
  if (error.keyword === 'format') message = FORMAT_MESSAGES[(error.params as { format: string }).format] ?? message;
  if (error.keyword === 'pattern') {
    const { pattern } = error.params as { pattern: string };
    message = PATTERN_MESSAGES[pattern] ?? `must match ${pattern}`;
  }
  return `${field || 'record'}: ${message}`;
}
