/**
 * The row-store kit's vocabulary. A row store (PostgreSQL, MySQL, SQLite, a Durable Object) keeps each
 * piece of limiter state as a row: the state of one key under one policy, a key's ban, a key's booking
 * ledger. A row is named by a RowRef: `id`, the row's key as hex (../rows/row-id.ts: the same bytes on
 * every store, one order for locking), and `name`, the policy name it belongs to (a ban's and a
 * ledger's with their suffix), for a store that bounds its rows per name.
 *
 * The kit runs core's own steps on rows (./apply.ts) inside the one primitive a store supplies: apply a
 * function to a sorted set of rows atomically, before a deadline, and say whether it committed
 * (./transactor.ts). The function sees the rows as Rows: each row's state as the calls before it left
 * it, its expiry (the instant its state is empty again, so a store may delete it after), its `fill`
 * (how much of its limit it holds, for a store that evicts the rows with the most room first; PINNED:
 * never evict) and whether it changed. A store writes back exactly the rows marked dirty.
 */

/** RowRef names one row: its id (hex, the lock order) and the name of the policy it belongs to. */
export interface RowRef {
  readonly id: string;
  readonly name: string;
}

/** Row is one row as a batch's work sees it: read by the store, changed by the calls in order. */
export interface Row {
  state: Float64Array | undefined;
  /** When the state is empty again, on the store's clock (0 with no state). */
  expiresAt: number;
  /** The fraction of its limit the row held when written, or PINNED; 1 for a row the kit did not rank. */
  fill: number;
  dirty: boolean;
}

/** Rows are a batch's rows by id. */
export type Rows = Map<string, Row>;

/** PINNED is the fill of a row that must never be evicted (concurrency leases: a dropped lease admits beyond the limit). */
export const PINNED = Number.POSITIVE_INFINITY;

/** emptyRow is a row that holds no state (a row the store did not find). */
export function emptyRow(): Row {
  return { state: undefined, expiresAt: 0, fill: 0, dirty: false };
}

/** writeRow gives row `id` its next state, expiry and fill, to be written if the batch commits. */
export function writeRow(rows: Rows, id: string, state: Float64Array | undefined, expiresAt: number, fill = 1): void {
  const row = rows.get(id) as Row;
  row.state = state;
  row.expiresAt = state === undefined ? 0 : expiresAt;
  row.fill = state === undefined ? 0 : fill;
  row.dirty = true;
}

/** Write is a changed row, as a store writes it back. */
export interface Write {
  readonly ref: RowRef;
  readonly state: Float64Array | undefined;
  readonly expiresAt: number;
  readonly fill: number;
}

/** writesOf lists the rows of `refs` that changed, in `refs`' order. */
export function writesOf(rows: Rows, refs: readonly RowRef[]): Write[] {
  const writes: Write[] = [];
  for (const ref of refs) {
    const row = rows.get(ref.id);
    if (row?.dirty === true) writes.push({ ref, state: row.state, expiresAt: row.expiresAt, fill: row.fill });
  }
  return writes;
}
