/**
 * Writing a decision's rate-limit fields where the invocation's response is (invocation.ts): on an
 * Express (Node) response as core's Node setters do, on a Fastify reply as @ratekeeper/fastify does
 * (the reply keeps one value per field, so a later limit's List items join the earlier ones). The
 * first limit decided in an invocation replaces the fields (a GraphQL response whose earlier
 * resolvers wrote them shows the latest decision), a later one adds its items. The guard writes
 * nothing on a response already sent (`sent`). `record` collects the same fields by name, for the exception.
 *
 * A denial's `Content-Type: application/problem+json`: on a Fastify reply it is set with the fields
 * (Nest's Fastify adapter keeps it). On an Express response it is set as Nest's default filter sends
 * the denial's very body through `res.json`, not before: Nest 11's Express adapter replaces a type set
 * earlier that does not start with `application/json`, and logs a warning for each such reply; Nest 12
 * keeps any `+json` type. A body of the user's own filter keeps whatever type that filter gives it.
 */
import type { Decision } from '@ratekeeper/core';
import type { ProblemBody } from './exception.js';
import { PROBLEM_CONTENT_TYPE, type PreparedRateLimit, replaceNodeHeader, setNodeHeader } from '@ratekeeper/core/adapter';
import type { HeaderTarget, Invocation } from './invocation.js';

type Reply = Extract<HeaderTarget, { kind: 'fastify' }>['reply'];

const replyHeader = (reply: Reply, name: string, value: string): void => void reply.header(name, value);
const joinHeader = (reply: Reply, name: string, value: string, append: boolean): void => {
  const before = append ? reply.getHeader(name) : undefined;
  reply.header(name, typeof before === 'string' && before !== '' ? `${before}, ${value}` : value);
};
const onRecord = (fields: Record<string, string>, name: string, value: string, append: boolean): void => {
  const prev = fields[name];
  fields[name] = append && prev !== undefined ? `${prev}, ${value}` : value;
};

/** sent tells whether the response was already answered by someone else. */
export function sent(target: HeaderTarget): boolean {
  return target.kind === 'node' ? target.res.headersSent : target.reply.sent || target.reply.raw.headersSent;
}

type NodeResponse = Extract<HeaderTarget, { kind: 'node' }>['res'];

/** problemOnSend makes `res` answer `problem` (that object, sent by Nest's default filter) as problem+json (see above). */
function problemOnSend(res: NodeResponse, problem: ProblemBody): void {
  const express = res as NodeResponse & { json?: (body: unknown) => unknown };
  const json = express.json;
  if (typeof json !== 'function') return void res.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
  express.json = function (this: NodeResponse, body: unknown) {
    if (body === problem) this.setHeader('Content-Type', PROBLEM_CONTENT_TYPE);
    return json.call(this, body);
  };
}

/** writeFields writes `decision`'s fields on the invocation's response, if it has one not yet sent; `problem` is a denial's body. */
export function writeFields(prepared: PreparedRateLimit<Invocation>, call: Invocation, decision: Decision, first: boolean, problem: ProblemBody | undefined): void {
  const target = call.target;
  if (target === undefined) return;
  if (target.kind === 'node') {
    prepared.writeHeaders(target.res, first ? replaceNodeHeader : setNodeHeader, decision);
    if (problem !== undefined) problemOnSend(target.res, problem);
    return;
  }
  prepared.writeHeaders(target.reply, first ? replyHeader : joinHeader, decision);
  if (problem !== undefined) target.reply.header('Content-Type', PROBLEM_CONTENT_TYPE);
}

/** fieldsOf is `decision`'s fields by name. */
export function fieldsOf(prepared: PreparedRateLimit<Invocation>, decision: Decision): Record<string, string> {
  const fields: Record<string, string> = {};
  prepared.writeHeaders(fields, onRecord, decision);
  return fields;
}
