/**
 * Puts a demo workspace straight into a database: the records go through a temporary NDJSON file
 * and the ordinary importer (so the demo obeys every import rule), then its summaries are built.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { type ImportCounts, importDataset } from '../dataset/import.ts';
import { generateSummaries } from '../services/summaries/generate.ts';
import type { Storage } from '../storage/database.ts';
import { writeDemoNdjson } from './generate.ts';
import { type DemoKey, type DemoOptions, buildWorkspace } from './workspace.ts';

export interface DemoImport {
  counts: ImportCounts;
  keys: DemoKey[];
  /** Summaries built for the imported days. */
  summaries: number;
}

export interface DemoImportProgress {
  stage: 'generating' | 'importing' | 'summarizing';
  records: number;
}

export async function importDemo(
  storage: Storage,
  options: DemoOptions,
  onProgress?: (progress: DemoImportProgress) => void,
): Promise<DemoImport> {
  const dir = await mkdtemp(join(tmpdir(), 'daybook-demo-'));
  try {
    const file = join(dir, 'demo.ndjson');
    const out = createWriteStream(file);
    await writeDemoNdjson(options, out, (records) => onProgress?.({ stage: 'generating', records }));
    out.end();
    await finished(out);
    const counts = await importDataset(storage, file, {
      now: () => options.now,
      onProgress: (records) => onProgress?.({ stage: 'importing', records }),
    });
    onProgress?.({ stage: 'summarizing', records: 0 });
    const summaries = await generateSummaries(storage, { now: options.now });
    return { counts, keys: buildWorkspace(options).keys, summaries: summaries.built };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
