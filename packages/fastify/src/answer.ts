/**
 * fastifyAnswer is a route limit's part in core's answerNode, which the onRequest hook calls once a
 * Decision exists (the headers, then `done()` or an answer in place of the route handler). In Fastify's
 * terms: a reply already sent, or whose raw head went out, is left alone; the decision is left on
 * `request.rateLimit`; the headers go on the reply, not the raw response, so Fastify's hooks see them.
 *
 * The default answer is the precomputed problem+json bytes of the limiter (LimitedBodies): no object,
 * no JSON.stringify, no error and no stack trace on the limited path. A custom handler runs with the
 * default status already set and follows Fastify's route-handler contract exactly, so that what users
 * know of one holds for the other:
 * - a synchronous handler answers through `reply`, or returns a payload to send; returning undefined
 *   means "answered" (an `onSend` hook may still be finishing that answer asynchronously, so sending
 *   anything more would be a second response);
 * - an asynchronous handler resolves to a payload to send, or to the reply; resolving to undefined
 *   without having answered sends the default body, with the very test Fastify applies to an async
 *   route handler that resolves to undefined.
 * A throw or a rejection goes to `done(error)`, so Fastify's error handler answers it, with the status
 * reset to 500 first: Fastify keeps a preset status of 400 or more for an error that names none, and
 * the preset 429 would dress a broken handler up as a rate limit. `done` is never called for an
 * answered request, so the lifecycle stops before the body is parsed.
 */
import type { Decision } from '@ratekeeper/core';
import type { LimitedBody, NodeAnswer, PreparedRateLimit } from '@ratekeeper/core/adapter';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { RateLimitHandler } from './options.js';

/** FastifyAnswer is a route limit's steps of core's answerNode, built once per RouteLimit. */
export type FastifyAnswer = NodeAnswer<FastifyRequest, FastifyReply, HookHandlerDoneFunction, void>;

const setHeader = (reply: FastifyReply, name: string, value: string): void => {
  reply.header(name, value);
};

/**
 * joinHeader is the setter once an earlier limiter (another registration) decided this request: Fastify
 * keeps one value per field, so a List field's items join the earlier ones with ", ", which is the
 * same List as a second field line (RFC 9651 §3.1); the other fields are replaced, as on every adapter.
 */
const joinHeader = (reply: FastifyReply, name: string, value: string, append: boolean): void => {
  const before = append ? reply.getHeader(name) : undefined;
  reply.header(name, typeof before === 'string' && before !== '' ? `${before}, ${value}` : value);
};

/** fastifyAnswer builds a route limit's FastifyAnswer from its prepared options and its handler. */
export function fastifyAnswer(prepared: PreparedRateLimit<FastifyRequest>, handler: RateLimitHandler | undefined): FastifyAnswer {
  return {
    // Someone else already answered (an earlier hook writing on the raw response): touch nothing.
    answered: (reply) => reply.sent || reply.raw.headersSent,
    holder: (request) => request,
    first: setHeader,
    later: joinHeader,
    pass: (_request, _reply, done) => done(),
    send: (_request, reply, body) => sendBody(reply, body),
    handle: handler === undefined ? undefined : (request, reply, done, decision, status) => runHandler(prepared, handler, request, reply, done, decision, status),
  };
}

function sendBody(reply: FastifyReply, body: LimitedBody): void {
  reply.code(body.status).header('content-type', body.contentType).send(body.bytes);
}

function runHandler(
  prepared: PreparedRateLimit<FastifyRequest>,
  handler: RateLimitHandler,
  request: FastifyRequest,
  reply: FastifyReply,
  done: HookHandlerDoneFunction,
  decision: Decision,
  status: number,
): void {
  reply.code(status);
  let result: unknown;
  try {
    result = handler(request, reply, decision);
  } catch (error) {
    failed(reply, done, error);
    return;
  }
  if (result === reply || result === undefined) return;
  if (isThenable(result))
    result.then(
      (value) => sendReturned(prepared, reply, done, decision, value),
      (error: unknown) => failed(reply, done, error),
    );
  else sendReturned(prepared, reply, done, decision, result);
}

/** failed hands a handler's error to Fastify's error handler, as a 500 unless the error names a status. */
function failed(reply: FastifyReply, done: HookHandlerDoneFunction, error: unknown): void {
  if (!reply.sent) reply.code(500);
  done(error as Error);
}

/**
 * sendReturned sends what the handler returned; for an async handler that resolved to undefined without
 * answering, the default body.
 */
function sendReturned(prepared: PreparedRateLimit<FastifyRequest>, reply: FastifyReply, done: HookHandlerDoneFunction, decision: Decision, value: unknown): void {
  if (value === reply || reply.sent) return;
  try {
    if (value !== undefined) reply.send(value);
    else if (!reply.raw.headersSent) sendBody(reply, prepared.body(decision));
  } catch (error) {
    failed(reply, done, error);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}
