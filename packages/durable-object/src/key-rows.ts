/**
 * KeyRows: one key's rows as its object keeps them, and what the object does with a batch, with no
 * Workers API (object.ts adds storage, gates and the alarm; tests run this in Node): each op rebuilt
 * from the wire (each part's step from its policy, core's own steps only) and applied by core's applyOp,
 * in order, with no await (a batch is atomic). The object is the key, so a row is named by its name alone
 * (its policy's, ban's or ledger's): its id and storage key is the kit's row id of that name under no
 * policy (hex, a long name's digest). A row keeps its state and its expiry on the object's clock (moved
 * there from the caller's with `time: 'client'`); each changed row is queued as a write (a delete once
 * empty); a row empty for the kit's EXPIRED_GRACE_MS is dropped, at start and by `sweep`.
 */
import { type Algorithm, MAX_LOG, type Policy } from '@ratekeeper/core';
import * as kit from '@ratekeeper/core/store';
import type { Batch, Op, Reply } from './protocol.js';

const STEPS = {
  'token-bucket': kit.tokenBucket,
  'sliding-window': kit.slidingWindow,
  'fixed-window': kit.fixedWindow,
  'first-request-window': kit.firstRequestWindow,
} as unknown as Readonly<Record<string, Algorithm<Policy>>>;

/** stepOf is core's step for `policy` (a sliding log's is made for its limit), or undefined for any other algorithm. */
export function stepOf(policy: Policy): Algorithm<Policy> | undefined {
  if (policy.algorithm !== 'sliding-log') return Object.hasOwn(STEPS, policy.algorithm) ? STEPS[policy.algorithm] : undefined;
  if (!Number.isInteger(policy.limit) || policy.limit < 1 || policy.limit > MAX_LOG) return undefined;
  return kit.slidingLog(policy.limit) as unknown as Algorithm<Policy>;
}

/** refOf is a row of this key by its name: its id is the kit's row id of the name under no policy. */
const refOf = (name: string): kit.RowRef => ({ id: kit.rowId('', name), name });

/** Stored is a row as the object keeps and stores it, `expiresAt` on the object's clock. */
export type Stored = { readonly state: Float64Array; readonly expiresAt: number };

export class KeyRows {
  readonly #rows: Map<string, Stored>;
  /** The writes queued (undefined: delete), for the object to take and clear. */
  readonly writes = new Map<string, Stored | undefined>();

  /** `saved` is what storage held at start. */
  constructor(saved: ReadonlyMap<string, Stored>, clock: number) {
    this.#rows = new Map(saved);
    this.sweep(clock);
  }

  /** run applies `batch` at `clock` (the object's Date.now()), in order: one answer per op; an op it cannot run refuses the batch before any applies. */
  run(batch: Batch, clock: number): Reply {
    const ops = batch.ops.map((op) => this.#rowOp(op, batch.policies, clock));
    return ops.map((op) => this.#apply(op, clock) ?? null);
  }

  /** sweep drops the rows empty for EXPIRED_GRACE_MS at `clock`. */
  sweep(clock: number): void {
    for (const [id, row] of this.#rows) if (row.expiresAt + kit.EXPIRED_GRACE_MS <= clock) this.#write(id, undefined);
  }

  /** dropAt is when every row kept may be dropped (0: none kept). */
  get dropAt(): number {
    return Math.max(0, ...[...this.#rows.values()].map((row) => row.expiresAt + kit.EXPIRED_GRACE_MS));
  }

  #apply(op: kit.RowOp, clock: number): kit.Answer {
    const rows: kit.Rows = new Map(kit.refsOf(op).map((ref) => [ref.id, { ...kit.emptyRow(), state: this.#rows.get(ref.id)?.state }]));
    const answer = kit.applyOp(op, rows, op.now);
    for (const [id, row] of rows) if (row.dirty) this.#write(id, row.state && { state: row.state, expiresAt: clock + Math.max(0, row.expiresAt - op.now) });
    return answer;
  }

  #rowOp(op: Op, policies: readonly Policy[], clock: number): kit.RowOp {
    const parts = op.parts.map((i) => {
      const policy = policies[i] as Policy;
      const algorithm = stepOf(policy);
      if (algorithm === undefined) throw new TypeError(`RateLimiterObject: no step for algorithm ${JSON.stringify(policy.algorithm)}`);
      return { ...refOf(policy.name), algorithm, policy };
    });
    const ban = op.ban === undefined ? {} : { ban: { ...refOf(op.ban.name), banMs: op.ban.banMs } };
    const ledgers = op.ledgers === undefined ? {} : { ledgers: op.ledgers.map((name) => refOf(name)) };
    return { ...op, parts, now: op.now ?? clock, ...ban, ...ledgers } as kit.RowOp;
  }

  #write(id: string, row: Stored | undefined): void {
    if (row === undefined && !this.#rows.delete(id)) return; // nothing kept: nothing to delete
    if (row !== undefined) this.#rows.set(id, row);
    this.writes.set(id, row);
  }
}
