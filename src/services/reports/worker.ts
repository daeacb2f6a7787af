/**
 * A report worker thread (report-workers.ts): builds report response bodies on its own database
 * connection and hands back their bytes without copying them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ApiError } from '../../errors.ts';
import { openStorage } from '../../storage/database.ts';
import { buildReport } from './report.ts';
import { EncodedReport } from './activity.ts';
import { parseReportRequest } from './request.ts';
import type { ReportJob, WorkerAnswer, WorkerSetup } from './workers.ts';

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

/** The same bytes the route's serializer writes for the inline report (routes/report.ts). */
async function answer(id: number, job: ReportJob): Promise<{ answer: WorkerAnswer; transfer: ArrayBuffer[] }> {
  try {
    const report = await buildReport(storage, job.caller, job.viewer, parseReportRequest(job.body, job.now));
    const body =
      report instanceof EncodedReport ? report.chunks : [Buffer.from(JSON.stringify({ success: true, ...report }))];
    const chunks = movable(body);
    return { answer: { id, chunks }, transfer: chunks };
  } catch (err) {
    if (err instanceof ApiError)
      return { answer: { id, error: { status: err.status, message: err.message, extra: err.extra } }, transfer: [] };
    // The code travels with the message, so that the server's thread answers a database that
    // went away 503 like its own requests (http/app.ts).
    const { code } = err as { code?: unknown };
    return {
      answer: { id, failure: (err as Error).message, ...(typeof code === 'string' ? { code } : {}) },
      transfer: [],
    };
  }
}

parentPort!.on('message', (message: { id: number; job: ReportJob } | { close: true }) => {
  if ('close' in message) {
    void storage.close().finally(() => parentPort!.close());
    return;
  }
  void answer(message.id, message.job).then(({ answer: reply, transfer }) => parentPort!.postMessage(reply, transfer));
});
