/**
 * Reading a dataset file: a JSON document or an NDJSON stream, into its records in file order,
 * each one checked against the JSON Schema and for U+0000 before anything else sees it.
 */
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { mayHoldUnstorableText, unstorableText } from '../lib/text-checks.ts';
import { ImportError } from './import-error.ts';
import {
  ARRAY_OF,
  RECORD_TYPES,
  type RecordType,
  describeSchemaError,
  recordValidator,
  validateDocument,
} from './schema.ts';

/**
 * What a file holds, in order: its records, each with the place that names it in errors
 * (`activities[3]`, `line 7 (activity)`), and in a JSON document the end of each array.
 */
export type DatasetItem =
  | { kind: 'record'; type: RecordType; record: unknown; where: string }
  | { kind: 'end'; where: string };

/** Dataset files named `.ndjson` or `.jsonl` hold one record per line; any other name, a JSON document. */
export function isNdjson(path: string): boolean {
  return /\.(ndjson|jsonl)$/i.test(path);
}

/** The items of the file at `path`; a file that breaks the format throws ImportError where it does. */
export function readDataset(path: string, onTotal?: (records: number) => void): AsyncGenerator<DatasetItem> {
  return isNdjson(path) ? readNdjson(path) : readJsonDocument(path, onTotal);
}

/** Text holding U+0000 or a lone surrogate is refused on both databases, as the API refuses it (lib/text-checks.ts). */
function refuseUnstorable(record: unknown, where: string): void {
  const found = unstorableText(record);
  if (found !== null) throw new ImportError(`${where}: ${found.field || 'record'}: ${found.rule}`);
}

/** `onTotal`: told the number of records once the document is read (an NDJSON file's is not known ahead). */
async function* readJsonDocument(path: string, onTotal?: (records: number) => void): AsyncGenerator<DatasetItem> {
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    throw new ImportError(`${path}: not a JSON document (${(err as Error).message})`);
  }
  if (!validateDocument(doc)) {
    throw new ImportError(describeSchemaError(validateDocument.errors?.[0]));
  }
  const document = doc as Record<string, unknown[] | undefined>;
  onTotal?.(RECORD_TYPES.reduce((sum, type) => sum + (document[ARRAY_OF[type]]?.length ?? 0), 0));
  for (const type of RECORD_TYPES) {
    const array = ARRAY_OF[type];
    const records = document[array] ?? [];
    for (let i = 0; i < records.length; i++) {
      const where = `${array}[${i}]`;
      refuseUnstorable(records[i], where);
      yield { kind: 'record', type, record: records[i], where };
    }
    yield { kind: 'end', where: array };
  }
}

async function* readNdjson(path: string): AsyncGenerator<DatasetItem> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let lineNo = 0;
  for await (const line of lines) {
    lineNo++;
    if (line.trim() === '') continue;
    const where = `line ${lineNo}`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new ImportError(`${where}: not valid JSON`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ImportError(`${where}: a record must be a JSON object`);
    }
    const { type, ...record } = parsed as { type?: unknown };
    if (typeof type !== 'string' || !(RECORD_TYPES as readonly string[]).includes(type)) {
      throw new ImportError(`${where}: type: must be one of ${RECORD_TYPES.join(', ')}`);
    }
    const validate = recordValidator(type as RecordType);
    if (!validate(record)) throw new ImportError(`${where} (${type}): ${describeSchemaError(validate.errors?.[0])}`);
    if (mayHoldUnstorableText(line)) refuseUnstorable(record, `${where} (${type})`);
    yield { kind: 'record', type: type as RecordType, record, where: `${where} (${type})` };
  }
}
