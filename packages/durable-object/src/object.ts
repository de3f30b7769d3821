/**
 * RateLimiterObject: the Durable Object that holds one key's limits (every policy that names the
 * key) and decides them with core's algorithms on core's memory store (engine.ts). Export it from
 * your Worker's main module and bind it (README: wrangler.toml); DurableObjectStore calls it.
 *
 * Why it is exact. Cloudflare runs one instance of an object at a time, worldwide, and its code on
 * one thread. `run` is synchronous: it reads the clock once, decides the batch in order and returns,
 * with no await in between, so no other call to the object can interleave with it. Every decision on
 * the key is therefore taken one after another on one state, whatever the number of Worker
 * isolates, locations and requests calling: the memory store's exactness, for one key, everywhere.
 *
 * The gates. The input gate keeps events from being delivered while the object awaits its storage;
 * `run` never awaits, so it matters only at start, when `blockConcurrencyWhile` holds every call
 * until the saved states are loaded. The output gate would hold each reply until the writes queued
 * before it are durable; `run` writes with `allowUnconfirmed`, so a decision is answered at once and
 * its state is written right after, in the order decided. What that gives up: if the object's host
 * fails (or a deploy resets the object) in the few milliseconds between a reply and the write's
 * commit, the restarted object has forgotten the admissions of those milliseconds (the limit then
 * admits up to that many more); an idle eviction, which comes long after the writes, forgets nothing. Waiting for every
 * write instead cost each admission a storage commit (about 100 times the decision in Miniflare).
 *
 * State across restarts. An object is evicted when idle (seconds to minutes) and restarted by
 * deploys and host moves; a limit that forgot its key then (a login ban lifted by two idle minutes)
 * would not be a limit. So every changed state is stored (denials change nothing and store nothing)
 * and loaded at start. An alarm deletes the object's storage once every stored state has expired
 * (is empty again), set at most once per ALARM_GRANULE_MS of activity, so a key seen once does not
 * keep storage forever.
 *
 * Deadlines. A batch carries an instant on this object's clock after which its caller has given up
 * (protocol.ts): then nothing is run and the reply is `expired` (minus the clock), so a call that the
 * caller's failure policy decided is never also decided here.
 */
import { DurableObject } from 'cloudflare:workers';
import { Engine, type Entry } from './engine.js';
import type { Batch, Reply } from './protocol.js';

/** ALARM_GRANULE_MS rounds the housekeeping alarm up, so that it is written at most once per granule. */
const ALARM_GRANULE_MS = 60_000;

/**
 * UNCONFIRMED: a reply does not wait for its writes to be durable (see "The gates" above): waiting
 * cost every admission a storage commit (about 10 ms each under Miniflare, against 0.1 ms for the
 * decision itself).
 */
const UNCONFIRMED = { allowUnconfirmed: true } as const;

/** PUT_CHUNK is the most keys one storage.put or delete takes. */
const PUT_CHUNK = 128;

/** ObjectState is what the object uses of the runtime's DurableObjectState. */
export interface ObjectState {
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
  readonly storage: {
    list<T = unknown>(): Promise<Map<string, T>>;
    put<T>(entries: Record<string, T>, options?: { allowUnconfirmed?: boolean }): Promise<void>;
    delete(keys: string[], options?: { allowUnconfirmed?: boolean }): Promise<number>;
    deleteAll(): Promise<void>;
    getAlarm(): Promise<number | null>;
    setAlarm(scheduledTime: number): Promise<void>;
  };
}

export class RateLimiterObject extends DurableObject {
  readonly #state: ObjectState;
  #engine: Engine | undefined;
  #alarmAt = 0;

  constructor(ctx: ObjectState, env: unknown) {
    super(ctx, env);
    this.#state = ctx;
    void ctx.blockConcurrencyWhile(async () => {
      const saved = await ctx.storage.list<Entry>();
      this.#alarmAt = (await ctx.storage.getAlarm()) ?? 0;
      this.#engine = new Engine(saved, Date.now());
    });
  }

  /** run decides a batch (protocol.ts) in order, atomically, and answers one answer per op. */
  run(batch: Batch): Reply {
    const clock = Date.now();
    if (batch.deadline > 0 && clock >= batch.deadline) return -clock;
    const engine = this.#engine as Engine; // blockConcurrencyWhile delivers no call before it is set
    const answers = engine.run(batch, clock);
    this.#persist(engine);
    return answers;
  }

  /** alarm deletes everything stored once all of it has expired, or comes back when it will have. */
  async alarm(): Promise<void> {
    const engine = this.#engine as Engine;
    const latest = engine.latestExpiry();
    if (latest <= Date.now()) {
      engine.forgetSaved();
      this.#alarmAt = 0;
      await this.#state.storage.deleteAll();
      return;
    }
    this.#alarmAt = granule(latest);
    await this.#state.storage.setAlarm(this.#alarmAt);
  }

  /** persist queues the batch's writes, unconfirmed (see "The gates"); a failed one restarts the object from what was stored. */
  #persist(engine: Engine): void {
    const writes = engine.takeWrites();
    if (writes.size === 0) return;
    const storage = this.#state.storage;
    let puts: Record<string, Entry> = {};
    let putCount = 0;
    const deletes: string[] = [];
    for (const [name, entry] of writes) {
      if (entry === undefined) deletes.push(name);
      else {
        puts[name] = entry;
        if (++putCount % PUT_CHUNK === 0) {
          void storage.put(puts, UNCONFIRMED).catch(ignore);
          puts = {};
        }
      }
    }
    if (putCount % PUT_CHUNK !== 0) void storage.put(puts, UNCONFIRMED).catch(ignore);
    for (let i = 0; i < deletes.length; i += PUT_CHUNK) void storage.delete(deletes.slice(i, i + PUT_CHUNK), UNCONFIRMED).catch(ignore);
    const latest = engine.latestExpiry();
    if (latest > this.#alarmAt) {
      this.#alarmAt = granule(latest);
      void storage.setAlarm(this.#alarmAt).catch(ignore);
    }
  }
}

function granule(at: number): number {
  return Math.ceil(at / ALARM_GRANULE_MS) * ALARM_GRANULE_MS;
}

/** A failed write resets the object (the runtime's doing): nothing for the reply to wait for. */
function ignore(): void {}
