/**
 * Remote: every call RedisStore makes to Redis goes through here, and here alone it is bounded.
 *
 * - Timeout: each call resolves within `timeoutMs` (plus one event-loop turn, so that a reply already
 *   read is never thrown away) with the reply or a Failure; it never rejects. A reply arriving later is
 *   swallowed. All calls share one timeout, so deadlines are ordered and one timer serves them all:
 *   a FIFO of pending calls whose settled head is dropped as soon as it settles (replies on one
 *   connection come in order), so only calls in flight stay reachable and nothing outlives the young
 *   generation of the garbage collector.
 * - Breaker: after a timeout or connection failure, calls are not sent (Failure 'unavailable', decided
 *   at once by policy) except one probe at a time, no sooner than `probeIntervalMs` after the last
 *   failure. Any answer from Redis, an error reply included, closes the breaker. So a hung Redis never
 *   holds a request longer than the timeout, the client's queue does not fill with doomed commands, and
 *   Redis decides again within probeIntervalMs + one round trip of coming back.
 * - Scripts: EVALSHA, and once, on NOSCRIPT (a restart, a failover, SCRIPT FLUSH), EVAL, which also
 *   caches the script again on that node.
 */
import type { Send } from './client.js';
import { Failure, TIMEOUT, UNAVAILABLE, failureOf, isNoScript } from './failure.js';
import type { Script } from './lua/scripts.js';

/**
 * Outcome maps what a call ended with (the reply, or a Failure) to what the caller gets. It must not
 * throw: RedisStore's only read the reply, report, and decide in process.
 */
export type Outcome<T> = (replyOrFailure: unknown) => T;

interface Pending {
  readonly deadline: number;
  readonly probe: boolean;
  outcome: Outcome<unknown> | undefined;
  resolve: ((value: unknown) => void) | undefined;
  settled: boolean;
}

/** COMPACT_AT is how many dropped calls may sit before the queue's head before it is compacted. */
const COMPACT_AT = 1024;

export class Remote {
  readonly #send: Send;
  readonly #timeoutMs: number;
  readonly #probeIntervalMs: number;
  #queue: (Pending | undefined)[] = [];
  #head = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #down = false;
  #probing = false;
  #nextProbeAt = 0;

  constructor(send: Send, timeoutMs: number, probeIntervalMs: number) {
    this.#send = send;
    this.#timeoutMs = timeoutMs;
    this.#probeIntervalMs = probeIntervalMs;
  }

  /**
   * eval runs a script: `command` is ['EVALSHA', script.sha, numkeys, ...keys, ...args]. The promise
   * resolves to `outcome` of the reply or of a Failure; `outcome` runs exactly once, when the call
   * settles (so the caller's decoding costs no extra promise). On NOSCRIPT the command is sent once
   * more as EVAL with the source.
   */
  eval<T>(script: Script, command: string[], firstKey: string, outcome: Outcome<T>): Promise<T> {
    return this.#run(command, firstKey, script, outcome);
  }

  /** command runs one plain command on `key`, resolving to `outcome` of the reply or of a Failure. */
  command<T>(args: string[], key: string, outcome: Outcome<T>): Promise<T> {
    return this.#run(args, key, undefined, outcome);
  }

  #run<T>(command: string[], firstKey: string, script: Script | undefined, outcome: Outcome<T>): Promise<T> {
    const probe = this.#down;
    if (probe && (this.#probing || performance.now() < this.#nextProbeAt)) return Promise.resolve(outcome(UNAVAILABLE));
    if (probe) this.#probing = true;
    return new Promise<T>((resolve) => {
      const pending: Pending = {
        deadline: performance.now() + this.#timeoutMs,
        probe,
        outcome,
        resolve: resolve as (value: unknown) => void,
        settled: false,
      };
      this.#queue.push(pending);
      if (this.#timer === undefined) this.#timer = setTimeout(this.#onTimer, this.#timeoutMs);
      this.#attempt(pending, command, firstKey, script);
    });
  }

  #attempt(pending: Pending, command: string[], firstKey: string, script: Script | undefined): void {
    this.#sendSafely(command, firstKey).then(
      (reply) => this.#settle(pending, reply),
      (error: unknown) => {
        if (script === undefined || !isNoScript(error) || pending.settled) return this.#settle(pending, failureOf(error));
        const retry = command.slice();
        retry[0] = 'EVAL';
        retry[1] = script.source;
        this.#attempt(pending, retry, firstKey, undefined);
      },
    );
  }

  /** sendSafely turns a client that throws synchronously into a rejected promise. */
  #sendSafely(command: string[], firstKey: string): Promise<unknown> {
    try {
      return this.#send(command, firstKey);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #settle(pending: Pending, ended: unknown): void {
    if (pending.settled) return;
    pending.settled = true;
    if (pending.probe) this.#probing = false;
    if (ended instanceof Failure && ended.breaksConnection) {
      this.#down = true;
      this.#nextProbeAt = performance.now() + this.#probeIntervalMs;
    } else {
      this.#down = false;
    }
    const { outcome, resolve } = pending;
    pending.outcome = pending.resolve = undefined;
    this.#dropSettledHead();
    (resolve as (value: unknown) => void)((outcome as Outcome<unknown>)(ended));
  }

  /** dropSettledHead forgets the settled calls at the head of the queue, compacting it now and then. */
  #dropSettledHead(): void {
    const queue = this.#queue;
    let head = this.#head;
    while (head < queue.length && (queue[head] as Pending).settled) queue[head++] = undefined;
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
    } else if (head >= COMPACT_AT && 2 * head >= queue.length) {
      this.#queue = queue.slice(head);
      head = 0;
    }
    this.#head = head;
  }

  /** The timer defers the sweep by one turn: replies already read in this turn settle first. */
  readonly #onTimer = (): void => {
    setImmediate(this.#sweep);
  };

  /** sweep times out the calls past their deadline; settling drops them, so the head moves on. */
  readonly #sweep = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    let head = this.#queue[this.#head];
    while (head !== undefined && head.deadline <= now) {
      this.#settle(head, TIMEOUT);
      head = this.#queue[this.#head];
    }
    if (head !== undefined) this.#timer = setTimeout(this.#onTimer, Math.max(1, Math.ceil(head.deadline - now)));
  };
}
