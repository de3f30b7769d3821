/**
 * The end of an admitted call's work, for its concurrency lease (and countOutcome / settle). Over HTTP
 * (controllers, GraphQL over HTTP, SSE and streams) the Node response is watched by core (work.ts:
 * the lease goes back when the response finished or failed, or, when the client left first, when the
 * handler answered), exactly as on the Express and Fastify adapters. A call without a Node response
 * (a gateway's message, a microservice's) is handed to RateLimitInterceptor, which the module
 * registers globally: it settles when the handler's observable completes, errors or is unsubscribed.
 * A call the interceptor never reaches (a later guard refused it) is settled as CLIENT_CLOSED after
 * `abandonedMs` at the latest (core's abandon), so no lease outlives its work for long.
 *
 * On Fastify the reply keeps its headers and hands them to Node's `writeHead` at once, so the raw
 * response never knows them (`getHeader('content-length')` is undefined after a real send): the raw
 * response of a watched call reads a header it lacks from its reply, so countOutcome and settle see
 * the Content-Length that was sent.
 */
import type { Decision } from '@ratekeeper/core';
import { type NodeResponse, type Settle, abandon } from '@ratekeeper/core/adapter';
import type { Invocation } from './invocation.js';
import type { NestLimit } from './limit.js';

/** The settles of each invocation (by its arguments array, which its guards and interceptors share) awaiting the interceptor. */
const pending = new WeakMap<object, Settle[]>();

/** follow hands an admitted call's work to its end (see above); first thing, before anything can fail. */
export function follow(limit: NestLimit, call: Invocation, decision: Decision): void {
  const { watch, claim, abandonedMs } = limit.prepared;
  if (call.raw !== undefined) {
    if (watch === undefined) return;
    if (call.target?.kind === 'fastify') readsReply(call.raw, call.target.reply);
    watch(call, call.raw, decision);
    return;
  }
  const settle = claim?.(call, decision);
  if (settle === undefined) return;
  const args = call.context.getArgs();
  let list = pending.get(args);
  if (list === undefined) pending.set(args, (list = []));
  list.push(abandon(settle, abandonedMs));
}

/** readsReply lets `raw` read the headers its Fastify reply holds (see above). */
function readsReply(raw: NodeResponse, reply: { getHeaders(): Record<string, unknown> }): void {
  const own = raw.getHeader;
  // Not reply.getHeader, which asks raw.getHeader in turn: getHeaders merges raw's without asking it.
  raw.getHeader = (name: string) => own.call(raw, name) ?? reply.getHeaders()[name.toLowerCase()];
}

/** takePending removes and returns the settles waiting on an invocation's arguments. */
export function takePending(args: object): Settle[] | undefined {
  const list = pending.get(args);
  if (list !== undefined) pending.delete(args);
  return list;
}
