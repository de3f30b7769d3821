/**
 * RateLimiterObject: the Durable Object that holds one key's rows (key-rows.ts); export it from your
 * Worker's main module and bind it (README). Exact: one instance runs at a time, on one thread, and `run`
 * applies its batch with no await, so no call interleaves (the kit's atomic section, for one key); calls
 * wait for the stored rows to load (`blockConcurrencyWhile`). Each changed row is stored, ledgers too,
 * `allowUnconfirmed`: a reply does not wait for its write (a storage commit, ~100 times the decision), so
 * a host failure in the milliseconds between the two forgets those admissions. An alarm (moved at most
 * once per ALARM_GRANULE_MS) drops rows empty long enough. Past a batch's deadline it replies `expired`.
 */
import { DurableObject } from 'cloudflare:workers';
import { KeyRows, type Stored } from './key-rows.js';
import type { Batch, Reply } from './protocol.js';

const ALARM_GRANULE_MS = 60_000;
const UNCONFIRMED = { allowUnconfirmed: true } as const;
/** CHUNK is the most keys one storage.put or delete takes. */
const CHUNK = 128;

/** ObjectState is what the object uses of the runtime's DurableObjectState. */
export interface ObjectState {
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
  readonly storage: {
    list<T = unknown>(): Promise<Map<string, T>>;
    put<T>(entries: Record<string, T>, options?: { allowUnconfirmed?: boolean }): Promise<void>;
    delete(keys: string[], options?: { allowUnconfirmed?: boolean }): Promise<number>;
    getAlarm(): Promise<number | null>;
    setAlarm(scheduledTime: number): Promise<void>;
  };
}

export class RateLimiterObject extends DurableObject {
  readonly #state: ObjectState;
  #rows: KeyRows | undefined;
  #alarmAt = 0;

  constructor(ctx: ObjectState, env: unknown) {
    super(ctx, env);
    this.#state = ctx;
    void ctx.blockConcurrencyWhile(async () => {
      const saved = await ctx.storage.list<Stored>();
      this.#alarmAt = (await ctx.storage.getAlarm()) ?? 0;
      this.#persist((this.#rows = new KeyRows(saved, Date.now())));
    });
  }

  /** run applies a batch (protocol.ts) in order, atomically, and answers one answer per op. */
  run(batch: Batch): Reply {
    const clock = Date.now();
    if (batch.deadline > 0 && clock >= batch.deadline) return -clock;
    const answers = (this.#rows as KeyRows).run(batch, clock); // blockConcurrencyWhile delivers no call before it is set
    this.#persist(this.#rows as KeyRows);
    return answers;
  }

  /** alarm drops the rows empty long enough, and comes back for the others. */
  async alarm(): Promise<void> {
    this.#alarmAt = 0;
    (this.#rows as KeyRows).sweep(Date.now());
    this.#persist(this.#rows as KeyRows);
  }

  /** persist queues the writes, unconfirmed (a failed one resets the object: the runtime's doing), and moves the alarm. */
  #persist(rows: KeyRows): void {
    const { storage } = this.#state;
    const writes = [...rows.writes];
    rows.writes.clear();
    const puts = writes.filter((write): write is [string, Stored] => write[1] !== undefined);
    const deletes = writes.filter(([, row]) => row === undefined).map(([id]) => id);
    for (let i = 0; i < puts.length; i += CHUNK) void storage.put(Object.fromEntries(puts.slice(i, i + CHUNK)), UNCONFIRMED).catch(ignore);
    for (let i = 0; i < deletes.length; i += CHUNK) void storage.delete(deletes.slice(i, i + CHUNK), UNCONFIRMED).catch(ignore);
    const dropAt = rows.dropAt;
    if (dropAt <= this.#alarmAt || !Number.isFinite(dropAt)) return;
    this.#alarmAt = Math.ceil(dropAt / ALARM_GRANULE_MS) * ALARM_GRANULE_MS;
    void storage.setAlarm(this.#alarmAt).catch(ignore);
  }
}

function ignore(): void {}
