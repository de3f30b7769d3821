/**
 * Batcher: decisions that are pending at the same moment on the same Redis node go to Redis together,
 * as one call of the batch script (../lua/batch-script.ts), which decides them in the order they were
 * asked, atomically, exactly as if each had been its own EVALSHA back to back. A decision is a call
 * of a group of policies: one policy for a limiter's decision, the members of a composite (all or
 * nothing) for a CompositeLimiter's.
 *
 * When. A call made while nothing is on the wire goes at once, with its own script, as an unbatched
 * store would send it: a lone request waits for no one. So does every call of a process that has had
 * fewer than SOLO_BELOW calls outstanding lately (the level below, which a burst raises at once):
 * there each round trip would wait on a batch of a few calls, with Redis and the process taking turns,
 * and one call each keeps both busy (the README's benchmark by calls in flight: batching pays from
 * about 15). Otherwise it is queued; the queue is sent at
 * the end of the current turn of the event loop (setImmediate, so every request whose bytes arrived in
 * this turn joins), or at once when it reaches its cap (see "Why the cap"); a queue of one goes as a
 * single call. Redis sees the calls in the order they were made either way. A cost too large for the
 * batch layout's one integer per call (above 2^53 / maxSize, far beyond any real cost) goes alone,
 * after the queue.
 *
 * Where. On a single node every call joins one queue. On a Redis Cluster a script may only touch keys
 * of one hash slot, so calls are queued per slot (CRC16 of the key's hash tag, which for ratekeeper's
 * keys is the encoded user key, shared by a composite's members): calls for one key batch together,
 * calls for other keys go apart.
 *
 * Why the cap. A script blocks Redis while it runs, and one decision costs the server a few
 * microseconds: `maxSize` (default 64) bounds the pause any batch imposes on every other client to a
 * few hundred microseconds, while the per-call overhead a batch saves (the EVALSHA, its parsing and
 * the reply round trip) is already amortised to a few percent at that size (see the README's
 * benchmark: decisions per second level off well before 64 calls per batch). Below `maxSize`, a
 * queue goes at once when it reaches half of the calls this process has had outstanding lately (the
 * peak, which fades by 1/64 at each answer; never below MIN_SPLIT; maxSize until the first answer,
 * so a first burst goes in full batches): one batch holding every pending call makes the process and
 * Redis take turns, Redis idle while the process reads the reply and makes the next calls, the
 * process idle while Redis runs the batch. With two or more batches on the wire, Redis runs one while
 * the process handles another's reply (the README's benchmark gives the figures by calls in flight).
 *
 * How many. At most MAX_IN_FLIGHT sends of one process (batches, and calls gone alone) are on the wire
 * while batches wait; calls going alone because the process has been quiet are never held (fewer than
 * SOLO_BELOW at once, by definition). The batches made beyond that wait here, in order (on a single node merged up to maxSize, so that a burst after a
 * quiet spell, when the cap is small, still waits in full batches), and each answer sends the next.
 * Redis runs every command it has read from its clients before it writes any reply, so a process that
 * put its whole burst on the wire at once (2,000 calls: 32 batches) would have Redis work through all
 * of them, and every other client's, before anyone hears back: under a burst from several processes
 * that silence reached the store's liveness timeout (50 ms) with the sliding log, and healthy Redis was
 * taken for a stopped one.
 * Holding back bounds what one process gives Redis per answer to MAX_IN_FLIGHT × maxSize decisions
 * while keeping the wire busy. A call that bypasses the batches (reset, refund) flushes them all first.
 *
 * Denials learnt while waiting. A consume that waited (queued or held) is asked of the store's deny
 * cache (./deny-cache.ts) again as its batch goes: a denial of its key and cost that arrived meanwhile
 * answers it here, with no round trip, exactly as it would have answered the call had it been made
 * now (the cache's contract: Redis, running it at any instant until the denial's end, would deny it
 * too). A burst on one hot key then costs Redis the calls on the wire before the first denial came
 * back, not the whole burst.
 *
 * Failures. A batch is one remote call: a timeout or a lost connection fails each of its calls, which
 * the store then decides by its failure policy one by one, as it would have unbatched. A corrupt key
 * fails only its own call (the script answers 'RKCORRUPT' in its place).
 */
import { Failure } from '@ratekeeper/core/store';
import { batchScript } from '../lua/batch-script.js';
import type { Script } from '../lua/scripts.js';
import type { DenyCache } from './deny-cache.js';
import type { Interpret, RedisRemote } from './remote.js';

export const DEFAULT_MAX_BATCH = 64;

/** MAX_IN_FLIGHT bounds the batches one process has on the wire at once (see "How many"). */
export const MAX_IN_FLIGHT = 4;

/** MIN_SPLIT is the size a queue may always reach before the half-of-outstanding cap applies. */
const MIN_SPLIT = 8;

/** SOLO_BELOW: while the process has had fewer calls outstanding than this lately, each call goes alone (see "When"). */
export const SOLO_BELOW = 16;

/**
 * Group: the policies one call decides, made once per limiter (or per composite's prepared members). `spec` is its
 * entry in the batch script's group table ([m, code, first, second, …]); `script` and `command` are
 * what the call sends when it goes alone, whose reply shape the call's interpret reads (a single
 * script's for one member, a composite script's for several).
 */
export interface Group {
  readonly size: number;
  readonly spec: readonly string[];
  readonly script: Script;
  command(keys: string | readonly string[], now: number, signed: string): string[];
  /** Bookkeeping of #send: the batch this group was last numbered in, and its number there. */
  sentIn: number;
  index: number;
}

interface Call {
  /** One key for a single decision, the members' keys for a composite. */
  readonly keys: string | readonly string[];
  readonly firstKey: string;
  readonly group: Group;
  readonly cost: number;
  readonly commit: boolean;
  readonly now: number;
  readonly interpret: Interpret<unknown>;
  /** The deny cache's key for a consume the cache may answer (its answer is the call's value), else undefined. */
  readonly cached: string | undefined;
  resolve: (value: unknown) => void;
}

/** slotOf is the Redis Cluster slot of a key, or undefined on a single node (every key one queue). */
export type SlotOf = ((key: string) => number) | undefined;

/**
 * capture is the one executor of every call's promise: it hands the promise's resolve to `captured`,
 * read right after construction (the executor runs synchronously), so a call allocates no closure.
 */
let captured: (value: unknown) => void = () => {};
const capture = (resolve: (value: never) => void): void => {
  captured = resolve as (value: unknown) => void;
};

const CORRUPT = new Failure('reply', new Error('RKCORRUPT the key holds a value ratekeeper did not write'));
const SHAPE = new Failure('reply', new TypeError('RedisStore: the batch reply has an unexpected shape'));

export class Batcher {
  readonly #remote: RedisRemote;
  readonly #maxSize: number;
  /** The largest cost whose (cost - 1)·G + g stays a safe integer for any G ≤ maxSize. */
  readonly #maxCost: number;
  readonly #slotOf: SlotOf;
  readonly #clientTime: boolean;
  readonly #denyCache: DenyCache | undefined;
  readonly #script: Script;
  readonly #queues = new Map<number, Call[]>();
  #scheduled = false;
  #sends = 0;
  /** Calls and batches sent and not yet answered. */
  #inFlight = 0;
  /** Calls submitted and not yet answered: queued, held or on the wire. */
  #outstanding = 0;
  /** The most calls outstanding lately (raised at once by a submit, fading at each answer): the process's concurrency. */
  #level = 0;
  /** The size at which a queue goes at once: half the level, at least MIN_SPLIT, at most maxSize. */
  #cap: number;
  /** Batches made while MAX_IN_FLIGHT were on the wire, oldest first: each answer sends the next. */
  readonly #held: Call[][] = [];
  /** batches and batched count the multi-call batches sent and the calls they carried. */
  batches = 0;
  batched = 0;

  constructor(remote: RedisRemote, clientTime: boolean, maxSize: number, slotOf: SlotOf, denyCache?: DenyCache) {
    this.#remote = remote;
    this.#denyCache = denyCache;
    this.#maxSize = maxSize;
    this.#maxCost = Math.floor(Number.MAX_SAFE_INTEGER / maxSize);
    this.#slotOf = slotOf;
    this.#cap = maxSize; // until an answer tells how many calls this process keeps outstanding
    this.#clientTime = clientTime;
    this.#script = batchScript(clientTime);
  }

  /**
   * submit queues one decision of `group` on `keys` (the first one, `firstKey`, places it on a
   * cluster). Resolves to `interpret` of its reply, in the shape its own script would answer, or of a
   * Failure; a consume with `cached` (its deny-cache key) that waits may resolve to the cache's answer
   * instead (see "Denials learnt while waiting").
   */
  submit<T>(keys: string | readonly string[], firstKey: string, group: Group, cost: number, commit: boolean, now: number, interpret: Interpret<T>, cached?: string): Promise<T> {
    const promise = new Promise<T>(capture);
    const call: Call = { keys, firstKey, group, cost, commit, now, interpret: interpret as Interpret<unknown>, cached, resolve: captured };
    if (++this.#outstanding > this.#level) this.#level = this.#outstanding;
    // Nothing queued or held, and nothing on the wire or few calls lately: the call goes alone, at once.
    const alone = this.#queues.size === 0 && this.#held.length === 0 && (this.#inFlight === 0 || this.#level < SOLO_BELOW);
    if (alone || cost > this.#maxCost) {
      // A huge cost goes after the queue.
      if (!alone) this.flush();
      this.#send([call], true);
      return promise;
    }
    const slot = this.#slotOf === undefined ? 0 : this.#slotOf(firstKey);
    let queue = this.#queues.get(slot);
    if (queue === undefined) this.#queues.set(slot, (queue = []));
    queue.push(call);
    if (queue.length >= this.#cap) {
      this.#queues.delete(slot);
      this.#send(queue);
    } else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#flush);
    }
    return promise;
  }

  /** answered passes a single call's answer through, counting its send as answered. */
  readonly #answered = <T>(value: T): T => {
    this.#observe();
    this.#outstanding--;
    this.#done();
    return value;
  };

  /** observe sets the cap from the level at an answer, and lets the level fade. */
  #observe(): void {
    this.#cap = Math.min(this.#maxSize, Math.max(MIN_SPLIT, Math.ceil(this.#level / 2)));
    this.#level -= this.#level / 64;
  }

  /**
   * done counts one send as answered and sends the oldest held batch, if any: on a microtask, since
   * the answer arrives inside Remote's settling of the call, which must not be re-entered.
   */
  #done(): void {
    this.#inFlight--;
    if (this.#held.length > 0) queueMicrotask(this.#release);
  }

  readonly #release = (): void => {
    // Up to MAX_IN_FLIGHT sends (calls gone alone count: a burst's first calls go so); a held batch the
    // deny cache answers in full sends nothing, and the next one goes in its place.
    while (this.#held.length > 0 && this.#inFlight < MAX_IN_FLIGHT) this.#send(this.#held.shift() as Call[], true);
  };

  /**
   * flush sends every held and queued call now. A call that bypasses the queue (a reset's DEL, a
   * refund) flushes first, so that Redis sees this process's calls in the order they were made.
   */
  flush(): void {
    while (this.#held.length > 0) this.#send(this.#held.shift() as Call[], true);
    // The queue goes now too: held back behind the batches just sent, it would reach Redis after the
    // call that flushed it.
    if (this.#queues.size > 0) this.#sendQueues(true);
  }

  readonly #flush = (): void => this.#sendQueues(false);

  #sendQueues(now: boolean): void {
    this.#scheduled = false;
    const queues = [...this.#queues.values()];
    this.#queues.clear();
    for (const queue of queues) this.#send(queue, now);
  }

  /** joinable: `calls` may share a batch (not a lone call whose cost is too large for the batch layout). */
  #joinable(calls: readonly Call[]): boolean {
    return calls.length > 1 || (calls[0] as Call).cost <= this.#maxCost;
  }

  /**
   * answeredHere resolves the calls of `calls` the deny cache answers now and answers the rest (`calls`
   * itself when the cache answers none).
   */
  #answeredHere(calls: Call[]): Call[] {
    const cache = this.#denyCache as DenyCache;
    let rest: Call[] | undefined;
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i] as Call;
      const answer = call.cached === undefined ? undefined : cache.answer(call.cached, call.cost, this.#clientTime ? call.now : performance.now());
      if (answer === undefined) {
        rest?.push(call);
        continue;
      }
      rest ??= calls.slice(0, i);
      this.#outstanding--;
      call.resolve(answer);
    }
    return rest ?? calls;
  }

  /**
   * send puts `calls` on the wire, or holds them while MAX_IN_FLIGHT sends are (unless `now`); it
   * answers false when the deny cache answered every call, so nothing was sent or held.
   */
  #send(sending: Call[], now = false): boolean {
    // A call that waited asks the deny cache again: a denial may have come back meanwhile.
    const calls = this.#denyCache !== undefined && this.#denyCache.size > 0 ? this.#answeredHere(sending) : sending;
    if (calls.length === 0) return false;
    if (!now && (this.#held.length > 0 || this.#inFlight >= MAX_IN_FLIGHT)) {
      // Held calls wait anyway: on a single node they join the last held batch while it has room (a
      // call whose cost must go alone never joins, nor is joined), so a burst waits in full batches,
      // not in many small ones. On a cluster each batch keeps to its slot.
      const last = this.#held[this.#held.length - 1];
      if (this.#slotOf === undefined && last !== undefined && last.length + calls.length <= this.#maxSize && this.#joinable(last) && this.#joinable(calls)) {
        for (const call of calls) last.push(call);
      } else {
        this.#held.push(calls);
      }
      return true;
    }
    this.#inFlight++;
    if (calls.length === 1) {
      const call = calls[0] as Call;
      const signed = String(call.commit ? call.cost : -call.cost);
      const command = call.group.command(call.keys, call.now, signed);
      void this.#remote.eval(call.group.script, command, call.firstKey, call.interpret).then(this.#answered).then(call.resolve);
      return true;
    }
    this.batches++;
    this.batched += calls.length;
    const batch = ++this.#sends;
    const groups: Group[] = [];
    for (const call of calls) {
      const group = call.group;
      if (group.sentIn !== batch) {
        group.sentIn = batch;
        groups.push(group);
        group.index = groups.length;
      }
    }
    const G = groups.length;
    let keyCount = 0;
    const command = ['EVALSHA', this.#script.sha, ''];
    // Whether a key comes twice: the script then reads and writes each key once (lua/batch-script.ts).
    const seen = new Set<string>();
    let repeats = false;
    for (const call of calls) {
      if (typeof call.keys === 'string') {
        command.push(call.keys);
        keyCount++;
        if (!repeats) repeats = seen.size === seen.add(call.keys).size;
      } else {
        for (const key of call.keys) {
          command.push(key);
          if (!repeats) repeats = seen.size === seen.add(key).size;
        }
        keyCount += call.keys.length;
      }
    }
    command[2] = String(keyCount);
    command.push(String(repeats ? -G : G));
    for (const group of groups) for (const value of group.spec) command.push(value);
    for (const call of calls) {
      if (this.#clientTime) command.push(String(call.now));
      const v = (call.cost - 1) * G + call.group.index;
      command.push(String(call.commit ? v : -v));
    }
    command.push('0'); // the deadline's place: Remote sets it on every send (see ./remote.ts)
    void this.#remote.eval(this.#script, command, (calls[0] as Call).firstKey, (ended) => {
      this.#observe();
      this.#outstanding -= calls.length;
      this.#done();
      const replies = Array.isArray(ended) ? split(ended, calls) : undefined;
      const failure = ended instanceof Failure ? ended : SHAPE;
      calls.forEach((call, i) => {
        call.resolve(call.interpret(replies === undefined ? failure : replies[i]));
      });
    });
    return true;
  }
}

/**
 * split cuts the batch script's flat reply into each call's reply, in the shape the call's own script
 * would have answered: for one member a compact integer or [allowed, remaining, retryAfterMs,
 * resetAfterMs]; for several, m compact integers or four values per member; CORRUPT for a call whose
 * key held foreign data. Undefined when the reply does not have the shape the calls expect.
 */
export function split(reply: readonly unknown[], calls: readonly { readonly group: { readonly size: number } }[]): unknown[] | undefined {
  const out: unknown[] = [];
  let at = 0;
  for (const call of calls) {
    const m = call.group.size;
    const first = reply[at];
    if (first === 'RKCORRUPT') {
      out.push(CORRUPT);
      at++;
    } else if (typeof first === 'number' && first % 2 === 1) {
      if (at + m > reply.length) return undefined;
      out.push(m === 1 ? first : reply.slice(at, at + m));
      at += m;
    } else {
      if (at + 4 * m > reply.length) return undefined;
      const values: unknown[] = [];
      for (let j = 0; j < m; j++, at += 4) {
        const allowed = reply[at];
        if (allowed !== 0 && allowed !== 2) return undefined;
        values.push(allowed === 2 ? 1 : 0, reply[at + 1], reply[at + 2], reply[at + 3]);
      }
      out.push(values);
    }
  }
  return at === reply.length ? out : undefined;
}
