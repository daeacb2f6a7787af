/**
 * A read worker thread (read-workers.ts): builds report response bodies and search results on
 * its own database connection; a report's bytes are handed back without copying them.
 */
import { workerData } from 'node:worker_threads';
import { type JobResult, serveJobs } from '../lib/worker-pool.ts';
import { openStorage } from '../storage/database.ts';
import { buildReport } from './reports/report.ts';
import { EncodedReport } from './reports/activity.ts';
import { parseReportRequest } from './reports/request.ts';
import { searchHistory } from './search/search.ts';
import type { ReadAnswer, ReportJob, SearchJob, WorkerSetup } from './read-workers.ts';

const setup = workerData as WorkerSetup;
const storage = openStorage(setup.databaseUrl);
// A worker only serves requests: its statements are bounded like the server thread's.
storage.setStatementTimeout?.(setup.statementTimeoutMs);

/** The bytes of a body as ArrayBuffers of their own, which can be moved to another thread. */
function movable(buffers: Buffer[]): ArrayBuffer[] {
  return buffers.map((b) =>
    b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer
      ? b.buffer
      : (b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer),
  );
}

serveJobs(
  async (job: ReportJob | SearchJob): Promise<JobResult<ReadAnswer>> => {
    if (job.kind === 'search') return { value: await searchHistory(storage, job.userId, job.body, job.now) };
    // The same bytes the route's serializer writes for the inline report (routes/report.ts).
    const report = await buildReport(storage, job.caller, job.viewer, parseReportRequest(job.body, job.now));
    const body =
      report instanceof EncodedReport ? report.chunks : [Buffer.from(JSON.stringify({ success: true, ...report }))];
    const chunks = movable(body);
    return { value: chunks, transfer: chunks };
  },
  () => storage.close(),
);
