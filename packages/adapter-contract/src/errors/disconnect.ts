/**
 * The two ways an adapter on Node can get a disconnect wrong, as mutations the adapters' mutants apply
 * to the raw response before the real middleware sees it (each listener goes first, with
 * prependListener, so core's watch reads the response as mutated):
 * - endsAtDisconnect: the response reads as answered (headersSent) at the moment its client leaves,
 *   so the request's work is taken as over then: its lease goes back while the handler still works,
 *   and its outcome is what the response said at that moment (Node's default 200, Koa's 404). This is
 *   what every Node adapter did before a limit covered the work it admits.
 * - statusAtDisconnect: the work's end is right, but the status is pinned to the one the response had
 *   when its client left, so the handler's real answer (a 401) is never seen.
 */
import type { ServerResponse } from 'node:http';

/** endsAtDisconnect: from its client's disconnect, `res` reads as answered until the listeners of that 'close' have run. */
export function endsAtDisconnect(res: ServerResponse): void {
  res.prependListener('close', () => {
    if (res.headersSent) return;
    Object.defineProperty(res, 'headersSent', { value: true, configurable: true });
    queueMicrotask(() => delete (res as { headersSent?: boolean }).headersSent);
  });
}

/** statusAtDisconnect: from its client's disconnect, `res.statusCode` keeps the value it had then. */
export function statusAtDisconnect(res: ServerResponse): void {
  res.prependListener('close', () => {
    if (res.headersSent) return;
    const status = res.statusCode;
    Object.defineProperty(res, 'statusCode', { get: () => status, set: () => {}, configurable: true });
  });
}
