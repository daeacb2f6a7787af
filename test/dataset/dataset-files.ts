/** Test support for dataset files: exports as text, JSON ↔ NDJSON, and throwaway files. */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { type ExportFormat, exportDataset } from '../../src/dataset/export.ts';
import { ARRAY_OF, RECORD_TYPES } from '../../src/dataset/schema.ts';
import type { Storage } from '../../src/storage/database.ts';
import { EXAMPLE } from '../helper.ts';

export type DatasetDocument = { version: 1 } & Record<string, unknown[] | number>;

/** Everything `write` writes to the stream it is given, as one string. */
export async function collectText(write: (sink: Writable) => Promise<unknown>): Promise<string> {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  await write(sink);
  return chunks.join('');
}

/** The whole database exported in `format`, as one string. */
export function exportText(storage: Storage, format: ExportFormat = 'json'): Promise<string> {
  return collectText((sink) => exportDataset(storage, sink, format));
}

/** A fresh copy of the example dataset, to be changed by a test. */
export function exampleDocument(): DatasetDocument {
  return JSON.parse(readFileSync(EXAMPLE, 'utf8')) as DatasetDocument;
}

/** The same records as NDJSON lines, in the order the importer needs (type by type). */
export function toNdjsonLines(doc: DatasetDocument): string[] {
  const lines: string[] = [];
  for (const type of RECORD_TYPES) {
    for (const record of (doc[ARRAY_OF[type]] as object[] | undefined) ?? []) {
      lines.push(JSON.stringify({ type, ...record }));
    }
  }
  return lines;
}

/** A temporary directory for dataset files, removed by `remove()`. */
export function tempFiles(): { dir: string; write(name: string, content: string | object): string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'daybook-dataset-'));
  return {
    dir,
    write(name, content) {
      const path = join(dir, name);
      writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
      return path;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

// Ajv and ajv-formats are CommonJS; their class/function is the default export's `default`.
type AjvClass = typeof import('ajv').default;
const Ajv2020 = ((Ajv2020Module as unknown as { default?: AjvClass }).default ?? Ajv2020Module) as AjvClass;
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: InstanceType<AjvClass>,
) => void;

/** A validator of whole documents and of NDJSON lines for the schema in `path`. */
export function schemaValidator(path: string, adapt: (text: string) => string = (text) => text) {
  const schema = JSON.parse(adapt(readFileSync(path, 'utf8'))) as { $id: string };
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addSchema(schema);
  return {
    document: (doc: unknown) => {
      const validate = ajv.getSchema(schema.$id)!;
      assert.ok(validate(doc), JSON.stringify(validate.errors));
    },
    line: (line: string) => {
      const { type, ...record } = JSON.parse(line) as { type: string };
      const validate = ajv.getSchema(`${schema.$id}#/$defs/${type}`)!;
      assert.ok(validate(record), `${line}\n${JSON.stringify(validate.errors)}`);
    },
  };
}
