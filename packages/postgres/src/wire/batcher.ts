/**
 * Batcher: the calls in flight together go to the database together. A call is queued and, on the
 * next microtask (so every call made in the same turn joins it), the queue leaves as one batch, up to
 * MAX_BATCH calls, while fewer than MAX_IN_FLIGHT batches of this store are in flight. A call whose
 * rows are in a batch still in flight waits for it (and so do the calls behind it on those rows, which
 * keeps each key's calls in arrival order): one process never queues two of its own transactions on
 * one row lock, where they would only wait for each other. Each batch is one call of core's Remote
 * (one transaction: ./transaction.ts), which bounds it, judges the database by its silence and sends it
 * again while the database answers 'expired'; its outcome is spread over its calls: each gets its own
 * answer, or the Failure, which its binding decides by the failure policy.
 *
 * A batch waiting for a row lock hears nothing from the database, however alive it is: 8 processes'
 * transactions on one hot key take turns. So while a batch has waited more than PING_FRACTION of
 * timeoutMs, a ping (`SELECT 1`, through the same Remote) asks every PING_FRACTION whether the
 * database answers at all: one that answers is busy and is waited for; one that answers nothing (stopped,
 * hung, unreachable) is failed by Remote as any other silence. A ping stuck on one dead connection (a
 * connection dropped without a reset, a connect that never completes) does not stop the asking: while
 * the latest ping has waited a whole period, the next goes anyway, on another connection, up to
 * MAX_PINGS at once.
 *
 * MAX_IN_FLIGHT keeps a burst from taking every connection of a pool the application shares.
 */
import type { Decision } from '@ratekeeper/core';
import { Failure, type Remote } from '@ratekeeper/core/store';
import { type Op, rowsOf } from '../rows/apply.js';
import type { Db } from './client.js';
import { PING } from '../sql/sql.js';
import { type Answers, type Context, Expired, runBatch } from './transaction.js';

export const MAX_BATCH = 500;
export const MAX_IN_FLIGHT = 4;
/** A ping is sent every timeoutMs / PING_FRACTION while a batch has waited that long. */
const PING_FRACTION = 4;
/** At most MAX_PINGS pings in flight (see above). */
const MAX_PINGS = 3;

/** Deliver receives a call's answer (its decisions, or undefined for refund and reset) or its Failure. */
export type Deliver = (answer: readonly Decision[] | undefined | Failure) => void;

interface Pending {
  readonly op: Op;
  readonly deliver: Deliver;
}

/** expiredAt reads a batch's 'expired' answer for Remote. */
export function expiredAt(reply: unknown): number | undefined {
  return reply instanceof Expired ? reply.serverMs : undefined;
}

export class Batcher {
  readonly #remote: Remote;
  readonly #context: Context;
  readonly #pingMs: number;
  #queue: Pending[] = [];
  /** The rows of the batches in flight. */
  readonly #busy = new Set<string>();
  /** When each batch in flight was sent. */
  readonly #sentAt = new Set<{ at: number }>();
  #inFlight = 0;
  #scheduled = false;
  #pinger: ReturnType<typeof setInterval> | undefined;
  /** Pings in flight, and when the latest was sent. */
  #pings = 0;
  #pingedAt = 0;
  /** Counters: batches sent and calls they carried. */
  batches = 0;
  calls = 0;

  constructor(remote: Remote, context: Context, timeoutMs: number) {
    this.#remote = remote;
    this.#context = context;
    this.#pingMs = Math.max(1, Math.floor(timeoutMs / PING_FRACTION));
  }

  /** add queues `op`; `deliver` runs once with its answer or Failure. */
  add(op: Op, deliver: Deliver): void {
    this.#queue.push({ op, deliver });
    if (!this.#scheduled && this.#inFlight < MAX_IN_FLIGHT) {
      this.#scheduled = true;
      queueMicrotask(this.#flush);
    }
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    while (this.#queue.length > 0 && this.#inFlight < MAX_IN_FLIGHT) {
      const batch = this.#take();
      if (batch.length === 0) return;
      this.#send(batch);
    }
  };

  /** take removes the calls that may leave now (see above), in arrival order, up to MAX_BATCH. */
  #take(): Pending[] {
    const taken: Pending[] = [];
    const kept: Pending[] = [];
    const blocked = new Set(this.#busy);
    for (const pending of this.#queue) {
      const rows = rowsOf(pending.op);
      if (taken.length < MAX_BATCH && !rows.some((row) => blocked.has(row))) taken.push(pending);
      else {
        kept.push(pending);
        for (const row of rows) blocked.add(row);
      }
    }
    this.#queue = kept;
    return taken;
  }

  #send(pending: Pending[]): void {
    this.#inFlight++;
    this.batches++;
    this.calls += pending.length;
    const ops = pending.map((p) => p.op);
    const rows = [...new Set(ops.flatMap(rowsOf))].sort();
    for (const row of rows) this.#busy.add(row);
    const sent = { at: performance.now() };
    this.#sentAt.add(sent);
    this.#pinger ??= setInterval(this.#ping, this.#pingMs);
    const context = this.#context;
    const batch = { ops, rows };
    const request = { deadlined: true, send: (deadline: number) => runBatch(context, batch, deadline) };
    void this.#remote
      .run(request, (ended) => {
        if (ended instanceof Failure) for (const p of pending) p.deliver(ended);
        else pending.forEach((p, i) => p.deliver((ended as Answers)[i]));
      })
      .then(() => {
        this.#inFlight--;
        for (const row of rows) this.#busy.delete(row);
        this.#sentAt.delete(sent);
        if (this.#inFlight === 0) {
          clearInterval(this.#pinger);
          this.#pinger = undefined;
        }
        this.#flush();
      });
  }

  /** ping asks whether the database answers at all, while a batch has waited a while (see above). */
  readonly #ping = (): void => {
    if (this.#remote.down) return;
    const now = performance.now();
    if (this.#pings >= MAX_PINGS || (this.#pings > 0 && now - this.#pingedAt < this.#pingMs)) return;
    let waiting = false;
    for (const sent of this.#sentAt) if (now - sent.at >= this.#pingMs) waiting = true;
    if (!waiting) return;
    this.#pings++;
    this.#pingedAt = now;
    const db: Db = this.#context.db;
    void this.#remote.run({ deadlined: false, send: () => db.query(PING) }, () => {
      this.#pings--;
    });
  };
}
