/**
 * ObjectRunner: the kit's Runner on Durable Objects, and the only place a call is bounded. An op goes to
 * its key's object (the prefix, then the key's hex from its row id: byte-exact, a long key's digest).
 * The ops made to one object in one turn leave at its end as one RPC of at most `maxBatchSize` (one op
 * with `batch: false`; never two requests' ops: Workers tie every I/O to its request), with a deadline
 * `timeoutMs` ahead on this isolate's clock, past which the object runs nothing: as far as the hosts'
 * clocks agree, no op is decided twice. Unanswered for `timeoutMs` (and one turn more, to read an answer
 * already there), its ops fail with a timeout for the kit's failure policy; `expired` (the object did
 * nothing) sends it again until they have waited MAX_WAIT_FACTOR × timeoutMs. After a failure that says
 * an object could not be reached, the next answer runs `onRecover`.
 */
import type { Policy } from '@ratekeeper/core';
import { type Answer, Failure, MAX_WAIT_FACTOR, type Part, type RowOp, type Runner, TIMEOUT, nameHead } from '@ratekeeper/core/store';
import { failureOf } from './failure-cause.js';
import type { resolveOptions } from './options.js';
import { type Batch, type Reply, UNREADABLE, answerOf, wireOp } from './protocol.js';

type Pending = { readonly op: RowOp; readonly deliver: (answer: Answer | Failure) => void };

type Options = ReturnType<typeof resolveOptions> & { send(name: string, batch: Batch): Promise<Reply> };

export class ObjectRunner implements Runner<'async'> {
  readonly mode = 'async';
  readonly #o: Options;
  readonly #pending = new Map<string, Pending[]>();
  readonly #recover: (() => void)[] = [];
  #down = false;
  /** The RPCs sent and the ops they carried. */
  rpcs = 0;
  calls = 0;

  constructor(options: Options) {
    this.#o = options;
  }

  run<T>(op: RowOp, then: (answer: Answer | Failure) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // A `then` that throws is the caller's bug: its own call rejects, the batch's other ops are answered.
      const deliver = (answer: Answer | Failure): void => void new Promise<T>((settle) => settle(then(answer))).then(resolve, reject);
      // The key's object: the prefix, then the key's part of its row id (after its policy's nameHead).
      const { id, name: policy } = op.parts[0] as Part;
      const name = this.#o.prefix + id.slice(nameHead(policy).length);
      if (this.#pending.size === 0) queueMicrotask(this.#flush);
      (this.#pending.get(name) ?? this.#pending.set(name, []).get(name))?.push({ op, deliver });
    });
  }

  onRecover(callback: () => void): void {
    this.#recover.push(callback);
  }

  readonly #flush = (): void => {
    const max = this.#o.batch ? this.#o.maxBatchSize : 1;
    for (const [name, queue] of this.#pending) for (let i = 0; i < queue.length; i += max) this.#dispatch(name, queue.slice(i, i + max));
    this.#pending.clear();
  };

  #dispatch(name: string, batch: readonly Pending[]): void {
    this.rpcs++;
    this.calls += batch.length;
    const policies: Policy[] = [];
    const indexOf = (policy: Policy): number => (policies.includes(policy) ? policies.indexOf(policy) : policies.push(policy) - 1);
    const ops = batch.map((p) => wireOp(p.op, indexOf, this.#o.time === 'client'));
    this.#attempt(name, { deadline: 0, policies, ops }, batch, Date.now());
  }

  /** attempt sends the RPC once; `since` is when its ops were first sent. */
  #attempt(name: string, rpc: Batch, batch: readonly Pending[], since: number): void {
    const { timeoutMs } = this.#o;
    const sentAt = Date.now();
    let done = false;
    const finish = (ended: unknown): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const expired = typeof ended === 'number' && ended < 0;
      if (expired && Date.now() - since < MAX_WAIT_FACTOR * timeoutMs) return this.#attempt(name, rpc, batch, since);
      this.#deliver(batch, expired ? TIMEOUT : ended);
    };
    const timer = setTimeout(() => setTimeout(() => finish(TIMEOUT), 0), timeoutMs);
    new Promise<Reply>((resolve) => resolve(this.#o.send(name, { ...rpc, deadline: sentAt + timeoutMs }))).then(finish, (error: unknown) => finish(failureOf(error)));
  }

  /** deliver hands each op its answer (one of the wrong shape: a reply failure), or every op the failure. */
  #deliver(batch: readonly Pending[], ended: unknown): void {
    const whole = ended instanceof Failure ? ended : Array.isArray(ended) && ended.length === batch.length ? undefined : UNREADABLE;
    batch.forEach((p, i) => p.deliver(whole ?? answerOf(p.op, (ended as unknown[])[i])));
    if (whole === undefined && this.#down) for (const callback of this.#recover) callback();
    this.#down = whole !== undefined && (whole.breaksConnection || this.#down);
  }
}
