/**
 * Batcher: single-policy decisions that are pending at the same moment on the same Redis node go to
 * Redis together, as one call of the batch script (./lua/batch-script.ts), which decides them in the
 * order they were asked, atomically, exactly as if each had been its own EVALSHA back to back.
 *
 * When. A call made while nothing is on the wire goes at once, with the single script, as an
 * unbatched store would send it: a lone request waits for no one. Otherwise it is queued; the queue is
 * sent at the end of the current turn of the event loop (setImmediate, so every request whose bytes
 * arrived in this turn joins), or at once when it reaches `maxSize`; a queue of one goes as a single
 * call. Redis sees the calls in the order they were made either way.
 *
 * Where. On a single node every call joins one queue. On a Redis Cluster a script may only touch keys
 * of one hash slot, so calls are queued per slot (CRC16 of the key's hash tag, which for ratekeeper's
 * keys is the encoded user key): calls for one key batch together, calls for other keys go apart.
 *
 * Why the cap. A script blocks Redis while it runs, and one decision costs the server a few
 * microseconds: `maxSize` (default 64) bounds the pause any batch imposes on every other client to a
 * few hundred microseconds, while the per-call overhead a batch saves (the EVALSHA, its parsing and
 * the reply round trip) is already amortised to a few percent at that size (see the README's
 * benchmark: decisions per second level off well before 64 calls per batch).
 *
 * Failures. A batch is one remote call: a timeout or a lost connection fails each of its calls, which
 * the store then decides by its failure policy one by one, as it would have unbatched. A corrupt key
 * fails only its own call (the script answers 'RKCORRUPT' in its place).
 */
import { Failure } from './failure.js';
import { batchScript } from './lua/batch-script.js';
import type { Script } from './lua/scripts.js';
import type { Outcome, Remote } from './remote.js';

export const DEFAULT_MAX_BATCH = 64;

interface Call {
  readonly key: string;
  /** The call's ARGV values in the batch layout. */
  readonly args: readonly string[];
  /** The call's own single-script command, used when it goes alone. */
  readonly single: string[];
  readonly script: Script;
  readonly outcome: Outcome<unknown>;
  resolve: (value: unknown) => void;
}

/** slotOf is the Redis Cluster slot of a key, or undefined on a single node (every key one queue). */
export type SlotOf = ((key: string) => number) | undefined;

const CORRUPT = new Failure('reply', new Error('RKCORRUPT the key holds a value ratekeeper did not write'));

export class Batcher {
  readonly #remote: Remote;
  readonly #maxSize: number;
  readonly #slotOf: SlotOf;
  readonly #script: Script;
  readonly #queues = new Map<number, Call[]>();
  #scheduled = false;
  /** Calls and batches sent and not yet answered. */
  #inFlight = 0;
  /** batches and batched count the multi-call batches sent and the calls they carried. */
  batches = 0;
  batched = 0;

  constructor(remote: Remote, clientTime: boolean, maxSize: number, slotOf: SlotOf) {
    this.#remote = remote;
    this.#maxSize = maxSize;
    this.#slotOf = slotOf;
    this.#script = batchScript(clientTime);
  }

  /**
   * submit queues one decision: `args` are its values in the batch layout, `single` the command it
   * would send alone with `script`. Resolves to `outcome` of its own reply or of a Failure.
   */
  submit<T>(key: string, args: readonly string[], script: Script, single: string[], outcome: Outcome<T>): Promise<T> {
    return new Promise<T>((resolve) => {
      const call = { key, args, single, script, outcome: outcome as Outcome<unknown>, resolve: resolve as (value: unknown) => void };
      // Nothing on the wire and nothing queued: a lone call waits for no one.
      if (this.#inFlight === 0 && this.#queues.size === 0) {
        this.#send([call]);
        return;
      }
      const slot = this.#slotOf === undefined ? 0 : this.#slotOf(key);
      let queue = this.#queues.get(slot);
      if (queue === undefined) this.#queues.set(slot, (queue = []));
      queue.push(call);
      if (queue.length >= this.#maxSize) {
        this.#queues.delete(slot);
        this.#send(queue);
      } else if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#flush);
      }
    });
  }

  /** answered passes a single call's outcome through, counting its send as answered. */
  readonly #answered = <T>(value: T): T => {
    this.#inFlight--;
    return value;
  };

  /**
   * flush sends every queued call now. A call that bypasses the queue (a reset's DEL, a composite's
   * script) flushes first, so that Redis sees this process's calls in the order they were made.
   */
  flush(): void {
    if (this.#queues.size > 0) this.#flush();
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const queues = [...this.#queues.values()];
    this.#queues.clear();
    for (const queue of queues) this.#send(queue);
  };

  #send(calls: Call[]): void {
    this.#inFlight++;
    if (calls.length === 1) {
      const call = calls[0] as Call;
      void this.#remote.eval(call.script, call.single, call.key, call.outcome).then(this.#answered).then(call.resolve);
      return;
    }
    this.batches++;
    this.batched += calls.length;
    const command = ['EVALSHA', this.#script.sha, String(calls.length)];
    for (const call of calls) command.push(call.key);
    for (const call of calls) for (const value of call.args) command.push(value);
    command.push('0'); // the deadline's place: Remote sets it on every send (see ./remote.ts)
    void this.#remote.eval(this.#script, command, (calls[0] as Call).key, (ended) => {
      this.#inFlight--;
      const replies = Array.isArray(ended) && ended.length === calls.length ? ended : undefined;
      calls.forEach((call, i) => {
        const reply =
          replies === undefined ? (ended instanceof Failure ? ended : new Failure('reply', new TypeError('RedisStore: the batch reply has an unexpected shape'))) : replies[i];
        call.resolve(call.outcome(reply === 'RKCORRUPT' ? CORRUPT : reply));
      });
    });
  }
}
