/**
 * The wire between a Worker and a RateLimiterObject: one RPC, `run(batch)`, carrying every call a
 * Worker request made to that object in one turn. Plain data only, sent by structured clone, so every
 * double arrives exact (Infinity, -0 and fractions included) and a decision is bit-identical to the
 * memory store's.
 *
 * The object is the key (one object per key: see durable-object-store.ts), so no op names a key: an op
 * names the policies it decides, as indices into `batch.policies`, and the object keeps one state per
 * policy. A batch is decided in order, in one synchronous pass, so it is atomic: see object.ts.
 *
 * `deadline` is an instant on the object's clock (Date.now() where the object runs); an object whose
 * clock has reached it changes nothing and answers `expired`, the negative of its clock. 0: no deadline.
 */
import type { Policy } from '@ratekeeper/core';

/** Op is one call: a decision (a limiter's, or a composite's members all or nothing), or bookkeeping. */
export type Op = DecideOp | ResetOp | RefundOp | ReserveOp | CancelOp;

/** OpBase is what every Op carries. */
export interface OpBase {
  /** The policies this call is about, as indices into the batch's `policies` (a composite's in order). */
  readonly members: readonly number[];
  /** The limiter's clock (`time: 'client'`); absent: the object's clock decides. */
  readonly now?: number;
  /** A BanLimiter's banMs: the call goes through the ban in front of the (single) member. */
  readonly banMs?: number;
}

/** DecideOp decides `cost` for the members (a limiter's consume, or peek when `commit` is false). */
export interface DecideOp extends OpBase {
  readonly op: 'decide';
  readonly cost: number;
  /** false: peek (decide, record nothing). */
  readonly commit: boolean;
}
/** ResetOp forgets the key under the members' policies. */
export interface ResetOp extends OpBase {
  readonly op: 'reset';
}
/** RefundOp gives `cost` back to the key. */
export interface RefundOp extends OpBase {
  readonly op: 'refund';
  readonly cost: number;
}
/** ReserveOp books `cost` at the first instant it fits, within `maxWaitMs`; a Booked answers it. */
export interface ReserveOp extends OpBase {
  readonly op: 'reserve';
  readonly cost: number;
  /** -1: no bound. */
  readonly maxWaitMs: number;
}
/** CancelOp cancels the booking a ReserveOp made. */
export interface CancelOp extends OpBase {
  readonly op: 'cancel';
  /** The `booking` id a ReserveOp answered. */
  readonly booking: number;
}

/** OpBody is an op before its members are numbered (the store's side: members are its policies). */
export type OpBody = Op extends infer O ? (O extends Op ? Omit<O, 'members'> : never) : never;

export interface Batch {
  readonly deadline: number;
  readonly policies: readonly Policy[];
  readonly ops: readonly Op[];
}

/**
 * Figures is a decision per member, four numbers each: allowed (1 or 0), remaining, retryAfterMs,
 * resetAfterMs. The Worker rebuilds each Decision around its own policy object.
 */
export type Figures = readonly number[];

/** Booked answers a ReserveOp: `booking` is the id a cancel names (0: nothing to cancel). */
export interface Booked {
  readonly ok: boolean;
  readonly delayMs: number;
  readonly figures: Figures;
  readonly booking: number;
}

/** One answer per op, in order: Figures for decide, null for reset and refund, Booked, a cancel's boolean. */
export type Answer = Figures | Booked | boolean | null;

/** Reply is the answers, or `expired`: a negative number, minus the object's clock, and nothing done. */
export type Reply = readonly Answer[] | number;
