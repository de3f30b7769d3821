/**
 * signalSocket is the client connection core's delay mode watches (a ClientSocket), made from a
 * Request's `signal`: the signal aborted is the socket destroyed, its 'abort' event is the 'close'.
 * A runtime that aborts the signal when the client disconnects (Node through @hono/node-server, Bun,
 * Deno, Next.js) thereby releases a held request's wait the moment its client goes; one that never
 * aborts it lets the wait run to its bound (the booking then stays, as for a client still there).
 * A request without a signal is not watched (undefined).
 */
import type { ClientSocket } from '@ratekeeper/core/adapter';

export function signalSocket(signal: AbortSignal | null | undefined): ClientSocket | undefined {
  if (signal === undefined || signal === null) return undefined;
  return {
    get destroyed() {
      return signal.aborted;
    },
    once: (_event, listener) => signal.addEventListener('abort', listener, { once: true }),
    off: (_event, listener) => signal.removeEventListener('abort', listener),
  };
}
