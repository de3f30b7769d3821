/**
 * Housekeeping: a row store's expired rows removed outside every decision and without a scan. At most
 * every SWEEP_EVERY_MS, after a transaction committed, one `sweep` deletes up to SWEEP_LIMIT rows whose
 * state was empty EXPIRED_GRACE_MS before that transaction's instant (through an index on the rows'
 * expiry, skipping rows a transaction holds); when it deleted a full SWEEP_LIMIT, the next commit sweeps
 * again. It is not awaited by any call and its failure is ignored (the next one tries again): a row left
 * a while longer changes no decision, since its state reads as empty anyway.
 *
 * EXPIRED_GRACE_MS: a row is deleted only once its state has been empty for this long, so a clock that
 * steps back (a client clock, a server's NTP step) by less still finds it as the memory store would.
 */
export const SWEEP_EVERY_MS = 10_000;
export const EXPIRED_GRACE_MS = 60_000;
export const SWEEP_LIMIT = 1_000;

export class Housekeeping {
  readonly #sweep: (before: number, limit: number) => Promise<number>;
  #nextAt = 0;
  #running = false;

  /** `sweep` deletes up to `limit` rows empty before `before` and answers how many it deleted. */
  constructor(sweep: (before: number, limit: number) => Promise<number>) {
    this.#sweep = sweep;
  }

  /** committed runs after a transaction committed at `at` (the store's clock). */
  committed(at: number): void {
    if (this.#running || performance.now() < this.#nextAt) return;
    this.#running = true;
    this.#nextAt = performance.now() + SWEEP_EVERY_MS;
    this.#sweep(at - EXPIRED_GRACE_MS, SWEEP_LIMIT).then(
      (deleted) => {
        this.#running = false;
        if (deleted >= SWEEP_LIMIT) this.#nextAt = 0;
      },
      () => {
        this.#running = false;
      },
    );
  }
}
