/**
 * Ops: what a limiter's call asks of a row store, as data the kit applies to locked rows (./apply.ts).
 * One vocabulary for every row store, whichever runs it: the process between a transaction's read and
 * its write (PostgreSQL, MySQL, SQLite), or the Durable Object that holds the key.
 * rate-limiter-flexible's verbs are ops too: a charge past the limit, a usage read, a block.
 *
 * A Part is one policy's share of a call: its row, its policy and the step that decides it (for a
 * concurrency limit, this process's lease work too). An op is one call over its parts: one part for a
 * single limiter, the members of a composite otherwise (all or nothing). An op may carry a ban in front
 * of its one part, and a booking's ledgers. `now` is the caller's clock, decided at when the store takes
 * time from its callers ('client' time); otherwise the store's clock decides.
 */
import type { Algorithm } from '../../algorithm.js';
import type { Decision } from '../../decision.js';
import type { Policy } from '../../policy.js';
import type { LeaseWork } from '../leases/lease-rows.js';
import type { RowRef } from './row.js';

export interface Part extends RowRef {
  readonly algorithm: Algorithm<Policy>;
  readonly policy: Policy;
  /** A concurrency part: this binding's leases (core's lease rows) taken, given back or renewed. */
  readonly lease?: LeaseWork;
}

/** BanRef is a ban in front of an op's one part: the ban's row and how long a ban lasts. */
export interface BanRef extends RowRef {
  readonly banMs: number;
}

interface OpBase {
  readonly parts: readonly Part[];
  readonly now: number;
}

/** decide: a consume (`commit`) or a peek over the parts, with a ban in front when given. Answers Decision[]. */
export interface DecideOp extends OpBase {
  readonly kind: 'decide';
  readonly cost: number;
  readonly commit: boolean;
  readonly ban?: BanRef;
}

/** refund: up to `cost` units back to the one part (a lease part: its units named in its work), lifting the ban when it should. */
export interface RefundOp extends OpBase {
  readonly kind: 'refund';
  readonly cost: number;
  readonly ban?: BanRef;
}

/** reset: every part emptied, with its booking ledgers and its ban. */
export interface ResetOp extends OpBase {
  readonly kind: 'reset';
  readonly ledgers?: readonly RowRef[];
  readonly ban?: BanRef;
}

/** renew: the lease parts' named units moved to a fresh expiry (the work answers those still held). */
export interface RenewOp extends OpBase {
  readonly kind: 'renew';
}

/** book: `cost` booked at the first instant every part admits it (core's reserve.ts); `id` names the booking for its cancel. Answers Booked. */
export interface BookOp extends OpBase {
  readonly kind: 'book';
  readonly ledgers: readonly RowRef[];
  readonly cost: number;
  readonly maxWaitMs: number;
  readonly id: number;
}

/** cancel: booking `id` given back if its instant is still ahead. Answers a boolean. */
export interface CancelOp extends OpBase {
  readonly kind: 'cancel';
  readonly ledgers: readonly RowRef[];
  readonly id: number;
}

/** charge: `cost` added to the one part whatever its limit says (Algorithm.charge). Answers UsageFigures. */
export interface ChargeOp extends OpBase {
  readonly kind: 'charge';
  readonly cost: number;
  readonly ban?: BanRef;
}

/** usage: the one part's usage read, with the time left in its ban when given; writes nothing. Answers UsageFigures. */
export interface UsageOp extends OpBase {
  readonly kind: 'usage';
  readonly ban?: BanRef;
}

/** block: the ban set directly for `ms` from `now` (core's ban.ts: never shortened, never lifted by a refund). */
export interface BlockOp extends OpBase {
  readonly kind: 'block';
  readonly ms: number;
  readonly ban: BanRef;
}

export type RowOp = DecideOp | RefundOp | ResetOp | RenewOp | BookOp | CancelOp | ChargeOp | UsageOp | BlockOp;

/** UsageFigures is a charge's or a usage read's answer: core's Usage without its policy (the binding adds it). */
export interface UsageFigures {
  readonly used: number;
  readonly remaining: number;
  readonly resetAfterMs: number;
  readonly blockedMs: number;
}

/** Booked is a booking's answer: as core's Booking, with whether it can be cancelled (its instant ahead). */
export interface Booked {
  readonly ok: boolean;
  readonly delayMs: number;
  readonly decisions: readonly Decision[];
  readonly cancellable: boolean;
}

/** Answer is what an op answers: decisions (decide), a booking (book), whether it cancelled (cancel), usage (charge, usage), or nothing. */
export type Answer = readonly Decision[] | Booked | boolean | UsageFigures | undefined;

/** refsOf lists every row `op` reads or writes: its parts', its ban's and its ledgers'. */
export function refsOf(op: RowOp): RowRef[] {
  const refs: RowRef[] = [...op.parts];
  if ('ban' in op && op.ban !== undefined) refs.push(op.ban);
  if ('ledgers' in op && op.ledgers !== undefined) refs.push(...op.ledgers);
  return refs;
}

/** byId orders rows as their ids sort (the one lock order of every process). */
export function byId(a: RowRef, b: RowRef): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** distinctRefs is the distinct rows of `ops`, sorted by id. */
export function distinctRefs(ops: readonly RowOp[]): RowRef[] {
  const seen = new Map<string, RowRef>();
  for (const op of ops) for (const ref of refsOf(op)) if (!seen.has(ref.id)) seen.set(ref.id, { id: ref.id, name: ref.name });
  return [...seen.values()].sort(byId);
}
