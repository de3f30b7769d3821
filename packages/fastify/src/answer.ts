/**
 * What the onRequest hook does once a Decision exists: write the rate-limit headers, then either let
 * the request go on (`done()`) or answer it in place of the route handler.
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
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { RouteLimit } from './route-limit.js';

const setHeader = (reply: FastifyReply, name: string, value: string): void => {
  reply.header(name, value);
};

/** finish writes the headers for `decision` and passes the request on or answers it. */
export function finish(limit: RouteLimit, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, decision: Decision): void {
  request.rateLimit = decision;
  limit.prepared.writeHeaders(reply, setHeader, decision);
  if (!limit.prepared.blocks(decision)) done();
  else if (limit.handler === undefined) sendDefault(limit, reply, decision);
  else runHandler(limit, request, reply, done, decision);
}

function sendDefault(limit: RouteLimit, reply: FastifyReply, decision: Decision): void {
  const body = limit.prepared.body(decision);
  reply.code(body.status).header('content-type', body.contentType).send(body.bytes);
}

function runHandler(limit: RouteLimit, request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, decision: Decision): void {
  reply.code(limit.prepared.body(decision).status);
  let result: unknown;
  try {
    result = (limit.handler as NonNullable<RouteLimit['handler']>)(request, reply, decision);
  } catch (error) {
    failed(reply, done, error);
    return;
  }
  if (result === reply || result === undefined) return;
  if (isThenable(result))
    result.then(
      (value) => sendReturned(limit, reply, done, decision, value),
      (error: unknown) => failed(reply, done, error),
    );
  else sendReturned(limit, reply, done, decision, result);
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
function sendReturned(limit: RouteLimit, reply: FastifyReply, done: HookHandlerDoneFunction, decision: Decision, value: unknown): void {
  if (value === reply || reply.sent) return;
  try {
    if (value !== undefined) reply.send(value);
    else if (!reply.raw.headersSent) sendDefault(limit, reply, decision);
  } catch (error) {
    failed(reply, done, error);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}
