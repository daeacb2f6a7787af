/** A worker for worker-pool.test.ts: answers each job's tag after its delay. */
import { serveJobs } from '../../src/lib/worker-pool.ts';

serveJobs(
  async (job: { ms: number; tag: string }) => {
    await new Promise((resolve) => setTimeout(resolve, job.ms));
    return { value: job.tag };
  },
  async () => {},
);
