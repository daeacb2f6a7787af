/**
 * The product keeps its own copies of the dataset contract (src/dataset/dataset.schema.json,
 * test/fixtures/example.json), and every other test uses those. Where the workspace also has the
 * contract beside the repository (../shared), these compare the copies with it; a user's clone
 * has no ../shared, and then there is nothing to compare.
 *
 * One extension of the contract: API keys may hold `destinations:write`, the scope of summary
 * delivery (docs/delivery.md), which the contract does not know yet; a key holding it must survive
 * an export and an import like any other. Nothing else differs.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { importDataset } from '../../src/dataset/import.ts';
import { schemaPath } from '../../src/dataset/schema.ts';
import { writeDemoJson } from '../../src/demo/generate.ts';
import { DEFAULT_NOW, EXAMPLE, createTestDatabase, forEachDialect } from '../helper.ts';
import { collectText, exportText, schemaValidator } from './dataset-files.ts';

const sharedDataset = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'dataset');
const skip = existsSync(sharedDataset) ? false : 'no ../shared beside the repository: nothing to compare with';

/** The contract's schema with the product's one extension. */
const extended = (text: string) => {
  const scopes = '"activity:write", "messages:read"]';
  assert.ok(text.includes(scopes), 'the contract lists the scopes as it did when the extension was made');
  return text.replace(scopes, '"activity:write", "destinations:write", "messages:read"]');
};
const sharedSchema = () => join(sharedDataset, 'dataset.schema.json');

test("the product's dataset schema is the shared contract's, with destinations:write among the scopes", {
  skip,
}, () => {
  assert.equal(readFileSync(schemaPath, 'utf8'), extended(readFileSync(sharedSchema(), 'utf8')));
});

test("the product's example dataset is the shared contract's", { skip }, () => {
  assert.equal(readFileSync(EXAMPLE, 'utf8'), readFileSync(join(sharedDataset, 'example.json'), 'utf8'));
});

test("a demo workspace validates against the shared contract's schema", { skip }, async () => {
  const text = await collectText((sink) => writeDemoJson({ users: 4, days: 14, seed: '7', now: DEFAULT_NOW }, sink));
  schemaValidator(sharedSchema(), extended).document(JSON.parse(text));
});

forEachDialect('export and the shared contract', (dialect) => {
  test("an export of the example validates against the shared contract's schema", { skip }, async () => {
    const db = await createTestDatabase(dialect);
    try {
      await importDataset(db.storage, EXAMPLE, { now: () => DEFAULT_NOW });
      const validator = schemaValidator(sharedSchema(), extended);
      validator.document(JSON.parse(await exportText(db.storage, 'json')));
      for (const line of (await exportText(db.storage, 'ndjson')).trimEnd().split('\n')) validator.line(line);
    } finally {
      await db.drop();
    }
  });
});
