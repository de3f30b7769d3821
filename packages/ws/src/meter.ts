/**
 * Meter: one connection's per-message limit. Each message is charged its cost on the connection's key
 * (and on its own key per connection, with `perConnection`: all or nothing) before it is handed on;
 * a refused message is dropped, dropped with one warning per streak of refusals, or held until it fits
 * (`delay`: reading stops meanwhile), and the Nth refusal closes the connection (`closeAfter`).
 *
 * Order is kept: messages are handed on in the order they arrived. On the memory store each message is
 * decided as it arrives, with `allow` (no allocation); on a remote store its decision is a promise,
 * and messages arriving meanwhile wait in a queue of at most `maxQueued` (past it they are refused,
 * and reading pauses while the queue is full). A message admitted after its connection closed is never
 * handed on, and with `refundOnClose` its units go back: the client was charged for nothing.
 *
 * A refusal changes nothing in the budget (core's contract), so a flood of refused messages costs the
 * store nothing more; only the count of refusals grows.
 */
import { type Decision, mostRestrictive, retryAfterSeconds } from '@ratekeeper/core';
import type { LimitInfo, Settings } from './options.js';

/** Transport: what a meter does to its connection; a message is the two values the transport hands on (ws: data and isBinary; socket.io: packet and next). */
export interface Transport<A, B> {
  deliver(a: A, b: B): void;
  warn(info: LimitInfo): void;
  close(info: LimitInfo): void;
  /** fail ends the connection when a limiter failed to answer (a programming error: remote stores answer failures as decisions). */
  fail(): void;
  pause(): void;
  resume(): void;
}

/** Strikes: refusals counted for one connection (shared by the meters of its socket.io events). */
export interface Strikes {
  denials: number;
}

type Verdict = boolean | Promise<boolean>;

/**
 * background lets a refund or reset run on without waiting for it: a remote store reports its own
 * failures (its 'failure' event), and a rejection, a programming error, must not go unhandled.
 */
export function background(result: unknown): void {
  if (result instanceof Promise) result.catch(() => {});
}

interface Held<A, B> {
  readonly a: A;
  readonly b: B;
  readonly cost: number;
}

export class Meter<A, B> {
  readonly #s: Settings;
  readonly #key: string;
  readonly #connection: string;
  readonly #transport: Transport<A, B>;
  readonly #strikes: Strikes;
  #queue: Held<A, B>[] | undefined;
  #busy = false;
  #paused = false;
  #warned = false;
  #closed = false;
  #timer: NodeJS.Timeout | undefined;
  /** Set from a delayed message's refusal until its retry: nothing else is tried meanwhile. */
  #waiting = false;

  constructor(settings: Settings, key: string, connection: string, transport: Transport<A, B>, strikes: Strikes = { denials: 0 }) {
    this.#s = settings;
    this.#key = key;
    this.#connection = connection;
    this.#transport = transport;
    this.#strikes = strikes;
  }

  /** offer charges one message of `cost` and hands it on, or applies the policy (see the file comment). */
  offer(a: A, b: B, cost: number): void {
    if (this.#closed) return;
    if (this.#s.sync && this.#queue === undefined) {
      if (this.#try(cost) as boolean) {
        this.#warned = false;
        this.#transport.deliver(a, b);
      } else this.#refused(a, b, cost);
      return;
    }
    this.#enqueue(a, b, cost);
  }

  /** closed stops the meter: nothing more is handed on, and a delayed retry is cancelled. */
  closed(): void {
    this.#closed = true;
    this.#queue = undefined;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
  }

  #try(cost: number): Verdict {
    const { limiter, perConnection } = this.#s;
    if (perConnection === undefined) return limiter.allow(this.#key, cost);
    const own = perConnection.allow(this.#connection, cost);
    if (own === false) return false;
    if (own === true) return this.#both(cost);
    return own.then((ok) => (ok ? this.#both(cost) : false));
  }

  /** both charges the shared budget once the connection's own admitted, giving the connection's units back on a refusal. */
  #both(cost: number): Verdict {
    const shared = this.#s.limiter.allow(this.#key, cost);
    const undo = (ok: boolean) => {
      if (!ok) background(this.#s.perConnection?.refund?.(this.#connection, cost));
      return ok;
    };
    return typeof shared === 'boolean' ? undo(shared) : shared.then(undo);
  }

  /** info answers why `cost` is refused (the most restrictive of the budgets), for warnings, closes and delays. */
  #info(cost: number): Decision | Promise<Decision> {
    const { limiter, perConnection } = this.#s;
    const shared = limiter.peek(this.#key, cost);
    if (perConnection === undefined) return shared;
    const own = perConnection.peek(this.#connection, cost);
    if (!(shared instanceof Promise) && !(own instanceof Promise)) return mostRestrictive([own, shared]);
    return Promise.all([own, shared]).then((both) => mostRestrictive(both));
  }

  #refund(cost: number): void {
    const { limiter, perConnection } = this.#s;
    background(limiter.refund?.(this.#key, cost));
    if (perConnection !== undefined) background(perConnection.refund?.(this.#connection, cost));
  }

  #refused(a: A, b: B, cost: number): void {
    const action = this.#s.action;
    if (action === 'delay') return this.#delay(a, b, cost);
    const denials = ++this.#strikes.denials;
    const close = denials >= this.#s.closeAfter;
    if (!close && (action === 'drop' || this.#warned)) return;
    if (!close) this.#warned = true;
    const info = this.#info(cost);
    const tell = (d: Decision) => {
      if (this.#closed) return;
      const seconds = retryAfterSeconds(d);
      const limit: LimitInfo = seconds === undefined ? { denials } : { retryAfterSeconds: seconds, denials };
      if (close) {
        this.closed();
        this.#transport.close(limit);
      } else this.#transport.warn(limit);
    };
    if (info instanceof Promise) info.then(tell, this.#fail);
    else tell(info);
  }

  #enqueue(a: A, b: B, cost: number): void {
    const queue = (this.#queue ??= []);
    if (queue.length >= this.#s.maxQueued) {
      this.#pause();
      return this.#refusedOverflow(a, b, cost);
    }
    queue.push({ a, b, cost });
    if (queue.length >= this.#s.maxQueued) this.#pause();
    this.#pump();
  }

  /** A message past a full queue is refused as any other (a delay policy drops it: it cannot wait). */
  #refusedOverflow(a: A, b: B, cost: number): void {
    if (this.#s.action !== 'delay') return this.#refused(a, b, cost);
    const denials = ++this.#strikes.denials;
    if (denials >= this.#s.closeAfter) {
      this.closed();
      this.#transport.close({ denials });
    }
  }

  /** pump decides the message at the head of the queue, then the next, one at a time (order kept). */
  #pump(): void {
    const queue = this.#queue;
    if (this.#busy || this.#closed || this.#waiting || queue === undefined) return;
    const head = queue[0];
    if (head === undefined) return this.#drained();
    const verdict = this.#try(head.cost);
    if (typeof verdict === 'boolean') return this.#decided(head, verdict);
    this.#busy = true;
    verdict.then((ok) => {
      this.#busy = false;
      if (this.#closed) {
        if (ok && this.#s.refundOnClose) this.#refund(head.cost);
        return;
      }
      this.#decided(head, ok);
    }, this.#fail);
  }

  #decided(head: Held<A, B>, ok: boolean): void {
    const queue = this.#queue as Held<A, B>[];
    if (ok) {
      queue.shift();
      this.#warned = false;
      this.#transport.deliver(head.a, head.b);
    } else if (this.#s.action === 'delay') {
      return this.#wait(head.cost);
    } else {
      queue.shift();
      this.#refused(head.a, head.b, head.cost);
    }
    this.#pump();
  }

  #delay(a: A, b: B, cost: number): void {
    (this.#queue ??= []).push({ a, b, cost });
    this.#wait(cost);
  }

  /** wait stops reading and tries the head again once its refusal's wait is over (dropped when it never fits). */
  #wait(cost: number): void {
    this.#pause();
    this.#waiting = true;
    const info = this.#info(cost);
    const schedule = (d: Decision) => {
      if (this.#closed) return;
      if (!Number.isFinite(d.retryAfterMs)) {
        this.#waiting = false;
        this.#queue?.shift();
        const denials = ++this.#strikes.denials;
        if (denials >= this.#s.closeAfter) {
          this.closed();
          return this.#transport.close({ denials });
        }
        return this.#pump();
      }
      this.#timer = setTimeout(
        () => {
          this.#timer = undefined;
          this.#waiting = false;
          this.#pump();
        },
        Math.max(1, d.retryAfterMs),
      );
    };
    if (info instanceof Promise) info.then(schedule, this.#fail);
    else schedule(info);
  }

  readonly #fail = (): void => {
    if (this.#closed) return;
    this.closed();
    this.#transport.fail();
  };

  #pause(): void {
    if (this.#paused) return;
    this.#paused = true;
    this.#transport.pause();
  }

  #drained(): void {
    this.#queue = undefined;
    if (this.#paused) {
      this.#paused = false;
      this.#transport.resume();
    }
  }
}
