/**
 * MapStore: a complete ratekeeper store in one file, its rows in a Map in this process. It supplies
 * the one primitive core's row-store kit asks of a store (a SyncTransactor: run `work` on some rows
 * atomically, then write back the ones it changed) and the kit does the rest: every algorithm's step,
 * composites all or nothing, refunds, bookings for reserve() and wait(), bans, concurrency leases,
 * policy names, and the failure policy. A Map is atomic for free (nothing else runs during one
 * synchronous call); a database would lock the rows instead. The contract suite runs it
 * (../test/example.test.ts), as it runs every store of ratekeeper.
 */
import { MemoryStore } from '@ratekeeper/core';
import { type RowRef, RowStore, type Rows, SyncRunner, type SyncTransactor, type Work, emptyRow } from '@ratekeeper/core/store';

interface Kept {
  readonly state: Float64Array;
  readonly expiresAt: number;
}

/** MapRows is the primitive: one transaction is one synchronous call over copies of the rows. */
class MapRows implements SyncTransactor {
  readonly #rows = new Map<string, Kept>();

  transact(refs: readonly RowRef[], work: Work, write: boolean): undefined {
    const rows: Rows = new Map();
    for (const { id } of refs) {
      const kept = this.#rows.get(id);
      rows.set(id, kept === undefined ? emptyRow() : { state: kept.state.slice(), expiresAt: kept.expiresAt, fill: 1, dirty: false });
    }
    work(rows, Date.now());
    if (!write) return undefined;
    for (const [id, row] of rows) {
      if (!row.dirty) continue;
      if (row.state === undefined) this.#rows.delete(id);
      else this.#rows.set(id, { state: row.state.slice(), expiresAt: row.expiresAt });
    }
    return undefined;
  }

  /** onRecover is for a store that can fail: a Map never does. */
  onRecover(): void {}
}

export class MapStore extends RowStore<'sync'> {
  constructor() {
    super({
      owner: 'MapStore',
      server: 'the map',
      runner: new SyncRunner(new MapRows()),
      // What decides when the store cannot (a Map always can): an in-process limiter per policy.
      onFailure: 'fallback',
      fallbackStore: new MemoryStore(),
      fallbackDivisor: () => 1,
      leaseTtlMs: 30_000,
      failureWarning: false,
      causeOf: () => undefined,
    });
  }
}
