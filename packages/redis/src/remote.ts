/**
 * Remote: every call RedisStore makes to Redis goes through here, and here alone it is bounded.
 *
 * - Liveness, not age: a Redis working through a queue is not failing. Redis counts as stopped only
 *   when nothing at all has been answered for `timeoutMs` while calls are outstanding (a stopped,
 *   hung or unreachable Redis): the breaker opens, and each outstanding call fails PATIENCE ×
 *   timeoutMs after its send (80 ms by default) unless Redis answers first (a Redis starved of CPU
 *   for a moment does). A call also fails when it has waited MAX_WAIT_FACTOR × timeoutMs in all (one
 *   stalled Redis Cluster node among answering ones; this one does not open the breaker). Replies on
 *   one connection arrive in order, so progress is one instant and one timer serves every call. Silence
 *   counts only while this process listens: a timer that fires late (a long synchronous burst of
 *   sends, a GC pause, a starved CPU) restarts it, and it must outlast two more event-loop turns.
 * - Never decided twice: each script carries a deadline (the last ARGV, see ./server-clock.ts) that the
 *   server's clock certainly passes timeoutMs after the send; a script starting later changes nothing
 *   and answers 'expired' (a negative integer, its server time). A call is failed, and so decided
 *   locally, only once its deadline has certainly passed. An 'expired' reply proves Redis is answering
 *   and did nothing, so the call is sent again with a new deadline: a long queue costs time, never a
 *   fallback decision. Plain commands (DEL for reset) carry no deadline.
 * - Breaker: after a timeout or connection failure, calls are not sent (Failure 'unavailable', decided
 *   at once by policy) except one probe at a time, no sooner than `probeIntervalMs` after the last
 *   failure. Any answer from Redis, an error or 'expired' included, closes the breaker.
 * - Scripts: EVALSHA, and once, on NOSCRIPT (a restart, a failover, SCRIPT FLUSH), EVAL.
 * - Every call resolves (never rejects) with `outcome` of the reply or of a Failure; late replies are
 *   swallowed. The timer defers its sweep by one turn, so a reply already read is never thrown away.
 */
import type { Send } from './client.js';
import { Failure, OVERDUE, TIMEOUT, UNAVAILABLE, failureOf, isNoScript } from './failure.js';
import type { Script } from './lua/scripts.js';
import { ServerClock } from './server-clock.js';

/** Outcome maps what a call ended with (the reply, or a Failure) to what the caller gets; it must not throw. */
export type Outcome<T> = (replyOrFailure: unknown) => T;

/** MAX_WAIT_FACTOR × timeoutMs is the longest a call waits even while Redis keeps answering others. */
export const MAX_WAIT_FACTOR = 100;

interface Call {
  readonly issuedAt: number;
  probe: boolean;
  command: string[];
  readonly firstKey: string;
  script: Script | undefined;
  /** deadlined: the command's last argument is the script's deadline. */
  readonly deadlined: boolean;
  /** The attempt now on the wire (see Attempt): a reply to an older one is ignored. */
  current: Attempt | undefined;
  /** expired counts the attempts Redis refused as past a real deadline; each doubles the next budget. */
  expired: number;
  outcome: Outcome<unknown> | undefined;
  resolve: ((value: unknown) => void) | undefined;
  settled: boolean;
}

/** Attempt is one send of a call; the FIFO holds attempts in the order they were sent. */
interface Attempt {
  readonly call: Call;
  readonly sentAt: number;
  /** safeAt: from this local instant the server's clock has certainly passed the attempt's deadline. */
  readonly safeAt: number;
  /** dated: the attempt carried a deadline from a clock sample (not the 0 of a clock not yet known). */
  readonly dated: boolean;
}

/** MAX_DOUBLINGS caps an attempt's budget at 2^MAX_DOUBLINGS × timeoutMs. */
const MAX_DOUBLINGS = 6;

/**
 * PATIENCE × timeoutMs is how long after its send a call still waits once Redis has gone silent: the
 * breaker opens at timeoutMs of silence (new calls are decided at once), while the calls already out
 * get until then for Redis to come back, which a Redis starved of CPU for a moment does.
 */
const PATIENCE = 1.6;

/** CONFIRM_TURNS is how many more turns of the event loop a silence must last to mean "stopped". */
const CONFIRM_TURNS = 2;

const COMPACT_AT = 1024;

export class Remote {
  readonly #send: Send;
  readonly #timeoutMs: number;
  readonly #probeIntervalMs: number;
  readonly #clock = new ServerClock();
  #queue: (Attempt | undefined)[] = [];
  #head = 0;
  /** lastAnswer starts the silence that means "stopped": the last answer, or when listening resumed. */
  #lastAnswer = 0;
  /** lastReply is the last answer, for telling a stalled Redis from an overdue call. */
  #lastReply = 0;
  #dueAt = 0;
  /** confirming counts the extra turns a suspected stall has been watched (see sweep). */
  #confirming = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #down = false;
  #probing = false;
  #nextProbeAt = 0;
  #lastDeadline = 0;
  #lastDeadlineText = '0';

  constructor(send: Send, timeoutMs: number, probeIntervalMs: number) {
    this.#send = send;
    this.#timeoutMs = timeoutMs;
    this.#probeIntervalMs = probeIntervalMs;
  }

  /**
   * eval runs a script: `command` is ['EVALSHA', sha, numkeys, ...keys, ...args, deadline], the last
   * argument a placeholder this sets on every send. `outcome` runs once, when the call settles.
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
      const issuedAt = performance.now();
      const call: Call = {
        issuedAt,
        probe,
        command,
        firstKey,
        script,
        deadlined: script !== undefined,
        current: undefined,
        expired: 0,
        outcome,
        resolve: resolve as (value: unknown) => void,
        settled: false,
      };
      this.#attempt(call, issuedAt);
    });
  }

  /** attempt sends `call` (again), with a fresh deadline, at the back of the FIFO; `sentAt` is now. */
  #attempt(call: Call, sentAt: number): void {
    this.#dropDone();
    if (this.#head === this.#queue.length) this.#lastAnswer = this.#lastReply = sentAt;
    const budget = call.expired === 0 ? this.#timeoutMs : this.#timeoutMs * 2 ** Math.min(call.expired, MAX_DOUBLINGS);
    const deadline = call.deadlined ? this.#clock.deadline(sentAt, budget) : 0;
    const attempt: Attempt = { call, sentAt, safeAt: sentAt + budget, dated: deadline > 0 };
    call.current = attempt;
    this.#queue.push(attempt);
    if (call.deadlined) call.command[call.command.length - 1] = this.#deadlineText(deadline);
    if (this.#timer === undefined) this.#arm(this.#down ? attempt.safeAt : this.#lastAnswer + this.#timeoutMs, sentAt);
    this.#sendSafely(call.command, call.firstKey).then(
      (reply) => this.#answered(attempt, reply),
      (error: unknown) => {
        if (call.current !== attempt || call.settled) return;
        if (failureOf(error).reason === 'reply') this.#lastAnswer = this.#lastReply = performance.now();
        if (call.script === undefined || !isNoScript(error)) return this.#settle(call, failureOf(error));
        call.command = call.command.slice();
        call.command[0] = 'EVAL';
        call.command[1] = call.script.source;
        call.script = undefined;
        this.#attempt(call, performance.now());
      },
    );
  }

  /** deadlineText is String(deadline), kept for the calls sent in the same millisecond. */
  #deadlineText(deadline: number): string {
    if (deadline !== this.#lastDeadline) {
      this.#lastDeadline = deadline;
      this.#lastDeadlineText = String(deadline);
    }
    return this.#lastDeadlineText;
  }

  #answered(attempt: Attempt, reply: unknown): void {
    const { call } = attempt;
    const now = performance.now();
    this.#lastAnswer = this.#lastReply = now;
    if (call.current !== attempt || call.settled) return;
    if (!call.deadlined || typeof reply !== 'number' || reply > 0) return this.#settle(call, reply);
    // Expired: Redis is answering and did nothing. Learn its clock, close the breaker, send again.
    this.#clock.sample(-reply, now);
    if (attempt.dated) call.expired++;
    this.#dropDone();
    call.command = call.command.slice(); // the client may still hold the array it was given
    this.#down = false;
    if (call.probe) this.#probing = call.probe = false;
    this.#attempt(call, now);
  }

  /** sendSafely turns a client that throws synchronously into a rejected promise. */
  #sendSafely(command: string[], firstKey: string): Promise<unknown> {
    try {
      return this.#send(command, firstKey);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #settle(call: Call, ended: unknown): void {
    if (call.settled) return;
    call.settled = true;
    call.current = undefined;
    if (call.probe) this.#probing = false;
    if (ended instanceof Failure && ended.breaksConnection) {
      this.#trip(performance.now());
    } else {
      this.#down = false;
    }
    const { outcome, resolve } = call;
    call.outcome = call.resolve = undefined;
    this.#dropDone();
    (resolve as (value: unknown) => void)((outcome as Outcome<unknown>)(ended));
  }

  /** dropDone forgets the attempts at the head of the FIFO that are no longer awaited. */
  #dropDone(): void {
    const queue = this.#queue;
    let head = this.#head;
    while (head < queue.length && (queue[head] as Attempt).call.current !== queue[head]) queue[head++] = undefined;
    if (head === queue.length) {
      queue.length = 0;
      head = 0;
    } else if (head >= COMPACT_AT && 2 * head >= queue.length) {
      this.#queue = queue.slice(head);
      head = 0;
    }
    this.#head = head;
  }

  /** arm sets the timer for local instant `at` (at least 1 ms from `now`). */
  #arm(at: number, now: number): void {
    this.#dueAt = at;
    this.#timer = setTimeout(this.#onTimer, Math.max(1, Math.ceil(at - now)));
  }

  readonly #onTimer = (): void => {
    setImmediate(this.#sweep);
  };

  /**
   * sweep fails calls once Redis has answered nothing for timeoutMs (then every outstanding call, each
   * once its own deadline has certainly passed), or when the oldest call waited too long.
   */
  readonly #sweep = (): void => {
    this.#timer = undefined;
    this.#dropDone();
    const now = performance.now();
    // A timer that fires late means this process was not listening (a long synchronous burst of
    // sends, a GC pause, a starved CPU): the silence that counts starts now, not before.
    if (now - this.#dueAt > this.#timeoutMs / 2) this.#lastAnswer = now;
    const head = this.#queue[this.#head];
    if (head === undefined) return;
    if (this.#down) return this.#failAll(now);
    if (now - this.#lastAnswer >= this.#timeoutMs) {
      // Confirm over two more turns of the event loop (each polls the sockets, and lets a client that
      // writes on setImmediate, as node-redis does, send what it holds) before calling Redis stopped.
      if (this.#confirming < CONFIRM_TURNS) {
        this.#confirming++;
        this.#timer = setTimeout(this.#onTimer, 0);
        return;
      }
      this.#confirming = 0;
      this.#trip(now);
      return this.#failAll(now);
    }
    this.#confirming = 0;
    const overdueAt = head.call.issuedAt + MAX_WAIT_FACTOR * this.#timeoutMs;
    if (overdueAt <= now && head.safeAt <= now) {
      this.#settle(head.call, now - this.#lastReply >= this.#timeoutMs ? TIMEOUT : OVERDUE);
      return this.#sweep();
    }
    const at = Math.min(this.#lastAnswer + this.#timeoutMs, overdueAt);
    this.#arm(at > now ? at : head.safeAt, now);
  };

  /** trip opens the breaker: calls are decided by policy at once until Redis answers again. */
  #trip(now: number): void {
    if (!this.#down) this.#clock.forget();
    this.#down = true;
    this.#nextProbeAt = now + this.#probeIntervalMs;
  }

  /** failAll fails every outstanding call whose deadline has certainly passed, and waits for the rest. */
  #failAll(now: number): void {
    const due: Call[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (let i = this.#head; i < this.#queue.length; i++) {
      const attempt = this.#queue[i];
      if (attempt === undefined || attempt.call.current !== attempt) continue;
      const failAt = Math.max(attempt.safeAt, attempt.sentAt + PATIENCE * this.#timeoutMs);
      if (failAt <= now) due.push(attempt.call);
      else if (failAt < next) next = failAt;
    }
    for (const call of due) this.#settle(call, TIMEOUT);
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next, now);
  }
}
