/**
 * The one primitive a row store supplies: apply a function to a sorted set of rows atomically, before a
 * deadline, and say whether it committed. Everything else a row store does (steps, composites, bans,
 * bookings, leases, batching, the failure policy) is the kit's, over this.
 *
 * Transactor, for a store whose rows are behind a server (PostgreSQL, MySQL): `transact` locks the rows
 * `refs` (distinct, sorted by id: every process takes them in one order, so no two transactions
 * deadlock), reads their states and the store's clock, runs `work` on them (at that clock's whole
 * millisecond), writes back the rows it marked dirty and commits, all only if the store's clock is
 * still before `deadline`: else it changes nothing and answers Expired with the clock it read (core's
 * Remote then sends it again; a deadline of 0 answers Expired at once: the first call learns the
 * clock). It may run `work` more than once (a transaction run again after a lost connection); only the
 * run that commits counts. A rejection is the store failing (its failureOf says how).
 *
 * A Transactor may also `decide` a plain call (one policy, a consume or a peek, no ban, no lease) in
 * one statement where its database can run that algorithm's admission itself (a port of the step's
 * verdict and next state, as Redis runs Lua): it answers the state the call was decided on, the
 * instant, and what it wrote; the kit then runs core's step on that state to answer the call, and a
 * written state that is not the step's is a reply failure (a port that drifted). `token` names the
 * call: sent again after a lost reply, a call the database already applied answers as applied.
 * It answers undefined for an algorithm it has no statement for (the call goes as a transaction).
 *
 * SyncTransactor, for a store in this process's reach (SQLite): `transact` runs `work` in one
 * transaction (a write one, or a read snapshot), synchronously, and answers undefined or the Failure
 * that kept it from committing.
 */
import type { Failure } from '../remote/failure.js';
import type { Part } from './ops.js';
import type { RowRef, Rows } from './row.js';

/**
 * Work is what a transaction runs on its rows at `at` (the store's clock, whole ms); it answers the
 * latest instant it decided at (`at`, or its callers' clock with 'client' time): the clock the rows'
 * expiries are on, for the store's housekeeping.
 */
export type Work = (rows: Rows, at: number) => number;

/** Expired: the answer of a transaction that changed nothing because its deadline had passed. */
export class Expired {
  readonly serverMs: number;
  constructor(serverMs: number) {
    this.serverMs = serverMs;
  }
}

/** COMMITTED is the answer of a transaction that applied its work (or had nothing to write). */
export const COMMITTED = 'committed';

/** Decided: a plain call decided in one statement: the state it was decided on, the instant, and the state written (undefined: none). */
export interface Decided {
  readonly state: Float64Array | undefined;
  readonly at: number;
  readonly written: Float64Array | undefined;
  /** The call had been applied already (sent again after a lost reply): `written` is not known, nor checked. */
  readonly replayed?: true;
}

export interface Transactor {
  transact(refs: readonly RowRef[], work: Work, deadline: number): Promise<typeof COMMITTED | Expired>;
  decide?(part: Part, cost: number, commit: boolean, clientAt: number | undefined, deadline: number, token: number): Promise<Decided | Expired> | undefined;
  /** decides tells whether `decide` has a statement for `part`'s algorithm. */
  decides?(part: Part): boolean;
  /** ping asks the store for a trivial answer on a connection of its own (liveness while a transaction waits: ./batcher.ts). */
  ping?(): Promise<unknown>;
}

export interface SyncTransactor {
  transact(refs: readonly RowRef[], work: Work, write: boolean): Failure | undefined;
  /** onRecover runs `callback` when the store answers again after a failure. */
  onRecover(callback: () => void): void;
}

/** expiredAt reads an Expired answer for core's Remote. */
export function expiredAt(reply: unknown): number | undefined {
  return reply instanceof Expired ? reply.serverMs : undefined;
}
