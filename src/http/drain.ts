/**
 * Reading on after an early error answer, so that a client still sending its body receives the
 * answer (docs/api.md, "Every request": a 413 reaches a client that is still sending).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** How long the rest of a refused body is read and discarded before the connection is closed. */
export const DRAIN_MS = 5_000;
/** How much of a refused body is read and discarded, at most, before the connection is closed. */
const DRAIN_BYTES = 16 * 1024 * 1024;

/** The one method of Node's socket that its HTTP server calls to close after a `Connection: close` answer. */
interface ClosingSocket {
  destroySoon?: () => void;
}

/**
 * An error answered before the request's body has all arrived (over 1 MiB: a 413, or the 404 or
 * 405 of such a request) closes the connection. Closed at once, the socket would meet the bytes
 * the client is still sending with a TCP reset, and a client busy writing (Node's http.request
 * among them) then reports EPIPE or ECONNRESET instead of the answer that already reached it.
 *
 * So, for this response only, closing is put off: once the answer is written the rest of the
 * body is read and discarded, and the socket is closed when the body ends, or after DRAIN_MS or
 * DRAIN_BYTES, whichever comes first, so a client that never stops sending holds nothing for
 * long. No half-close is sent meanwhile: a client still writing would take it for the end of
 * the connection (Node's sockets end their own side on it, and the next write of the body fails).
 */
export function drainBeforeClosing(request: IncomingMessage, response: ServerResponse): void {
  const socket = request.socket;
  if (request.complete || socket.destroyed) return;
  let discarded = 0;
  let closing = false;
  let timer: NodeJS.Timeout | undefined;
  const close = () => {
    clearTimeout(timer);
    socket.destroy();
  };
  // Read from now on, counted: a body nobody reads would stop the socket from reading at all.
  request.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (closing && discarded > DRAIN_BYTES) close();
  });
  const delayed = socket as unknown as ClosingSocket;
  // Node's server calls destroySoon() after writing a `Connection: close` answer; the socket's
  // own property takes precedence over its prototype's method, and is removed once used.
  delayed.destroySoon = () => {
    delete delayed.destroySoon;
    if (request.complete || discarded > DRAIN_BYTES) return socket.destroySoon();
    closing = true;
    timer = setTimeout(close, DRAIN_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    // Every byte sent has been read: closing now resets nothing.
    request.once('end', close);
  };
  // A keep-alive answer never calls destroySoon(); the next request on this socket must not drain.
  response.once('finish', () => {
    delete delayed.destroySoon;
  });
}
