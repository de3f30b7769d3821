/**
 * watchLink: what the application's client says of its connection, told to core's Remote, so that an
 * outage that announces itself is not waited for. A refused connection is known to the client in
 * microseconds; without this, a call queued in the client's offline queue (the default of both
 * clients) would wait for the Remote's silence (timeoutMs, 3 × timeoutMs on a cold start).
 *
 * - ioredis (`Redis`, `Cluster`: a string `status`): 'close' and 'end' say the connection is gone (a
 *   refused connect emits 'close' at once, before its retry delay); 'ready' says it is back. A client
 *   already 'reconnecting', 'close' or 'end' when the store is made counts as gone.
 * - node-redis (a boolean `isReady`): a refused connect says so only through 'error' (its
 *   'reconnecting' comes after the retry delay), so 'error' is listened to, but only beside the
 *   application's own listener: node-redis crashes a process whose client's errors nobody hears, and a
 *   store must not hide that. 'end' says it is closed for good; 'ready' that it is back.
 * - Anything else (a test double, a proxy without events) says nothing: silence alone judges it.
 *
 * Listening never changes what the client does, and a slow server that says nothing of the kind is
 * still waited for (the Remote's silence rule).
 */
import type { Remote } from '@ratekeeper/core/store';

interface Emitter {
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  listenerCount(event: string): number;
}

const GONE_STATUSES = new Set(['reconnecting', 'close', 'end']);

/** watchLink tells `remote` when `client` says its connection is lost or found again. */
export function watchLink(client: unknown, remote: Remote): void {
  const c = client as (Partial<Emitter> & { status?: unknown; isReady?: unknown }) | null;
  if (typeof c !== 'object' || c === null || typeof c.on !== 'function' || typeof c.listenerCount !== 'function') return;
  const emitter = c as Emitter;
  const lost = (error?: unknown): void => remote.lost(error instanceof Error ? error : undefined);
  const found = (): void => remote.found();
  if (typeof c.status === 'string') {
    emitter.on('close', () => lost());
    emitter.on('end', () => lost());
    emitter.on('ready', found);
    if (GONE_STATUSES.has(c.status)) lost();
  } else if (typeof c.isReady === 'boolean') {
    emitter.on('end', () => lost());
    emitter.on('ready', found);
    // An error while the client stays ready (a reply it could not parse, a failed keep-alive PING) is no lost connection.
    hearErrorsBesideTheApplication(emitter, (error) => {
      if (c.isReady === false) lost(error);
    });
  }
}

/** hearErrorsBesideTheApplication listens to 'error' once the application does (never as the only listener). */
function hearErrorsBesideTheApplication(emitter: Emitter, lost: (error?: unknown) => void): void {
  let listening = false;
  const listen = (): void => {
    if (listening) return;
    listening = true;
    emitter.on('error', (error: unknown) => lost(error));
  };
  if (emitter.listenerCount('error') > 0) return listen();
  emitter.on('newListener', (event: unknown) => {
    if (event === 'error') queueMicrotask(listen);
  });
}
