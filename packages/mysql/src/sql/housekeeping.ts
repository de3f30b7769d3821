/**
 * Housekeeping: rows whose state has been empty for EXPIRED_GRACE_MS decide exactly like missing rows,
 * so they are deleted, off the decision path and without a scan: after a committed batch, at most once
 * per SWEEP_MS of the table's clock, one DELETE … ORDER BY expires_at LIMIT SWEEP_ROWS walks the expiry index from its start
 * (and the commit records older than a minute go the same way). A sweep that deleted a full LIMIT runs
 * again after the next batch, so deletion keeps up with any rate of new keys a batch can bring; one that
 * comes due while another runs is not dropped but runs right after it (with the latest instant asked). The
 * rows a batch creates only to be locked and then rolls back never exist; a reset's empty row expires
 * at once. Sweeps are never awaited by a decision and their errors are ignored (the next one tries).
 *
 * The grace is what makes the deletion invisible: at `time: 'server'` every instant comes from one
 * clock; at `time: 'client'` a limiter whose clock lags the latest instant seen here by more than the
 * grace may find a key emptied that it would have read as (almost) empty anyway.
 */
import type { MySqlPool } from '../wire/client.js';
import type { Dialect } from './dialect.js';

/** How long a state stays empty before the sweep deletes it. */
export const EXPIRED_GRACE_MS = 60_000;
const SWEEP_MS = 1_000;
const SWEEP_ROWS = 1_000;
const COMMITS_KEPT_MS = 60_000;

export class Housekeeping {
  readonly #pool: MySqlPool;
  readonly #sql: Dialect;
  #nextAt = Number.NEGATIVE_INFINITY;
  #running = false;
  /** The latest instant a batch asked for a sweep at while one was running. */
  #pending: number | undefined;

  constructor(pool: MySqlPool, sql: Dialect) {
    this.#pool = pool;
    this.#sql = sql;
  }

  /** after runs a sweep when one is due; `at` is the latest instant a batch decided at (the table's clock, which paces the sweeps). */
  after(at: number): void {
    if (this.#running) {
      this.#pending = Math.max(this.#pending ?? at, at);
      return;
    }
    if (at < this.#nextAt) return;
    this.#running = true;
    void this.#sweep(at).finally(() => {
      this.#running = false;
      const pending = this.#pending;
      this.#pending = undefined;
      if (pending !== undefined) this.after(pending);
    });
  }

  async #sweep(at: number): Promise<void> {
    let full = false;
    try {
      const [state] = await this.#pool.query(this.#sql.sweepState, [at - EXPIRED_GRACE_MS, SWEEP_ROWS]);
      full = (state as { affectedRows?: number }).affectedRows === SWEEP_ROWS;
      await this.#pool.query(this.#sql.sweepCommits, [COMMITS_KEPT_MS, SWEEP_ROWS]);
    } catch {
      // The next sweep tries again.
    }
    this.#nextAt = full ? Number.NEGATIVE_INFINITY : at + SWEEP_MS;
  }
}
