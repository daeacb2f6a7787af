/**
 * The demo dataset as a stream of records in the dataset format, and its two encodings. Records
 * come out in an order where each refers only to earlier ones (as NDJSON requires), day by day,
 * so 100 users × 365 days are written in constant memory.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { ARRAY_OF, RECORD_TYPES, type RecordType } from '../dataset/schema.ts';
import { addDays } from '../lib/time.ts';
import { buildDay } from './days.ts';
import { type DemoOptions, type DemoWorkspace, buildWorkspace } from './workspace.ts';

export interface DemoRecord {
  type: RecordType;
  record: object;
}

export type DemoCounts = Record<RecordType, number>;

const DAY_TYPES: readonly RecordType[] = ['task', 'activity', 'dayComment'];

/** The records of the fixed part, by type. */
function workspaceRecords(workspace: DemoWorkspace): Partial<Record<RecordType, object[]>> {
  return {
    user: workspace.users,
    team: workspace.teams,
    portfolio: workspace.portfolios,
    category: workspace.categories,
    project: workspace.projects,
    apiKey: workspace.apiKeys,
  };
}

/** Tasks, activities and day comments, day after day, each person's day in turn. */
function* dayRecords(options: DemoOptions, workspace: DemoWorkspace): Generator<DemoRecord> {
  for (let day = 0; day < options.days; day++) {
    for (const person of workspace.people) {
      const { tasks, activities, comment } = buildDay(person, addDays(person.firstDay, day), options.seed);
      for (const record of tasks) yield { type: 'task', record };
      for (const record of activities) yield { type: 'activity', record };
      if (comment) yield { type: 'dayComment', record: comment };
    }
  }
}

function* recordsOfType(items: Iterable<DemoRecord>, type: RecordType): Generator<object> {
  for (const item of items) if (item.type === type) yield item.record;
}

/** Every record of the demo dataset, generated lazily. */
export function* demoRecords(
  options: DemoOptions,
  workspace: DemoWorkspace = buildWorkspace(options),
): Generator<DemoRecord> {
  const fixed = workspaceRecords(workspace);
  for (const type of ['user', 'team', 'portfolio', 'category', 'project', 'apiKey'] as const) {
    for (const record of fixed[type] ?? []) yield { type, record };
  }
  yield* dayRecords(options, workspace);
}

/** Collects small writes into larger chunks and waits when the destination is full. */
class ChunkedWriter {
  private buffer: string[] = [];
  private size = 0;
  private readonly out: Writable;

  constructor(out: Writable) {
    this.out = out;
  }

  /** Settles at once (no promise) unless a chunk was due: an await per record cost a tenth. */
  write(text: string): Promise<void> | undefined {
    this.buffer.push(text);
    this.size += text.length;
    return this.size >= 1 << 16 ? this.flush() : undefined;
  }

  async flush(): Promise<void> {
    if (this.size === 0) return;
    const chunk = this.buffer.join('');
    this.buffer = [];
    this.size = 0;
    if (!this.out.write(chunk)) await once(this.out, 'drain');
  }
}

function emptyCounts(): DemoCounts {
  return Object.fromEntries(RECORD_TYPES.map((t) => [t, 0])) as DemoCounts;
}

/** Writes the dataset as NDJSON, one `{"type": …}` record a line. */
export async function writeDemoNdjson(
  options: DemoOptions,
  out: Writable,
  onRecord?: (n: number) => void,
): Promise<DemoCounts> {
  const counts = emptyCounts();
  const writer = new ChunkedWriter(out);
  let n = 0;
  for (const { type, record } of demoRecords(options)) {
    counts[type]++;
    // `{"type":…,` and the record's own fields: what JSON.stringify({ type, ...record }) writes,
    // without a copy of every record (records always have fields).
    const flushed = writer.write(`{"type":${JSON.stringify(type)},${JSON.stringify(record).slice(1)}\n`);
    if (flushed) await flushed;
    if (++n % 10_000 === 0) onRecord?.(n);
  }
  await writer.flush();
  return counts;
}

/**
 * Writes the dataset as one JSON document. The document groups records by type, so the days
 * are generated once per array; being deterministic, each pass yields the same records.
 */
export async function writeDemoJson(options: DemoOptions, out: Writable): Promise<DemoCounts> {
  const counts = emptyCounts();
  const writer = new ChunkedWriter(out);
  const workspace = buildWorkspace(options);
  await writer.write('{\n"version": 1');
  const fixed = workspaceRecords(workspace);
  for (const type of RECORD_TYPES) {
    await writer.write(`,\n"${ARRAY_OF[type]}": [`);
    const records = DAY_TYPES.includes(type)
      ? recordsOfType(dayRecords(options, workspace), type)
      : (fixed[type] ?? []);
    let first = true;
    for (const record of records) {
      await writer.write(`${first ? '\n' : ',\n'}${JSON.stringify(record)}`);
      first = false;
      counts[type]++;
    }
    await writer.write(first ? ']' : '\n]');
  }
  await writer.write('\n}\n');
  await writer.flush();
  return counts;
}
