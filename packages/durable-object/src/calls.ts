/**
 * Calls: how a DurableObjectStore's calls reach their objects, and the only place they are bounded.
 *
 * Batching, per request. The calls made to one object in one turn (a composite, a request's
 * Promise.all over several limiters, a burst of decisions on one key) are queued and sent together,
 * at the end of the turn (a microtask), as one `run` RPC of at most `maxBatchSize` ops, which the
 * object decides in order, atomically. A turn runs the continuations of one event, so a batch never
 * mixes the calls of two requests: Workers tie every I/O to the request that started it, and a reply
 * carried by another request's RPC would outlive or be cancelled with that request. Calls of a later
 * turn go in a later RPC (no call waits for another's answer). With `batch: false` every call is its
 * own RPC, sent at once.
 *
 * Time. Each RPC carries a deadline, `timeoutMs` after it was sent on this isolate's clock, and is
 * given up when a timer of `timeoutMs` fires without an answer: its calls are then decided by the
 * failure policy. The object runs nothing once its clock has reached the deadline (object.ts), so a
 * call decided here is not also decided there, provided the two clocks agree (Cloudflare keeps its
 * hosts' clocks within milliseconds; a skew of Δ lets an object run a call up to Δ after it was given
 * up). workerd's clock stands still while JavaScript runs, so the deadline read at the send is, if
 * anything, early: the object refuses sooner, never later. An `expired` answer proves the object is
 * answering and did nothing (it was reached late: a queue): the RPC is sent again with a new deadline,
 * until the calls have waited MAX_WAIT_FACTOR × timeoutMs in all. A timer that fires in the same turn
 * as an answer that arrived while the isolate was busy yields once more (a zero timer) before giving
 * up, so that the answer is read first.
 *
 * Every call is answered exactly once, with its answer or with a Failure; nothing here rejects or throws.
 */
import type { Policy } from '@ratekeeper/core';
import { Failure, TIMEOUT, failureOf } from './failure.js';
import type { Answer, Batch, Op, OpBody, Reply } from './protocol.js';

/** Send is one RPC to the object named `name`. */
export type Send = (name: string, batch: Batch) => Promise<Reply>;

/** Call is one op on its way, `policies` being its members; `deliver` gets its answer or a Failure. */
export interface Call {
  readonly op: OpBody;
  readonly policies: readonly Policy[];
  readonly deliver: (answer: Answer | Failure) => void;
}

/** MAX_WAIT_FACTOR × timeoutMs is the longest calls wait while their object answers 'expired'. */
export const MAX_WAIT_FACTOR = 10;

export class Calls {
  readonly #send: Send;
  readonly #timeoutMs: number;
  readonly #batch: boolean;
  readonly #maxBatchSize: number;
  readonly #pending = new Map<string, Call[]>();
  #scheduled = false;
  /** The RPCs sent and the calls they carried (counters for tests and benchmarks). */
  rpcs = 0;
  calls = 0;

  constructor(send: Send, timeoutMs: number, batch: boolean, maxBatchSize: number) {
    this.#send = send;
    this.#timeoutMs = timeoutMs;
    this.#batch = batch;
    this.#maxBatchSize = maxBatchSize;
  }

  /** submit queues `call` for the object `name` (or sends it at once without batching). */
  submit(name: string, call: Call): void {
    if (!this.#batch) return this.#dispatch(name, [call]);
    const queue = this.#pending.get(name);
    if (queue === undefined) this.#pending.set(name, [call]);
    else queue.push(call);
    if (!this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(this.#flush);
    }
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const max = this.#maxBatchSize;
    for (const [name, calls] of this.#pending) {
      for (let i = 0; i < calls.length; i += max) this.#dispatch(name, calls.length <= max ? calls : calls.slice(i, i + max));
    }
    this.#pending.clear();
  };

  #dispatch(name: string, calls: readonly Call[]): void {
    this.rpcs++;
    this.calls += calls.length;
    const policies: Policy[] = [];
    const index = new Map<Policy, number>();
    const indexOf = (p: Policy): number => {
      let i = index.get(p);
      if (i === undefined) index.set(p, (i = policies.push(p) - 1));
      return i;
    };
    const ops = calls.map((c) => ({ ...c.op, members: c.policies.map(indexOf) }) as Op);
    this.#attempt(name, policies, ops, calls, Date.now());
  }

  /** attempt sends the RPC once; `since` is when its calls were first sent (for MAX_WAIT_FACTOR). */
  #attempt(name: string, policies: readonly Policy[], ops: readonly Op[], calls: readonly Call[], since: number): void {
    const sentAt = Date.now();
    let done = false;
    const finish = (ended: Reply | Failure): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (typeof ended === 'number' && ended < 0 && Date.now() - since < MAX_WAIT_FACTOR * this.#timeoutMs) {
        return this.#attempt(name, policies, ops, calls, since); // expired: answering, nothing done
      }
      deliverAll(calls, ended);
    };
    // Yield once before giving up: an answer already delivered in this turn is read first.
    const timer = setTimeout(() => setTimeout(() => finish(TIMEOUT), 0), this.#timeoutMs);
    let reply: Promise<Reply>;
    try {
      reply = this.#send(name, { deadline: sentAt + this.#timeoutMs, policies, ops });
    } catch (error) {
      reply = Promise.reject(error);
    }
    reply.then(finish, (error: unknown) => finish(failureOf(error)));
  }
}

/** deliverAll hands each call its answer, or every call the failure (a reply of the wrong shape is one). */
function deliverAll(calls: readonly Call[], ended: Reply | Failure): void {
  const answers = ended instanceof Failure ? undefined : ended;
  const failure = ended instanceof Failure ? ended : typeof ended === 'number' ? TIMEOUT : undefined;
  const usable = Array.isArray(answers) && answers.length === calls.length;
  const bad = new Failure('reply', new TypeError('DurableObjectStore: the object answered with an unexpected shape'));
  calls.forEach((call, i) => call.deliver(usable ? (answers[i] as Answer) : (failure ?? bad)));
}
