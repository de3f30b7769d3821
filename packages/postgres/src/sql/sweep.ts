/**
 * Sweeper: expired rows removed without a scan of the table and outside every decision. At most every
 * SWEEP_EVERY_MS, after a batch committed, one DELETE of up to SWEEP_LIMIT rows whose state was empty
 * EXPIRED_GRACE_MS before that batch's time, found through the index on expires_at and skipping rows a batch holds
 * (./sql.ts, sweepSql); when it deleted a full SWEEP_LIMIT, the next commit sweeps again. It is not
 * awaited by any call and its failure is ignored (the next one tries again): a row left a while
 * longer changes no decision, since its state reads as empty anyway.
 */
import type { Db } from '../wire/client.js';
import { sweepSql } from './sql.js';

export const SWEEP_EVERY_MS = 10_000;
/**
 * EXPIRED_GRACE_MS: a row is deleted only once its state has been empty for this long, so a clock that
 * steps back (a client clock, a server's NTP step) by less still finds it as the memory store would.
 */
export const EXPIRED_GRACE_MS = 60_000;
export const SWEEP_LIMIT = 1_000;

export class Sweeper {
  readonly #db: Db;
  readonly #table: string;
  #nextAt = 0;
  #running = false;

  constructor(db: Db, table: string) {
    this.#db = db;
    this.#table = table;
  }

  /** committed runs after a batch committed at `timeMs` (the batch's time base). */
  committed(timeMs: number): void {
    if (this.#running || performance.now() < this.#nextAt) return;
    this.#running = true;
    this.#nextAt = performance.now() + SWEEP_EVERY_MS;
    this.#db.query(sweepSql(this.#table, timeMs - EXPIRED_GRACE_MS, SWEEP_LIMIT)).then(
      (rows) => {
        this.#running = false;
        if (Number(rows[0]?.['n']) >= SWEEP_LIMIT) this.#nextAt = 0;
      },
      () => {
        this.#running = false;
      },
    );
  }
}
