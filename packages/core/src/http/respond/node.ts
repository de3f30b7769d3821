/**
 * What the Node adapters (Express, Koa, Fastify) share about Node's own request and response, so each
 * says it once:
 *
 * - `bySocket(socketOf)` is prepareRateLimit's RateLimitAdapter for a framework that reaches the client's Node
 *   socket through `socketOf`: the client went away when that socket is destroyed (asked only after an
 *   async hook, decide.ts), and delay mode watches that socket's 'close' (delay.ts). A request without a
 *   socket (Fastify's injected requests) has a client that never went away, and nothing to watch.
 * - `setNodeHeader` is the HeaderSetter for a Node response: `setHeader`, or `appendHeader` for a field
 *   an earlier limiter on the same request may have written (headers.ts). `replaceNodeHeader` is the
 *   one for the first limiter on a request, which nothing wrote before: `setHeader` alone (Node's
 *   `appendHeader` validates a new field twice, once itself and once in the `setHeader` it calls).
 * - `sendLimited` sends a precomputed limited body (limited-bodies.ts) straight on a Node response: the
 *   status, its Content-Type and its text, whose Content-Length Node adds as it writes the head and the
 *   text in one string (a Buffer would go as a second chunk). Only for a framework that answers through
 *   Node's response itself (Express); Koa and Fastify answer through their own reply so that their hooks
 *   run.
 * What every Node adapter does once it has a Decision (headers, then pass on or answer) is
 * `answerNode`, beside this file (node-answer.ts).
 */
import type { ClientSocket } from '../decide/delay.js';
import type { LimitedBody } from './limited-bodies.js';
import type { RateLimitAdapter } from '../prepare.js';

/** NodeHeaders is the little of Node's ServerResponse the header setter writes to. */
export interface NodeHeaders {
  setHeader(name: string, value: string | number): unknown;
  appendHeader(name: string, value: string): unknown;
}

/** bySocket builds the RateLimitAdapter of a Node framework from the way it reaches the client's socket. */
export function bySocket<Req>(socketOf: (req: Req) => ClientSocket | null | undefined): RateLimitAdapter<Req> {
  return {
    gone: (req) => socketOf(req)?.destroyed === true,
    socket: (req) => socketOf(req) ?? undefined,
  };
}

/** setNodeHeader writes one rate-limit field on a Node response (appending to an earlier one's). */
export function setNodeHeader(res: NodeHeaders, name: string, value: string, append: boolean): void {
  if (append) res.appendHeader(name, value);
  else res.setHeader(name, value);
}

/** replaceNodeHeader writes one rate-limit field on a Node response no earlier limiter wrote to. */
export function replaceNodeHeader(res: NodeHeaders, name: string, value: string): void {
  res.setHeader(name, value);
}

/** sendLimited answers with a precomputed limited body: its status, Content-Type and text (Node adds Content-Length). */
export function sendLimited(res: NodeHeaders & { statusCode: number; end(text: string): unknown }, body: LimitedBody): void {
  res.statusCode = body.status;
  res.setHeader('Content-Type', body.contentType);
  res.end(body.text);
}
