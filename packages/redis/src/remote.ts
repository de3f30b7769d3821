/**
 * Remote: every call RedisStore makes to Redis goes through here, and here alone it is bounded.
 *
 * - Timeout: each call resolves within `timeoutMs` (plus one event-loop turn, so that a reply already
 *   read is never thrown away) with the reply or a Failure; it never rejects. A reply arriving later is
 *   swallowed. All calls share one timeout, so deadlines are ordered and one timer serves them all.
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

interface Pending {
  readonly deadline: number;
  readonly probe: boolean;
  readonly resolve: (outcome: unknown) => void;
  settled: boolean;
}

/** COMPACT_AT is how many settled calls may sit at the head of the queue before it is compacted. */
const COMPACT_AT = 1024;

export class Remote {
  readonly #send: Send;
  readonly #timeoutMs: number;
  readonly #probeIntervalMs: number;
  readonly #queue: Pending[] = [];
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
   * eval runs a script: `command` is ['EVALSHA', script.sha, numkeys, ...keys, ...args], answered with
   * the reply or a Failure. On NOSCRIPT it is sent once more as EVAL with the source.
   */
  eval(script: Script, command: string[], firstKey: string): Promise<unknown> {
    return this.#run(command, firstKey, script);
  }

  /** command runs one plain command on `key`, answering the reply or a Failure. */
  command(args: string[], key: string): Promise<unknown> {
    return this.#run(args, key, undefined);
  }

  #run(command: string[], firstKey: string, script: Script | undefined): Promise<unknown> {
    const probe = this.#down;
    if (probe && (this.#probing || performance.now() < this.#nextProbeAt)) return Promise.resolve(UNAVAILABLE);
    if (probe) this.#probing = true;
    return new Promise((resolve) => {
      const pending: Pending = { deadline: performance.now() + this.#timeoutMs, probe, resolve, settled: false };
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

  #settle(pending: Pending, outcome: unknown): void {
    if (pending.settled) return;
    pending.settled = true;
    if (pending.probe) this.#probing = false;
    if (outcome instanceof Failure && outcome.breaksConnection) {
      this.#down = true;
      this.#nextProbeAt = performance.now() + this.#probeIntervalMs;
    } else {
      this.#down = false;
    }
    pending.resolve(outcome);
  }

  /** The timer defers the sweep by one turn: replies already read in this turn settle first. */
  readonly #onTimer = (): void => {
    setImmediate(this.#sweep);
  };

  readonly #sweep = (): void => {
    this.#timer = undefined;
    const queue = this.#queue;
    const now = performance.now();
    let i = this.#head;
    for (; i < queue.length; i++) {
      const pending = queue[i] as Pending;
      if (pending.settled) continue;
      if (pending.deadline > now) break;
      this.#settle(pending, TIMEOUT);
    }
    if (i === queue.length) {
      queue.length = 0;
      this.#head = 0;
      return;
    }
    this.#head = i;
    if (i >= COMPACT_AT) {
      queue.splice(0, i);
      this.#head = 0;
    }
    const next = queue[this.#head] as Pending;
    this.#timer = setTimeout(this.#onTimer, Math.max(1, Math.ceil(next.deadline - now)));
  };
}
