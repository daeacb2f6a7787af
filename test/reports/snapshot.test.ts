/**
 * A report's reads share one snapshot (storage/reports.ts readSnapshot): a write committed by
 * another connection (another process, an import) between two of them shows in neither, so a
 * report never mixes minutes of after with names of before.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import { type Dialect, migrate, openStorage, type Storage } from '../../src/storage/database.ts';
import { readSnapshot } from '../../src/storage/reports.ts';
import { DEFAULT_NOW, DIALECTS, EXAMPLE, createPostgresDatabase } from '../helper.ts';

async function twoConnections(dialect: Dialect): Promise<{ reader: Storage; writer: Storage; drop(): Promise<void> }> {
  if (dialect === 'postgres') {
    const database = await createPostgresDatabase();
    const reader = openStorage(database.url);
    const writer = openStorage(database.url);
    return {
      reader,
      writer,
      drop: async () => {
        await reader.close();
        await writer.close();
        await database.drop();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'daybook-snapshot-'));
  const url = `sqlite:${join(dir, 'snapshot.db')}`;
  const reader = openStorage(url);
  const writer = openStorage(url);
  return {
    reader,
    writer,
    drop: async () => {
      await reader.close();
      await writer.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

for (const dialect of DIALECTS) {
  test(`[${dialect}] reads in one snapshot do not see a write committed between them`, async () => {
    const { reader, writer, drop } = await twoConnections(dialect);
    try {
      await migrate(reader);
      await importDataset(reader, EXAMPLE, { now: () => DEFAULT_NOW });
      const name = (db: Storage['db']) =>
        db.selectFrom('projects').select('name').where('id', '=', 'p_api').executeTakeFirstOrThrow();
      const before = await name(reader.db);
      const seen = await readSnapshot(reader, async (db) => {
        const first = await name(db);
        await writer.db.updateTable('projects').set({ name: 'Renamed meanwhile' }).where('id', '=', 'p_api').execute();
        const second = await name(db);
        return [first.name, second.name];
      });
      assert.deepEqual(seen, [before.name, before.name]);
      assert.equal((await name(reader.db)).name, 'Renamed meanwhile', 'and the next read sees it');
    } finally {
      await drop();
    }
  });
}
