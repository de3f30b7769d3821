/**
 * Remote: every call a remote store makes to its server goes through here, and here alone it is
 * bounded. The store describes each call as a Request (how to put it on the wire with a deadline);
 * what the server is (Redis, PostgreSQL, MySQL, a Durable Object) is the store's business.
 *
 * - Liveness, not age: a server working through a queue, however slowly, is not failing. It counts as
 *   stopped only when it has answered nothing at all for `timeoutMs` of listening while calls are
 *   outstanding (a stopped, hung or unreachable server): the breaker opens, and each outstanding call
 *   fails once its deadline has certainly passed (below). A call also fails when it has waited
 *   MAX_WAIT_FACTOR × timeoutMs in all (one stalled node of a cluster among answering ones; this one
 *   does not open the breaker).
 *   A store whose call takes several round trips tells of the server's answers along the way (`alive`):
 *   a transaction that keeps being cut short after its first statement is a server that answers.
 * - Listening, not wall time: a process whose own event loop was busy (handlers burning CPU, a GC
 *   pause, a cold start compiling code) can neither read replies that arrive meanwhile nor send what
 *   its client holds (node-redis writes on setImmediate). While calls are outstanding a watch timer
 *   ticks every timeoutMs / 10 (at most 100 ms), and the verdict is taken on setImmediate after it, in
 *   the check phase, once the poll phase has read what the sockets hold. Every moment this process
 *   was working rather than waiting is taken off the silence: how late a tick fired, and the whole
 *   of the turn from a tick to its verdict (the poll phase runs with a zero timeout then, so that turn
 *   never waits: it is callbacks, promise reactions and handlers). A silence must then last through
 *   CONFIRM_TURNS more turns, each measured the same way, before the server counts as stopped.
 * - A cold start is not an outage: until this Remote's first answer (connecting, loading scripts,
 *   learning the server's clock, a server still loading its data), a silence of timeoutMs fails only
 *   the calls whose own deadline has passed, and later calls still go out; the breaker opens only
 *   once the silence has lasted COLD_FACTOR × timeoutMs (a server that is truly absent at startup).
 *   A rejection by the client (closed, refused) opens it at any time: that is the connection failing.
 * - Never decided twice: each decision request carries a deadline (see ./server-clock.ts) that the
 *   server's clock certainly passes timeoutMs after the send; a request starting later changes nothing
 *   and answers 'expired' (with its server time: `expiredAt`). A call is failed, and so decided
 *   locally, only once its deadline has certainly passed. An 'expired' answer proves the server is
 *   answering and did nothing, so the call is sent again with a new deadline: a long queue costs time,
 *   never a fallback decision. Plain requests (a reset) carry no deadline.
 * - An outage that announces itself is not waited for: when the client says its connection is gone
 *   (`lost`: refused, closed, reset; an event, not a silence) the breaker opens at once, on a cold
 *   start too, and every outstanding decision whose request carried no deadline from a clock sample
 *   fails at once (the server would answer it 'expired': it can change nothing); one that carried a
 *   real deadline keeps it. A slow server that says nothing of the kind is still waited for.
 * - Breaker: after a timeout or connection failure, calls are not sent (Failure 'unavailable', decided
 *   at once by policy). With a store's `probe` (a request that changes nothing: PING, SELECT 1) the
 *   server is asked in the background, one probe at a time, no sooner than `probeIntervalMs` after
 *   the last failure (or at once when the client says it is connected again: `found`), and no user's
 *   call is ever sent while the breaker is open; without one, a user's call is the probe. Any answer,
 *   an error or 'expired' included, closes the breaker, and then runs the callbacks given to
 *   `onRecover` (work that waited for the server, such as lease releases).
 * - Every call resolves (never rejects) with `outcome` of the reply or of a Failure; late replies are
 *   swallowed.
 *
 * So, with a timeoutMs of 1,000: a call waits for the server as long as it keeps answering; when it
 * stops, every waiting call is decided by policy about timeoutMs after its last answer (later only by
 * the time this process itself was too busy to listen), and new calls at once.
 *
 * It runs wherever core runs: setImmediate where the runtime has it (else a zero timeout), and timers
 * without refresh() or unref() (Workers) are replaced instead of refreshed.
 */
import { Failure, OVERDUE, TIMEOUT, UNAVAILABLE } from './failure.js';
import { ServerClock } from './server-clock.js';

/** Interpret maps what a call ended with (the reply, or a Failure) to what the caller gets; it must not throw. */
export type Interpret<T> = (replyOrFailure: unknown) => T;

/** Request is one call as its store puts it on the wire. */
export interface Request {
  /** deadlined: the request carries a deadline the server checks before changing anything (a decision). */
  readonly deadlined: boolean;
  /**
   * send puts the request on the wire carrying `deadline` (server epoch ms; 0 while no sample of the
   * server's clock is known: the server then answers 'expired' at once) and answers the reply. `again`
   * is true from the second attempt on (a client may still hold what the first attempt sent).
   */
  send(deadline: number, again: boolean): Promise<unknown>;
  /** retry: an error reply this request answers by sending itself once more (Redis's NOSCRIPT). */
  retry?(error: unknown): boolean;
}

export interface RemoteOptions {
  readonly timeoutMs: number;
  readonly probeIntervalMs: number;
  /** failureOf classifies a rejected send: an error reply ('reply') or a failed connection ('connection'). */
  failureOf(error: unknown): Failure;
  /** expiredAt reads a deadlined request's 'expired' answer: the server time it carries, else undefined. */
  expiredAt(reply: unknown): number | undefined;
  /** probe makes the breaker's background probe, a request that changes nothing (PING); without it a user's call probes. */
  probe?(): Request;
}

/** MAX_WAIT_FACTOR × timeoutMs is the longest a call waits even while the server keeps answering others. */
export const MAX_WAIT_FACTOR = 10;

interface Call {
  readonly issuedAt: number;
  readonly request: Request;
  probe: boolean;
  /** The attempt now on the wire (see Attempt): a reply to an older one is ignored. */
  current: Attempt | undefined;
  /** attempts sent so far; expired counts those refused as past a real deadline (each doubles the next budget). */
  attempts: number;
  expired: number;
  interpret: Interpret<unknown> | undefined;
  resolve: ((value: unknown) => void) | undefined;
  finished: boolean;
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

/** The watch timer ticks every timeoutMs / TICKS_PER_TIMEOUT ms, and at least every MAX_TICK_MS. */
const TICKS_PER_TIMEOUT = 10;
const MAX_TICK_MS = 100;

/** Before the server has ever answered, only a silence of COLD_FACTOR × timeoutMs opens the breaker. */
const COLD_FACTOR = 3;

/** CONFIRM_TURNS is how many more turns of the event loop a silence must last to mean "stopped". */
const CONFIRM_TURNS = 2;

const COMPACT_AT = 1024;

type Timer = ReturnType<typeof setTimeout>;

/** nextTurn runs `callback` in the check phase after this turn's poll (setImmediate), or as soon as the runtime can. */
const nextTurn: (callback: () => void) => unknown = typeof setImmediate === 'function' ? setImmediate : (callback) => setTimeout(callback, 0);

export class Remote {
  readonly #options: RemoteOptions;
  readonly #timeoutMs: number;
  readonly #clock = new ServerClock();
  #queue: (Attempt | undefined)[] = [];
  #head = 0;
  /**
   * silentSince starts the silence that means "stopped": the last answer, moved later by every moment
   * this process was too busy to listen (see the watch).
   */
  #silentSince = 0;
  /** lastReply is the last answer, for telling a stalled server from an overdue call. */
  #lastReply = 0;
  /** heardOnce: the server has answered this Remote at least once (before that, see COLD_FACTOR). */
  #heardOnce = false;
  readonly #tickMs: number;
  /** The watch timer, re-armed with refresh() while its delay (timerMs) stays; dueAt is when its tick is due. */
  #timer: Timer | undefined;
  #timerMs = 0;
  #armed = false;
  #dueAt = 0;
  /** turnAt: when the last tick or verdict ran; the work until the next verdict is this process's own. */
  #turnAt = 0;
  /** confirming counts the extra turns a suspected stall has been watched (see sweep). */
  #confirming = 0;
  #down = false;
  #probing = false;
  #nextProbeAt = 0;
  /** When the background probe now awaited was sent (one silent for MAX_WAIT_FACTOR × timeoutMs, lost, does not stop the next). */
  #probeSentAt = 0;
  readonly #recovered: (() => void)[] = [];
  #first: (() => void) | undefined;

  constructor(options: RemoteOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs;
    this.#tickMs = Math.max(1, Math.min(MAX_TICK_MS, Math.floor(options.timeoutMs / TICKS_PER_TIMEOUT)));
  }

  /** heard tells whether the server has ever answered this Remote (a store's warning then says "never connected" no more). */
  get heard(): boolean {
    return this.#heardOnce;
  }

  /** down tells whether the breaker is open (the server failed and has not answered since). */
  get down(): boolean {
    return this.#down;
  }

  /**
   * alive records that the server answered something outside a reply, while a call is still on its way
   * (a store's transaction whose first statement was answered, an error the server itself sent when it
   * ended a connection): the server is working, so the silence starts again. It changes no call's
   * bound (MAX_WAIT_FACTOR × timeoutMs) and does not close the breaker: only a reply does.
   */
  alive(): void {
    this.#heard(performance.now());
  }

  /**
   * lost records that the client says its connection is gone (refused, closed, reset): the breaker opens
   * at once, a cold start included, and each outstanding decision that carried no deadline from a clock
   * sample fails at once (it can change nothing); calls that carried one keep their deadline.
   */
  lost(error?: unknown): void {
    const now = performance.now();
    this.#trip(now);
    const failure = new Failure('connection', error);
    for (let i = this.#head; i < this.#queue.length; i++) {
      const attempt = this.#queue[i];
      if (attempt !== undefined && attempt.call.current === attempt && attempt.call.request.deadlined && !attempt.dated) this.#finish(attempt.call, failure);
    }
    this.#dropDone();
    this.#probe(now, true);
  }

  /** found records that the client says it is connected again: while the breaker is open, the server is probed now. */
  found(): void {
    this.#probe(performance.now(), true);
  }

  /** onFirstCall runs `callback` once, at this Remote's first call. */
  onFirstCall(callback: () => void): void {
    this.#first = callback;
  }

  /** onRecover runs `callback` each time the breaker closes (the server answered again after a failure). */
  onRecover(callback: () => void): void {
    this.#recovered.push(callback);
  }

  /** run sends `request` and resolves, never rejects, with `interpret` of its reply or of a Failure. */
  run<T>(request: Request, interpret: Interpret<T>): Promise<T> {
    if (this.#first !== undefined) this.#takeFirst();
    const probe = this.#down;
    if (probe && this.#options.probe !== undefined) {
      this.#probe(performance.now(), false);
      return Promise.resolve(interpret(UNAVAILABLE));
    }
    if (probe && (this.#probing || performance.now() < this.#nextProbeAt)) return Promise.resolve(interpret(UNAVAILABLE));
    if (probe) this.#probing = true;
    return new Promise<T>((resolve) => {
      const issuedAt = performance.now();
      const call: Call = {
        issuedAt,
        request,
        probe,
        current: undefined,
        attempts: 0,
        expired: 0,
        interpret,
        resolve: resolve as (value: unknown) => void,
        finished: false,
      };
      this.#attempt(call, issuedAt);
    });
  }

  #takeFirst(): void {
    const first = this.#first as () => void;
    this.#first = undefined;
    first();
  }

  /** attempt sends `call` (again), with a fresh deadline, at the back of the FIFO; `sentAt` is now. */
  #attempt(call: Call, sentAt: number): void {
    this.#dropDone();
    if (this.#head === this.#queue.length) this.#silentSince = this.#lastReply = sentAt;
    const budget = call.expired === 0 ? this.#timeoutMs : this.#timeoutMs * 2 ** Math.min(call.expired, MAX_DOUBLINGS);
    const { request } = call;
    const deadline = request.deadlined ? this.#clock.deadline(sentAt, budget) : 0;
    const attempt: Attempt = { call, sentAt, safeAt: sentAt + budget, dated: deadline > 0 };
    call.current = attempt;
    this.#queue.push(attempt);
    if (!this.#armed) this.#arm(sentAt);
    this.#sendSafely(request, deadline, call.attempts++ > 0).then(
      (reply) => this.#answered(attempt, reply),
      (error: unknown) => {
        if (call.current !== attempt || call.finished) return;
        const failure = this.#options.failureOf(error);
        if (failure.reason === 'reply') this.#heard(performance.now());
        if (failure.reason === 'reply' && request.retry?.(error) === true) return this.#attempt(call, performance.now());
        this.#finish(call, failure);
      },
    );
  }

  #answered(attempt: Attempt, reply: unknown): void {
    const { call } = attempt;
    const now = performance.now();
    this.#heard(now);
    if (call.current !== attempt || call.finished) return;
    const serverMs = call.request.deadlined ? this.#options.expiredAt(reply) : undefined;
    if (serverMs === undefined) return this.#finish(call, reply);
    // Expired: the server is answering and did nothing. Learn its clock, close the breaker, send again.
    this.#clock.sample(serverMs, now);
    if (attempt.dated) call.expired++;
    this.#dropDone();
    if (call.probe) this.#probing = call.probe = false;
    this.#up();
    this.#attempt(call, now);
  }

  /** heard records an answer at `now`: the silence starts again. */
  #heard(now: number): void {
    this.#silentSince = this.#lastReply = now;
    this.#heardOnce = true;
  }

  /** up closes the breaker and, if it was open, runs the recovery callbacks. */
  #up(): void {
    if (!this.#down) return;
    this.#down = false;
    for (const callback of this.#recovered) callback();
  }

  /** sendSafely turns a client that throws synchronously into a rejected promise. */
  #sendSafely(request: Request, deadline: number, again: boolean): Promise<unknown> {
    try {
      return request.send(deadline, again);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #finish(call: Call, ended: unknown): void {
    if (call.finished) return;
    call.finished = true;
    call.current = undefined;
    if (call.probe) this.#probing = false;
    const failure = ended instanceof Failure ? ended : undefined;
    if (failure?.breaksConnection === true) this.#trip(performance.now());
    const { interpret, resolve } = call;
    call.interpret = call.resolve = undefined;
    this.#dropDone();
    (resolve as (value: unknown) => void)((interpret as Interpret<unknown>)(ended));
    // A reply, or an error reply, is the server answering.
    if (failure === undefined || failure.reason === 'reply') this.#up();
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

  /**
   * arm starts the watch: its next tick is due #tickMs after `now`, or sooner when the silence reaches
   * timeoutMs before that (so the verdict is not a tick late).
   */
  #arm(now: number): void {
    this.#armed = true;
    const untilSilent = Math.ceil(this.#silentSince + this.#timeoutMs - now);
    const delay = untilSilent > 0 && untilSilent < this.#tickMs ? untilSilent : this.#tickMs;
    this.#dueAt = now + delay;
    const timer = this.#timer as { refresh?: () => unknown } | undefined;
    if (timer !== undefined && this.#timerMs === delay && typeof timer.refresh === 'function') return void timer.refresh();
    clearTimeout(this.#timer);
    this.#timerMs = delay;
    this.#timer = setTimeout(this.#onTick, delay);
  }

  /**
   * onTick runs in the timers phase, before this turn's poll has read the sockets: it only takes the
   * process's own lateness off the silence, and leaves the verdict to the sweep after the poll.
   */
  readonly #onTick = (): void => {
    const now = performance.now();
    if (now > this.#dueAt) this.#silentSince += now - this.#dueAt;
    this.#turnAt = now;
    nextTurn(this.#sweep);
  };

  /**
   * sweep fails calls once the server has answered nothing for timeoutMs of listening (then every
   * outstanding call, each once its own deadline has certainly passed), or when the oldest call waited
   * too long; while calls remain, it re-arms the watch.
   */
  readonly #sweep = (): void => {
    this.#armed = false;
    this.#dropDone();
    const now = performance.now();
    this.#silentSince += now - this.#turnAt;
    if (this.#silentSince > now) this.#silentSince = now;
    const head = this.#queue[this.#head];
    if (head === undefined) return;
    if (this.#down) return this.#failDue(now);
    const silence = now - this.#silentSince;
    if (silence >= this.#timeoutMs) {
      // Confirm over more turns of the event loop (each polls the sockets, and lets a client that
      // writes on setImmediate, as node-redis does, send what it holds) before calling the server stopped.
      if (this.#confirming < CONFIRM_TURNS) {
        this.#confirming++;
        this.#armed = true;
        this.#turnAt = now;
        nextTurn(this.#sweep);
        return;
      }
      this.#confirming = 0;
      // Before the server has ever answered, a silence is a slow start, not an outage: only due calls fail.
      if (this.#heardOnce || silence >= COLD_FACTOR * this.#timeoutMs) this.#trip(now);
      return this.#failDue(now);
    }
    this.#confirming = 0;
    if (head.call.issuedAt + MAX_WAIT_FACTOR * this.#timeoutMs <= now && head.safeAt <= now) {
      this.#finish(head.call, now - this.#lastReply >= this.#timeoutMs ? TIMEOUT : OVERDUE);
      return this.#sweep();
    }
    this.#arm(now);
  };

  /**
   * probe sends the store's background probe while the breaker is open: one at a time (unless the one
   * awaited has been silent for MAX_WAIT_FACTOR × timeoutMs: lost), no sooner than probeIntervalMs after the last failure unless
   * `now` is forced (the client connected). An answer, an error reply included, closes the breaker.
   */
  #probe(now: number, force: boolean): void {
    const make = this.#options.probe;
    if (make === undefined || !this.#down) return;
    if (this.#probing && now - this.#probeSentAt < MAX_WAIT_FACTOR * this.#timeoutMs) return;
    if (!force && now < this.#nextProbeAt) return;
    this.#probing = true;
    this.#probeSentAt = now;
    const answered = (): void => {
      this.#probing = false;
      this.#heard(performance.now());
      this.#up();
    };
    this.#sendSafely(make(), 0, false).then(answered, (error: unknown) => {
      if (this.#options.failureOf(error).reason === 'reply') return answered();
      if (this.#probeSentAt === now) this.#probing = false;
      this.#nextProbeAt = Math.max(this.#nextProbeAt, performance.now() + this.#options.probeIntervalMs);
    });
  }

  /** trip opens the breaker: calls are decided by policy at once until the server answers again. */
  #trip(now: number): void {
    if (!this.#down) this.#clock.forget();
    this.#down = true;
    this.#nextProbeAt = now + this.#options.probeIntervalMs;
  }

  /**
   * failDue fails every outstanding call whose deadline has certainly passed, and watches on while
   * others wait; a call failed by a silence before the server ever answered does not open the breaker.
   */
  #failDue(now: number): void {
    const due: Call[] = [];
    for (let i = this.#head; i < this.#queue.length; i++) {
      const attempt = this.#queue[i];
      if (attempt === undefined || attempt.call.current !== attempt) continue;
      if (attempt.safeAt <= now) due.push(attempt.call);
    }
    const failure = this.#down ? TIMEOUT : OVERDUE;
    for (const call of due) this.#finish(call, failure);
    this.#dropDone();
    if (this.#head < this.#queue.length) this.#arm(now);
  }
}
