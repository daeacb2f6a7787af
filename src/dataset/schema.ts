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
  'user', 'team', 'portfolio', 'category', 'project', 'task', 'activity', 'dayComment', 'apiKey',
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

export const validateDocument: ValidateFunction = ajv.getSchema(datasetSchema.$id)!;

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
export function describeSchemaError(error: ErrorObject | undefined, prefix = ''): string {
  if (!error) return 'invalid record';
  const path = (error.instancePath || '').split('/').filter(Boolean);
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  const extra = (error.params as { additionalProperty?: string }).additionalProperty;
  if (missing) path.push(missing);
  if (extra) path.push(extra);
  const field = [prefix, ...path].filter(Boolean).join('.').replace(/\.(\d+)(?=\.|$)/g, '[$1]');
  let message = error.message ?? 'is invalid';
  if (error.keyword === 'additionalProperties') message = 'is not a known field';
  if (error.keyword === 'enum') message = `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  return `${field || 'record'}: ${message}`;
}
