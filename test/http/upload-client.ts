/**
 * A worker thread that POSTs an oversized body with Node's own http.request, `times` times in
 * a row, as a client in another process would: its writes and reads run beside the server's
 * thread, not between its turns. Posts back how each request ended.
 */
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

export interface UploadJob {
  port: number;
  key: string;
  size: number;
  times: number;
}

/** How one request ended: the answer's status and body, and the request's error, if any. */
export interface UploadOutcome {
  status?: number;
  body?: string;
  error?: string;
}

function upload(job: UploadJob, body: Buffer): Promise<UploadOutcome> {
  return new Promise((resolve) => {
    const outcome: UploadOutcome = {};
    let answered: Promise<void> = Promise.resolve();
    const request = http.request(
      {
        host: '127.0.0.1',
        port: job.port,
        method: 'POST',
        path: '/report',
        agent: false,
        headers: { 'x-api-key': job.key, 'content-type': 'application/json', 'content-length': body.length },
      },
      (response) => {
        answered = new Promise((done) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('close', () => {
            outcome.status = response.statusCode;
            outcome.body = Buffer.concat(chunks).toString('utf8');
            done();
          });
        });
      },
    );
    request.on('error', (err: NodeJS.ErrnoException) => {
      outcome.error ??= err.code ?? err.message;
    });
    request.on('close', () => void answered.then(() => resolve(outcome)));
    request.end(body);
  });
}

const job = workerData as UploadJob;
const body = Buffer.alloc(job.size, 0x20);
const outcomes: UploadOutcome[] = [];
for (let i = 0; i < job.times; i++) outcomes.push(await upload(job, body));
parentPort!.postMessage(outcomes);
