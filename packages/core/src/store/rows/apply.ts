/**
 * apply: one op's work on the rows its store has locked, with core's own TypeScript steps (the
 * algorithm's `evaluate` and `refund`, the very code the memory store runs), on the states the ops
 * before it left. So a batch decides exactly as its ops would have one by one on the memory store, and
 * nothing of an algorithm is ported to a store's language, where it could drift from the specification.
 *
 * - decide: every part evaluates; only if all admit does any record (a composite is all or nothing);
 *   a part that admitted inside a denied composite reports what it holds as it stands. A denial
 *   records nothing. A concurrency part decides on the number of its row's leases still live and, when
 *   admitted, takes leases of its holder (core's lease rows).
 * - a ban in front of the op's one part (core's ban.ts; a row of its own, [the instant it ends, the
 *   cost whose denial started it]): a banned key is denied with the time left, changing nothing; outside
 *   a ban the first denial that waiting could cure starts one (a peek starts none); a refund gives back
 *   first, then lifts the ban when the algorithm now admits the cost that started it; a reset lifts it.
 * - book and cancel: the memory store's own booking code (./book.ts);
 * - charge, usage and block: rate-limiter-flexible's verbs (./verbs.ts).
 *
 * Pure apart from the StepOutput scratch: it reads the rows it is given, changes them in place (marked
 * dirty) and answers; the store writes the dirty rows only if it commits.
 */
import type { Decision } from '../../decision.js';
import { bannedDecision } from '../../decision.js';
import { type StepOutput, stepOutput, toDecision } from '../../algorithm.js';
import { leaseView, releaseLeases, renewLeases, takeLeases } from '../leases/lease-rows.js';
import { book, cancel } from './book.js';
import { block, charge, usage } from './verbs.js';
import type { Answer, BanRef, DecideOp, Part, RowOp } from './ops.js';
import { PINNED, type Row, type Rows, writeRow } from './row.js';

const scratch = new Map<number, StepOutput>();

function outFor(size: number): StepOutput {
  let out = scratch.get(size);
  if (out === undefined) scratch.set(size, (out = stepOutput(size)));
  return out;
}

function stateOf(rows: Rows, id: string): Float64Array | undefined {
  return (rows.get(id) as Row).state;
}

/** applyOp runs `op` at `at` over `rows` (which hold every row refsOf(op) names) and answers it. */
export function applyOp(op: RowOp, rows: Rows, at: number): Answer {
  switch (op.kind) {
    case 'decide':
      return op.ban === undefined ? decide(op, rows, at) : banned(op, op.ban, rows, at);
    case 'refund': {
      for (const part of op.parts) refund(part, rows, at, op.cost);
      if (op.ban !== undefined) liftIfAdmitted(op.parts[0] as Part, op.ban, rows, at);
      return undefined;
    }
    case 'reset':
      for (const part of op.parts) writeRow(rows, part.id, undefined, 0);
      for (const ledger of op.ledgers ?? []) writeRow(rows, ledger.id, undefined, 0);
      if (op.ban !== undefined) writeRow(rows, op.ban.id, undefined, 0);
      return undefined;
    case 'renew':
      for (const part of op.parts) {
        const renewed = renewLeases(stateOf(rows, part.id), part.lease as NonNullable<Part['lease']>, at);
        writeRow(rows, part.id, renewed.state, renewed.expiresAt, PINNED);
      }
      return undefined;
    case 'book':
      return book(op, rows, at);
    case 'cancel':
      return cancel(op, rows, at);
    case 'charge':
      return charge(op, rows, at);
    case 'usage':
      return usage(op, rows, at);
    case 'block':
      block(op, rows, at);
      return undefined;
  }
}

/** banned decides `op` with `ban` in front of its one part (see above). */
function banned(op: DecideOp, ban: BanRef, rows: Rows, at: number): readonly Decision[] {
  const { policy } = op.parts[0] as Part;
  const held = banOf(rows, ban, at);
  if (held !== undefined) return [bannedDecision(policy, held.until - at)];
  const decision = (decide(op, rows, at) as Decision[])[0] as Decision;
  if (decision.allowed || decision.retryAfterMs === Number.POSITIVE_INFINITY) return [decision];
  if (op.commit) writeRow(rows, ban.id, Float64Array.of(at + ban.banMs, op.cost), at + ban.banMs);
  return [bannedDecision(policy, ban.banMs)];
}

/** liftIfAdmitted lifts a running ban once the part now admits the cost whose denial started it. */
function liftIfAdmitted(part: Part, ban: BanRef, rows: Rows, at: number): void {
  const held = banOf(rows, ban, at);
  if (held === undefined || !(held.cost > 0)) return; // a block (cost 0) is lifted by no refund
  const out = outFor(part.algorithm.stateSize);
  part.algorithm.evaluate(part.policy, stateOf(rows, part.id), 0, at, held.cost, out);
  if (out.allowed) writeRow(rows, ban.id, undefined, 0);
}

/**
 * banOf is the ban held at `at`: its end and the cost whose denial started it, or undefined. An ended
 * ban is emptied when seen, as the memory store drops it, so a clock that then steps back finds no ban
 * there either (its expiry is the ban's end: a store deletes it unseen too).
 */
function banOf(rows: Rows, ban: BanRef, at: number): { until: number; cost: number } | undefined {
  const state = stateOf(rows, ban.id);
  if (state === undefined) return undefined;
  const until = state[0] as number;
  if (at < until) return { until, cost: state[1] as number };
  writeRow(rows, ban.id, undefined, 0);
  return undefined;
}

/** refund gives back with the algorithm's refund step; for a lease part, it drops the holder's units named (a release). */
function refund(part: Part, rows: Rows, at: number, cost: number): void {
  if (part.lease !== undefined) {
    const left = releaseLeases(stateOf(rows, part.id), part.lease, at);
    if (left !== undefined) writeRow(rows, part.id, left.state, left.expiresAt, PINNED);
    return;
  }
  const { algorithm, policy } = part;
  const state = stateOf(rows, part.id);
  if (algorithm.refund === undefined || state === undefined) return;
  const out = outFor(algorithm.stateSize);
  if (algorithm.refund(policy, state, 0, at, cost, out)) writeRow(rows, part.id, Float64Array.from(out.next), at + out.ttlMs, algorithm.fill(policy, out.next, 0, at));
}

/** viewOf is the state a part's step decides on: its row's, or for a lease part the count of its live leases. */
function viewOf(part: Part, rows: Rows, at: number): Float64Array | undefined {
  const state = stateOf(rows, part.id);
  return part.lease === undefined ? state : leaseView(state, at);
}

function decide(op: DecideOp, rows: Rows, at: number): readonly Decision[] {
  const { parts, cost } = op;
  const decisions: Decision[] = [];
  const nexts: (Float64Array | undefined)[] = [];
  const ttls: number[] = [];
  let allowed = true;
  for (const part of parts) {
    const out = outFor(part.algorithm.stateSize);
    if (part.lease !== undefined) part.lease.taken = [];
    part.algorithm.evaluate(part.policy, viewOf(part, rows, at), 0, at, cost, out);
    decisions.push(toDecision(out, part.policy));
    nexts.push(part.lease === undefined && out.allowed ? Float64Array.from(out.next) : undefined);
    ttls.push(out.ttlMs);
    if (!out.allowed) allowed = false;
  }
  if (!allowed) return decisions.map((d, i) => (d.allowed ? held(parts[i] as Part, rows, at) : d));
  if (op.commit) {
    parts.forEach((part, i) => {
      if (part.lease !== undefined) {
        const next = takeLeases(stateOf(rows, part.id), part.lease, at, cost);
        writeRow(rows, part.id, next.state, next.expiresAt, PINNED);
        return;
      }
      const next = nexts[i] as Float64Array;
      writeRow(rows, part.id, next, at + (ttls[i] as number), part.algorithm.fill(part.policy, next, 0, at));
    });
  }
  return decisions;
}

/** held reports what a part that admitted inside a denied composite holds as it stands (as the memory store's `held`). */
function held(part: Part, rows: Rows, at: number): Decision {
  const { algorithm, policy } = part;
  const out = outFor(algorithm.stateSize);
  algorithm.evaluate(policy, viewOf(part, rows, at), 0, at, Number.MAX_SAFE_INTEGER, out);
  return { allowed: true, limit: policy.limit, remaining: out.remaining, retryAfterMs: 0, resetAfterMs: out.resetAfterMs, policy };
}
