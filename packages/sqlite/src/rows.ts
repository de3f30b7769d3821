/**
 * The kit's rows in rk_rows (./sql.ts): a state as its doubles (little-endian, exact), an id as its bytes.
 * At most `maxKeys` rows per name (counted in rk_names): a new row first deletes up to two rows of its
 * name expired EXPIRED_GRACE_MS ago (from the start of the expiry index: no scan); at maxKeys, a row
 * empty by now, else the row with the most room (the lowest `fill` the kit gave it: a full state 1, so
 * a blocked key outranks a flood of fresh ones), never a PINNED one (live leases).
 * The indexed columns are kept loosely, so most writes move no index entry (which costs a write about
 * twice as much): expires_at never before the state's empty instant (nothing live is deleted) and at
 * most max(60 s, 25 % of the time left) after it, fill within 1/16 of the state's (at least 1 for a full
 * state); a write outside those bounds rewrites both, expires_at half that slack past the empty instant.
 */
import { EXPIRED_GRACE_MS, PINNED, type Row, type RowRef, type Rows, emptyRow } from '@ratekeeper/core/store';
import type { Sql } from './sql.js';

const SLACK_FLOOR_MS = 60_000;
const SLACK_SHARE = 0.25;
const FILL_STEP = 1 / 16;
const EXPIRED_BATCH = 2;

/** Stored is a row's id as bytes and its indexed columns as read (`found` false: not in the file). */
type Stored = { readonly id: Uint8Array; readonly found: boolean; readonly expiresAt: number; readonly fill: number };

function encodeState(state: Float64Array): Uint8Array {
  return Buffer.from(state.buffer, state.byteOffset, state.byteLength);
}

function decodeState(bytes: Uint8Array): Float64Array {
  return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** readRows reads `refs`' rows into `rows` (missing ones empty) and answers their stored columns, in `refs`' order. */
export function readRows(sql: Sql, refs: readonly RowRef[], rows: Rows): Stored[] {
  return refs.map((ref) => {
    // The id's bytes: half the size of its hex in the file and its indexes.
    const id = Buffer.from(ref.id, 'hex');
    const row = sql.read.get(id);
    if (row === undefined) rows.set(ref.id, emptyRow());
    else rows.set(ref.id, { state: decodeState(row['state'] as Uint8Array), expiresAt: row['expires_at'] as number, fill: row['fill'] as number, dirty: false });
    const { expiresAt, fill } = rows.get(ref.id) as Row;
    return { id, found: row !== undefined, expiresAt, fill };
  });
}

/** writeRows writes back the rows the kit marked dirty, decided at `at` (see above). */
export function writeRows(sql: Sql, refs: readonly RowRef[], rows: Rows, stored: readonly Stored[], at: number, maxKeys: number): void {
  refs.forEach((ref, i) => {
    const row = rows.get(ref.id) as Row;
    const { id, found, ...before } = stored[i] as Stored;
    if (!row.dirty) return;
    if (row.state === undefined) {
      if (found && Number(sql.remove.run(id).changes) > 0) sql.count.run(ref.name, -1);
      return;
    }
    const bytes = encodeState(row.state);
    const slack = Math.max(SLACK_FLOOR_MS, SLACK_SHARE * (row.expiresAt - at));
    if (found && keeps(before, row, slack)) sql.updateState.run(bytes, row.expiresAt, id);
    else if (found) sql.update.run(bytes, row.expiresAt, row.expiresAt + slack / 2, row.fill, id);
    else {
      const made = makeRoom(sql, ref.name, at, maxKeys);
      sql.insert.run(id, ref.name, bytes, row.expiresAt, row.expiresAt + slack / 2, row.fill);
      sql.count.run(ref.name, 1 - made);
    }
  });
}

/** keeps tells whether a row's stored columns still bound its new state (see above). */
function keeps(before: { readonly expiresAt: number; readonly fill: number }, row: Row, slack: number): boolean {
  if (before.expiresAt < row.expiresAt || before.expiresAt > row.expiresAt + slack) return false;
  if (before.fill === row.fill) return true;
  if (before.fill === PINNED || row.fill === PINNED) return false;
  return before.fill >= (row.fill >= 1 ? 1 : row.fill - FILL_STEP) && before.fill < row.fill + FILL_STEP;
}

/** makeRoom deletes what a new row of `name` needs gone (see above) and answers how many rows it deleted. */
function makeRoom(sql: Sql, name: string, at: number, maxKeys: number): number {
  let deleted = Number(sql.expire.run(name, at - EXPIRED_GRACE_MS, EXPIRED_BATCH).changes);
  const keys = ((sql.keys.get(name)?.['keys'] as number | undefined) ?? 0) - deleted;
  if (keys >= maxKeys) deleted += Number(sql.emptyOne.run(name, at).changes) || Number(sql.evict.run(name).changes);
  return deleted;
}
