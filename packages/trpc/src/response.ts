/**
 * Where a call's rate-limit fields go: the response the tRPC adapter put in the context, if any.
 * The Express and standalone adapters' `res` (Node's ServerResponse: setHeader), Fastify's `res` (a
 * reply: header), the fetch adapter's `resHeaders` (Headers, merged into the Response tRPC returns).
 * tRPC writes its own headers and status after the procedures ran and keeps these.
 *
 * One response may answer a batch of calls: each decision replaces the RateLimit fields (the latest
 * tells what is left; so does a second rateLimit on the same procedure), and `Retry-After` only
 * grows, so it holds the longest wait of the batch's denials. Without such a response (a context written without it, a server-side caller) nothing is
 * written: the error's data still carries the wait.
 */
/** Fields writes one field: `set` replaces, and Retry-After is kept at its largest. */
export type Fields = (name: string, value: string) => void;

interface NodeRes {
  setHeader(name: string, value: string): unknown;
  getHeader(name: string): unknown;
  readonly headersSent: boolean;
}
interface Reply {
  header(name: string, value: string): unknown;
  getHeader(name: string): unknown;
  readonly sent: boolean;
}

/** fieldsOf finds the response of a tRPC context; undefined when there is none (or it was sent). */
export function fieldsOf(ctx: unknown): Fields | undefined {
  if (typeof ctx !== 'object' || ctx === null) return undefined;
  const { res, resHeaders } = ctx as { res?: unknown; resHeaders?: unknown };
  if (typeof Headers === 'function' && resHeaders instanceof Headers) return (name, value) => keepLargest(name, value, resHeaders.get(name), (v) => resHeaders.set(name, v));
  if (typeof res !== 'object' || res === null) return undefined;
  if (typeof (res as Reply).header === 'function' && typeof (res as Reply).getHeader === 'function') {
    const reply = res as Reply;
    if (reply.sent) return undefined;
    return (name, value) => keepLargest(name, value, reply.getHeader(name), (v) => reply.header(name, v));
  }
  if (typeof (res as NodeRes).setHeader === 'function' && typeof (res as NodeRes).getHeader === 'function') {
    const node = res as NodeRes;
    if (node.headersSent) return undefined;
    return (name, value) => keepLargest(name, value, node.getHeader(name), (v) => node.setHeader(name, v));
  }
  return undefined;
}

function keepLargest(name: string, value: string, before: unknown, set: (value: string) => void): void {
  if (name === 'Retry-After' && before !== undefined && before !== null && Number(before) >= Number(value)) return;
  set(value);
}

/** toFields is the setter core's writeHeaders calls: every field goes to `fields` (see above). */
export const toFields = (fields: Fields, name: string, value: string): void => fields(name, value);
