/**
 * A node:test reporter that writes, as one JSON object, the seconds each test file's top-level
 * tests took: scripts/test-shards.ts balances the next run's shards with it.
 *
 * A suite made by `forEachDialect` is defined in test/helper.ts, so it is counted for the file of
 * the first test inside it.
 */
import { relative } from 'node:path';

interface TestEvent {
  type: string;
  data?: { nesting?: number; file?: string; details?: { duration_ms?: number } };
}

const HELPER = /test\/helper\.ts$/;

export default async function* fileTimings(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const seconds: Record<string, number> = {};
  let top: string | undefined;
  for await (const { type, data } of source) {
    if (data?.file === undefined || data.nesting === undefined) continue;
    const file = relative(process.cwd(), data.file);
    if (type === 'test:start' && data.nesting === 0) top = HELPER.test(file) ? undefined : file;
    else if (type === 'test:start' && top === undefined && !HELPER.test(file)) top = file;
    else if ((type === 'test:pass' || type === 'test:fail') && data.nesting === 0 && top !== undefined) {
      seconds[top] = (seconds[top] ?? 0) + (data.details?.duration_ms ?? 0) / 1000;
    }
  }
  yield `${JSON.stringify(seconds)}\n`;
}
