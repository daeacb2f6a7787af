/** Test support for dataset files: exports as text, JSON ↔ NDJSON, and throwaway files. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type ExportFormat, exportDataset } from '../../src/dataset/export.ts';
import { ARRAY_OF, RECORD_TYPES } from '../../src/dataset/schema.ts';
import type { Storage } from '../../src/storage/database.ts';
import { EXAMPLE } from '../helper.ts';

export type DatasetDocument = { version: 1 } & Record<string, unknown[] | number>;

/** The whole database exported in `format`, as one string. */
export async function exportText(storage: Storage, format: ExportFormat = 'json'): Promise<string> {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  await exportDataset(storage, sink, format);
  return chunks.join('');
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
