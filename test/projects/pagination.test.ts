/**
 * `GET /projects` by pages (`limit`, `cursor`, `nextCursor`): walking every page gives the
 * unpaged list in order, for each sort, with and without archived projects and at any page
 * size; ties and null sort values are paged by id; projects created or changed between pages
 * neither repeat nor skip an unchanged project; a bad cursor or limit is a 400 naming it; and
 * without `limit` and `cursor` the answer is as it was before paging (no `nextCursor`).
 */
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import { encodeCursor } from '../../src/services/projects/cursor.ts';
import { DEFAULT_NOW, type TestApp, call, forEachDialect } from '../helper.ts';
import { PROJECT_KEYS as K, createProjectVia, createProjectsApp } from './world.ts';

type Listed = { id: string; createdAt: string | null; updatedAt: string | null; usedAt: string | null };
type ListBody = { success: true; projects: Listed[]; nextCursor?: string | null };

const SORTS = ['createdAt', 'updatedAt', 'usedAt'] as const;
const at = (day: number, hour = 8) => new Date(Date.UTC(2026, 9, day, hour)).toISOString();

/**
 * More of alice's projects, so that each order has ties and null values: q_a and q_b share a
 * creation time, as do q_c, q_d and q_e; q_f and q_g have no creation time (set below), q_h to
 * q_k were never updated and q_i to q_l never used; q_k is archived.
 */
const EXTRA = {
  version: 1,
  projects: [
    { id: 'q_b', name: 'Tie B', createdBy: 'u_alice', createdAt: at(10), updatedAt: at(12) },
    { id: 'q_a', name: 'Tie A', createdBy: 'u_alice', createdAt: at(10), updatedAt: at(12) },
    { id: 'q_e', name: 'Tie E', createdBy: 'u_alice', createdAt: at(11), updatedAt: at(13) },
    { id: 'q_c', name: 'Tie C', createdBy: 'u_alice', createdAt: at(11), updatedAt: at(14) },
    { id: 'q_d', name: 'Tie D', createdBy: 'u_alice', createdAt: at(11), updatedAt: at(14) },
    { id: 'q_f', name: 'No creation F', createdBy: 'u_alice', createdAt: at(1), updatedAt: at(2) },
    { id: 'q_g', name: 'No creation G', createdBy: 'u_alice', createdAt: at(1), updatedAt: at(3) },
    { id: 'q_h', name: 'Never updated H', createdBy: 'u_alice', createdAt: at(5) },
    { id: 'q_i', name: 'Never updated I', createdBy: 'u_alice', createdAt: at(5) },
    { id: 'q_j', name: 'Never updated J', createdBy: 'u_alice', createdAt: at(6) },
    { id: 'q_k', name: 'Archived K', createdBy: 'u_alice', createdAt: at(7), archived: true },
    { id: 'q_l', name: 'Never used L', createdBy: 'u_alice', createdAt: at(8), updatedAt: at(9) },
  ],
  activities: ['q_a', 'q_b', 'q_c', 'q_d', 'q_e', 'q_f', 'q_g', 'q_h'].map((projectId, i) => ({
    id: `a_page_${projectId}`,
    userId: 'u_alice',
    // q_a and q_b were last used at the same time.
    start: at(15 + Math.max(i, 1)),
    durationMinutes: 15,
    headline: `Paging ${projectId}`,
    projectId,
  })),
};

forEachDialect('GET /projects by pages', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createProjectsApp(dialect);
    const file = join(tmpdir(), `daybook-pages-${process.pid}-${dialect}.json`);
    await writeFile(file, JSON.stringify(EXTRA));
    try {
      await importDataset(t.storage, file, { now: () => DEFAULT_NOW });
    } finally {
      await rm(file, { force: true });
    }
    await t.storage.db.updateTable('projects').set({ created_at: null }).where('id', 'in', ['q_f', 'q_g']).execute();
  });
  after(() => t.close());

  const list = async (query: string): Promise<ListBody> => {
    const res = await call(t.app, 'GET', `/projects${query}`, { key: K.aliceAll });
    assert.equal(res.status, 200, res.body);
    return res.json as ListBody;
  };

  /** Every page of the list at `limit` (or the default page size), checking each page's shape. */
  async function walk(params: string, limit?: number, from?: string): Promise<{ projects: Listed[]; pages: number }> {
    const projects: Listed[] = [];
    let cursor: string | null | undefined = from;
    let pages = 0;
    do {
      const parts = [params, limit === undefined ? '' : `limit=${limit}`, cursor ? `cursor=${cursor}` : ''];
      const page = await list(`?${parts.filter(Boolean).join('&')}`);
      assert.ok('nextCursor' in page, 'a page carries nextCursor');
      assert.ok(page.projects.length <= (limit ?? 100));
      if (page.nextCursor !== null) assert.equal(page.projects.length, limit ?? 100, 'only the last page is short');
      projects.push(...page.projects);
      cursor = page.nextCursor;
      pages++;
      assert.ok(pages <= 100, 'the walk ends');
    } while (cursor);
    return { projects, pages };
  }

  test('the fixture has ties and null values in each order', async () => {
    const all = (await list('?includeArchived=true')).projects;
    const count = (field: keyof Listed, value: string | null) => all.filter((p) => p[field] === value).length;
    assert.equal(count('createdAt', at(11)), 3);
    assert.equal(count('createdAt', null), 2);
    assert.ok(count('updatedAt', null) >= 4);
    assert.ok(count('usedAt', null) >= 4);
    assert.equal(all.find((p) => p.id === 'q_a')?.usedAt, all.find((p) => p.id === 'q_b')?.usedAt);
  });

  test('walking every page gives the unpaged list in order, for each sort, archived or not, at any page size', async () => {
    for (const sort of SORTS)
      for (const includeArchived of [false, true]) {
        const params = `sort=${sort}&includeArchived=${includeArchived}`;
        const unpaged = (await list(`?${params}`)).projects;
        assert.ok(unpaged.length > 10);
        for (const limit of [1, 2, 7, unpaged.length, unpaged.length + 5, 1000]) {
          const { projects, pages } = await walk(params, limit);
          assert.deepEqual(projects, unpaged, `${params}&limit=${limit}`);
          assert.equal(pages, Math.max(1, Math.ceil(unpaged.length / limit)), `${params}&limit=${limit}`);
        }
      }
  });

  test('ties in the sort value are paged by id, null values come last', async () => {
    const byCreated = (await walk('sort=createdAt', 1)).projects.map((p) => p.id);
    const ties = byCreated.filter((id) => ['q_c', 'q_d', 'q_e'].includes(id));
    assert.deepEqual(ties, ['q_c', 'q_d', 'q_e']);
    assert.deepEqual(byCreated.slice(-2), ['q_f', 'q_g']);
    const byUsed = (await walk('sort=usedAt&includeArchived=true', 2)).projects;
    const firstNull = byUsed.findIndex((p) => p.usedAt === null);
    assert.ok(firstNull > 0);
    assert.ok(
      byUsed.slice(firstNull).every((p) => p.usedAt === null),
      'never-used projects last',
    );
    const neverUsed = byUsed.slice(firstNull).map((p) => p.id);
    assert.deepEqual(neverUsed, [...neverUsed].sort());
    const ab = byUsed.map((p) => p.id).filter((id) => id === 'q_a' || id === 'q_b');
    assert.deepEqual(ab, ['q_a', 'q_b']);
  });

  test('a cursor without limit gives a page of 100: here the whole list, and nextCursor null', async () => {
    const first = await list('?limit=3');
    const rest = await list(`?cursor=${first.nextCursor}`);
    const all = (await list('')).projects;
    assert.deepEqual([...first.projects, ...rest.projects], all);
    assert.equal(rest.nextCursor, null);
  });

  test('no limit and no cursor: every project, and the body has no nextCursor', async () => {
    for (const query of ['', '?sort=usedAt&includeArchived=true']) {
      const res = await call(t.app, 'GET', `/projects${query}`, { key: K.aliceAll });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.json), ['success', 'projects']);
      const walked = await walk(query.replace(/^\?/, ''), 1000);
      assert.deepEqual(res.json, { success: true, projects: walked.projects });
      assert.equal(walked.pages, 1);
    }
  });

  test('projects created or changed between pages make no unchanged project repeat or go missing', async () => {
    const before = (await list('?sort=createdAt')).projects.map((p) => p.id);
    const first = await list('?sort=createdAt&limit=4');
    // A new project sorts first (created now); another one is renamed (its updatedAt changes).
    const created = await createProjectVia(t, { name: 'Made between pages' });
    await call(t.app, 'POST', '/projects/q_c', { key: K.aliceAll, body: { description: 'changed between pages' } });
    const rest = await walk('sort=createdAt', 4, first.nextCursor as string);
    const seen = [...first.projects, ...rest.projects].map((p) => p.id);
    assert.deepEqual(seen, before, 'the project created after the first page is not on a later one');
    const after = (await list('?sort=createdAt')).projects.map((p) => p.id);
    assert.deepEqual(after, [created.id, ...before]);
  });

  test('a cursor with another sort or includeArchived is 400 naming cursor', async () => {
    const page = await list('?sort=createdAt&limit=2');
    for (const query of [
      `sort=updatedAt&cursor=${page.nextCursor}`,
      `includeArchived=true&limit=2&cursor=${page.nextCursor}`,
    ]) {
      const res = await call(t.app, 'GET', `/projects?${query}`, { key: K.aliceAll });
      assert.equal(res.status, 400, query);
      assert.equal(
        res.json.error,
        'cursor must come with the sort and includeArchived of the answer that gave it (sort=createdAt, includeArchived=false)',
      );
      assert.equal(res.json.message, res.json.error);
    }
  });

  test('a malformed or tampered cursor is 400 naming cursor', async () => {
    const cursor = (await list('?sort=usedAt&limit=2')).nextCursor as string;
    const [payload, check] = cursor.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as unknown[];
    const edited = Buffer.from(JSON.stringify([...decoded.slice(0, 4), 'p_other'])).toString('base64url');
    const flipped = `${payload.slice(0, -1)}${payload.at(-1) === 'A' ? 'B' : 'A'}.${check}`;
    const bad = [
      'abc',
      'a.b',
      '!!!',
      `${payload}.`,
      `${payload}.${check}.x`,
      `${edited}.${check}`,
      flipped,
      cursor.slice(0, -2),
      'x'.repeat(1001),
    ];
    for (const value of bad) {
      const res = await call(t.app, 'GET', `/projects?sort=usedAt&limit=2&cursor=${encodeURIComponent(value)}`, {
        key: K.aliceAll,
      });
      assert.equal(res.status, 400, value);
      assert.equal(res.json.error, 'cursor must be the nextCursor of a previous answer of GET /projects', value);
    }
    // The checksum is no secret: a cursor made elsewhere passes it, and must still hold a position.
    const forged = encodeCursor({ sort: 'usedAt', includeArchived: false, isNull: false, value: 1, id: 'p_\u0000' });
    const res = await call(t.app, 'GET', `/projects?sort=usedAt&cursor=${forged}`, { key: K.aliceAll });
    assert.deepEqual(
      [res.status, res.json.error],
      [400, 'cursor must be the nextCursor of a previous answer of GET /projects'],
    );
    const elsewhere = encodeCursor({ sort: 'usedAt', includeArchived: false, isNull: true, value: null, id: 'q_i' });
    const afterI = await list(`?sort=usedAt&cursor=${elsewhere}`);
    const all = (await list('?sort=usedAt')).projects.map((p) => p.id);
    assert.deepEqual(
      afterI.projects.map((p) => p.id),
      all.slice(all.indexOf('q_i') + 1),
    );
    const empty = await call(t.app, 'GET', '/projects?cursor=', { key: K.aliceAll });
    assert.equal(empty.status, 400);
    assert.match(empty.json.error, /^cursor /);
  });

  test('limit outside 1–1000 or not an integer is 400 naming limit', async () => {
    for (const value of ['0', '1001', 'abc', '1.5', '-1', '']) {
      const res = await call(t.app, 'GET', `/projects?limit=${value}`, { key: K.aliceAll });
      assert.equal(res.status, 400, value);
      assert.equal(res.json.error, 'limit must be an integer between 1 and 1000', value);
    }
  });
});
