/**
 * What the Node adapters (Express, Koa, Fastify) share about Node's own request and response, so each
 * says it once:
 *
 * - `bySocket(socketOf)` is prepareRateLimit's Adapter for a framework that reaches the client's Node
 *   socket through `socketOf`: the client went away when that socket is destroyed (asked only after an
 *   async hook, decide.ts), and delay mode watches that socket's 'close' (delay.ts). A request without a
 *   socket (Fastify's injected requests) has a client that never went away, and nothing to watch.
 * - `setNodeHeader` is the HeaderSetter for a Node response: `setHeader`, or `appendHeader` for a field
 *   an earlier limiter on the same request already wrote (headers.ts).
 * - `sendLimited` sends a precomputed limited body (limited-bodies.ts) straight on a Node response: the
 *   status, the two entity fields and the bytes. Only for a framework that answers through Node's
 *   response itself (Express); Koa and Fastify answer through their own reply so that their hooks run.
 */
import type { ClientSocket } from '../decide/delay.js';
import type { LimitedBody } from './limited-bodies.js';
import type { Adapter } from '../prepare.js';

/** NodeHeaders is the little of Node's ServerResponse the header setter writes to. */
export interface NodeHeaders {
  setHeader(name: string, value: string | number): unknown;
  appendHeader(name: string, value: string): unknown;
}

/** bySocket builds the Adapter of a Node framework from the way it reaches the client's socket. */
export function bySocket<Req>(socketOf: (req: Req) => ClientSocket | null | undefined): Adapter<Req> {
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

/** sendLimited answers with a precomputed limited body: its status, Content-Type, Content-Length and bytes. */
export function sendLimited(res: NodeHeaders & { statusCode: number; end(bytes: Uint8Array): unknown }, body: LimitedBody): void {
  res.statusCode = body.status;
  res.setHeader('Content-Type', body.contentType);
  res.setHeader('Content-Length', body.bytes.length);
  res.end(body.bytes);
}
