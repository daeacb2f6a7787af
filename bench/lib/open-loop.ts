/**
 * Open-loop load: requests arrive at a given rate whatever the server's answers, as independent
 * clients' would, and each is timed from when it was due, so a server (or a load generator)
 * that falls behind shows in the latencies instead of slowing the arrivals.
 *
 * Why not autocannon's `overallRate` (bench/harness.ts `load`): it gives each connection
 * rate / connections requests per second and lets every connection send them back to back at
 * the start of each second, so 20 requests a second on 10 connections arrive as a burst of 20
 * once a second; and it corrects for coordinated omission with an expected interval of
 * ceil(1 / rate) *milliseconds* (1 ms), so a request answered in 80 ms is counted 80 times (80,
 * 79, … 1 ms). Both made a tail that no client sees (docs/performance.md, "Heartbeats").
 */
import { Agent, request } from 'node:http';
import { createRandom } from '../../src/demo/random.ts';
import type { LoadRequest } from './requests.ts';

export interface OpenLoopResult {
  requests: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
}

/**
 * Sends `pick()` requests to `url` for `seconds`, `rate` a second on average with exponential
 * gaps (a Poisson process: the sum of many clients that each send now and then), the gaps drawn
 * from `seed`. Latencies in ms, from each request's due time to the end of its answer.
 */
export async function openLoop(
  url: string,
  options: { rate: number; seconds: number; pick: () => LoadRequest; seed?: string },
): Promise<OpenLoopResult> {
  const random = createRandom(options.seed ?? 'open-loop');
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const target = new URL(url);
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const send = (req: LoadRequest, due: number) =>
    new Promise<void>((done) => {
      const outgoing = request(
        {
          agent,
          host: target.hostname,
          port: target.port,
          method: req.method ?? 'GET',
          path: req.path,
          headers: { 'content-type': 'application/json', ...req.headers },
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - due);
            if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) non2xx++;
            done();
          });
        },
      );
      outgoing.on('error', () => {
        errors++;
        done();
      });
      outgoing.end(req.body);
    });

  const started = performance.now();
  const end = started + options.seconds * 1000;
  const pending: Promise<void>[] = [];
  for (let due = started; ; ) {
    due += (-Math.log(1 - random.next()) / options.rate) * 1000;
    if (due >= end) break;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(send(options.pick(), due));
  }
  await Promise.all(pending);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0);
  return {
    requests: latencies.length,
    p50: at(0.5),
    p99: at(0.99),
    max: Math.round(latencies[latencies.length - 1] ?? 0),
    non2xx,
    errors,
  };
}
