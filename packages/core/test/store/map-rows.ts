/**
 * MapRows: a row store in a Map, for the kit's own tests: core's row-store kit (RowStore, BatchRunner,
 * Remote) over a Transactor whose rows are a Map in this process. A transaction applies its work to
 * copies of its rows and writes back the dirty ones, all in one synchronous step (nothing else runs in
 * between: the atomicity a database gets from its row locks); it answers Expired past its deadline.
 * Time is the callers' (`clientTime`); the store's own clock, for deadlines, is Date.now(). Knobs let a test break it: `down` (every call fails as a refused connection),
 * `plain` (a one-statement `decide` for the token bucket, running core's step: the one-statement path
 * of a SQL store), and `drift` (that statement writing a state one unit off: a port that drifted).
 * The same store as a third party writes it, synchronous and without knobs, is the published example
 * packages/store-contract/example/map-store.ts (core's README walks through it).
 */
import { tokenBucket } from '../../src/algorithms/token-bucket.js';
import { step } from '../../src/algorithm.js';
import {
  BatchRunner,
  COMMITTED,
  type Decided,
  Expired,
  Failure,
  type FallbackStore,
  type Part,
  Remote,
  type RowRef,
  RowStore,
  type Rows,
  type Transactor,
  type Work,
  expiredAt,
} from '../../src/store/index.js';
import { MemoryStore } from '../../src/index.js';

export interface Knobs {
  down: boolean;
  plain: boolean;
  drift: boolean;
  /** Calls the store saw: transactions and single statements. */
  transactions: number;
  statements: number;
}

class MapTransactor implements Transactor {
  readonly rows = new Map<string, Float64Array | undefined>();
  readonly knobs: Knobs;

  constructor(knobs: Knobs) {
    this.knobs = knobs;
  }

  async transact(refs: readonly RowRef[], work: Work, deadline: number): Promise<typeof COMMITTED | Expired> {
    await Promise.resolve();
    if (this.knobs.down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const now = Date.now();
    if (now >= deadline) return new Expired(now);
    this.knobs.transactions++;
    const rows: Rows = new Map(refs.map((ref) => [ref.id, { state: this.rows.get(ref.id)?.slice(), expiresAt: 0, fill: 0, dirty: false }]));
    work(rows, now);
    for (const [id, row] of rows) if (row.dirty) this.rows.set(id, row.state?.slice());
    return COMMITTED;
  }

  decides(part: Part): boolean {
    return this.knobs.plain && part.algorithm === (tokenBucket as unknown);
  }

  decide(part: Part, cost: number, commit: boolean, clientAt: number | undefined, deadline: number): Promise<Decided | Expired> | undefined {
    if (!this.decides(part)) return undefined;
    return Promise.resolve().then(() => {
      if (this.knobs.down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      const now = Date.now();
      if (now >= deadline) return new Expired(now);
      const at = clientAt ?? now;
      this.knobs.statements++;
      const state = this.rows.get(part.id);
      const taken = step(part.algorithm, state === undefined ? undefined : Array.from(state), at, cost, part.policy);
      let written: Float64Array | undefined;
      if (commit && taken.decision.allowed) {
        written = Float64Array.from(taken.nextState as number[]);
        if (this.knobs.drift) (written as Float64Array)[0] = (written[0] as number) + 1;
        this.rows.set(part.id, written);
      }
      return { state: state?.slice(), at, written };
    });
  }
}

/** MapStore is the kit's RowStore over a MapTransactor (see above). */
export class MapStore extends RowStore<'async'> {
  readonly knobs: Knobs;
  readonly rows: Map<string, Float64Array | undefined>;

  /** `fallbackStore`: the in-process store the fallback decides on (default a MemoryStore). */
  constructor(fallbackStore: FallbackStore = new MemoryStore()) {
    const knobs: Knobs = { down: false, plain: false, drift: false, transactions: 0, statements: 0 };
    const transactor = new MapTransactor(knobs);
    const failureOf = (error: unknown) => new Failure('connection', error);
    const remote = new Remote({ timeoutMs: 1000, probeIntervalMs: 0, failureOf, expiredAt });
    super({
      owner: 'MapStore',
      server: 'the map',
      runner: new BatchRunner({ remote, transactor, clientTime: true, timeoutMs: 1000 }),
      onFailure: 'fallback',
      fallbackStore,
      fallbackDivisor: () => 1,
      leaseTtlMs: 30_000,
      failureWarning: false,
      causeOf: () => undefined,
    });
    this.knobs = knobs;
    this.rows = transactor.rows;
  }
}
