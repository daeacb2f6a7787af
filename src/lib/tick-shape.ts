/**
 * Keeps the shape (V8 map) of Node's `process.nextTick` objects alive for the life of the
 * process.
 *
 * `process.nextTick` builds each tick object from a literal with computed keys. V8's optimized
 * code for it (and for the loop that runs the ticks) refers to the object's map weakly; tick
 * objects live for microseconds, so a full garbage collection that finds none alive clears the
 * map and throws that code away ("embedded weak objects cleared" under --trace-deopt). Observed
 * in `daybook serve` under load: after that, `nextTick` was not optimized again and built every
 * tick object through V8's slow runtime path, several times per request, which cost the server
 * about 15 % of its throughput on the lightest requests in some starts and not in others
 * (docs/performance.md, "Issue 18 before/after"). One tick object held here holds the map.
 */
import { createHook } from 'node:async_hooks';

let kept: object | undefined;

/** Resolves once a tick object is held (call once, at start-up). */
export function keepTickObjectShape(): Promise<void> {
  return new Promise((resolve) => {
    const hook = createHook({
      init(_asyncId, type, _triggerAsyncId, resource) {
        if (type === 'TickObject' && kept === undefined) kept = resource;
      },
    }).enable();
    process.nextTick(() => {
      hook.disable();
      resolve();
    });
  });
}

/** The tick object held, if any. */
export function heldTickObject(): object | undefined {
  return kept;
}
