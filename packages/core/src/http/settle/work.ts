/**
 * When an admitted request's work is over: the moment its lease goes back and its outcome is reported
 * (settle.ts). A limit covers the work it admits (DESIGN.md), and a client that disconnects does not
 * stop the handler it started: on Node, Express, Fastify and Koa let it run to its end. So the end is
 * the handler's, never the client's.
 *
 * On Node (`watch`), Node's response emits 'close' exactly once: after 'finish' when it completed,
 * alone when the connection closed first. At that 'close':
 * - the response finished, or its connection broke after its status was sent (mid-body, a stream,
 *   server-sent events: the response failed, and its handler has nothing left to send): over now,
 *   reported as it stands (`aborted` when it did not finish);
 * - the client left before any status was sent, while the handler still works: the request is
 *   abandoned. Its work is over when the handler answers (its first `res.write` or `res.end`, which
 *   Express, Fastify and their error handlers all reach; both are patched on that one response, only
 *   then), when the adapter knows the handler ended (`end()`: Koa, once `next()` settled), or at the
 *   latest `abandonedMs` after the client left, for a handler that never answers a client it knows is
 *   gone. Reported as the handler answered (`aborted: true`), or as CLIENT_CLOSED (499) without an
 *   answer.
 * A response already closed when it is handed over (the client left while a remote store decided)
 * is abandoned at once: its handler is still to run.
 *
 * `abandon` is the same bound for adapters that see the client leave some other way (fetch and Hono:
 * the Request's signal) and the end as the Response they are handed.
 *
 * Cost: nothing unless the prepared options settle anything (countOutcome, settle, a limiter with release); then,
 * per admitted request, one small object and one 'close' listener; an abandoned request adds two
 * method patches on its own response and one unref'd timer.
 */
import type { Decision } from '../../decision.js';
import { CLIENT_CLOSED, type Claim, type Finished, type Settle } from './settle.js';

/** DEFAULT_ABANDONED_MS bounds the wait for a handler whose client left, when `abandonedMs` is not given. */
export const DEFAULT_ABANDONED_MS = 60_000;

/** NodeResponse is the little of Node's ServerResponse the watch reads, and patches once abandoned. */
export interface NodeResponse {
  once(event: 'close', listener: () => void): unknown;
  /** True once the response has emitted 'close' (Node ≥ 18). */
  readonly closed?: boolean;
  readonly statusCode: number;
  readonly headersSent: boolean;
  readonly writableFinished: boolean;
  getHeader(name: string): unknown;
  write(...args: unknown[]): unknown;
  end(...args: unknown[]): unknown;
}

/** Work is an admitted request being followed to the end of its work. */
export interface Work {
  /**
   * end tells that the handler's work is over (Koa: `next()` settled). `status` is the status the
   * framework answers with when the response does not show it yet (an error its handler has yet to answer).
   */
  end(status?: number): void;
}

/** Watch: the adapter hands over an admitted request's raw response, first thing; undefined when nothing is to settle. */
export type Watch<Req> = (req: Req, res: NodeResponse, decision: Decision) => Work | undefined;

/** watcher builds the Node adapters' watch over `claim` (see above). */
export function watcher<Req>(claim: Claim<Req> | undefined, abandonedMs: number): Watch<Req> | undefined {
  if (claim === undefined) return undefined;
  return function watch(req, res, decision) {
    const settle = claim(req, decision);
    if (settle === undefined) return undefined;
    const work = new NodeWork(settle, res, abandonedMs);
    if (res.closed === true) work.closed();
    else res.once('close', () => work.closed());
    return work;
  };
}

/** NodeWork follows one admitted request on Node: over at 'close', or once abandoned, at its answer. */
class NodeWork implements Work {
  readonly #settle: Settle;
  readonly #res: NodeResponse;
  readonly #abandonedMs: number;
  /** The status the adapter said its handler ended with; undefined until `end`, null for the response's own. */
  #ended: number | null | undefined;
  /** Set once abandoned: settles with the answer, once. */
  #over: ((outcome: Finished) => void) | undefined;

  constructor(settle: Settle, res: NodeResponse, abandonedMs: number) {
    this.#settle = settle;
    this.#res = res;
    this.#abandonedMs = abandonedMs;
  }

  /** closed: the response emitted 'close' (or had, when handed over). */
  closed(): void {
    const res = this.#res;
    if (res.headersSent) return this.#settle(finished(res));
    if (this.#ended !== undefined) return this.#settle(answered(res, this.#ended));
    const over = (this.#over = abandon(this.#settle, this.#abandonedMs));
    onAnswer(res, () => over(answered(res, null)));
  }

  end(status?: number): void {
    this.#ended = status ?? null;
    this.#over?.(answered(this.#res, this.#ended));
  }
}

/**
 * abandon starts the bound on a request whose client left before its answer: it settles with
 * CLIENT_CLOSED after `abandonedMs` (Infinity: never), unless the returned function reports the
 * handler's answer first. 0 settles at once.
 */
export function abandon(settle: Settle, abandonedMs: number): (answer: Finished) => void {
  if (abandonedMs === 0) {
    settle(CLIENT_CLOSED);
    return settle;
  }
  if (abandonedMs === Infinity) return settle;
  const timer = setTimeout(() => settle(CLIENT_CLOSED), abandonedMs);
  (timer as { unref?: () => void }).unref?.();
  return (answer) => {
    clearTimeout(timer);
    settle(answer);
  };
}

/** onAnswer calls `answering` when the handler first writes or ends `res` (after its client left). */
function onAnswer(res: NodeResponse, answering: () => void): void {
  const { write, end } = res;
  res.write = function write_(this: unknown, ...args: unknown[]) {
    answering();
    return write.apply(this, args);
  };
  res.end = function end_(this: unknown, ...args: unknown[]) {
    answering();
    return end.apply(this, args);
  };
}

/** finished reads how `res` ended, at its 'close'. */
export function finished(res: NodeResponse): Finished {
  return { status: res.statusCode, aborted: !res.writableFinished, contentLength: lengthOf(res) };
}

/** answered is the outcome of a handler answering a client that already left. */
function answered(res: NodeResponse, status: number | null): Finished {
  return { status: status ?? res.statusCode, aborted: true, contentLength: lengthOf(res) };
}

function lengthOf(res: NodeResponse): number | undefined {
  const length = Number(res.getHeader('content-length'));
  return Number.isFinite(length) ? length : undefined;
}
