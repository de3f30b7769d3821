/**
 * apply: a batch's work, run in this process on the rows its transaction has locked. The calls are
 * taken in arrival order, each with core's own TypeScript steps (the algorithm's `evaluate` and
 * `refund`, the very code the memory store runs), on the states the earlier calls of the batch left:
 * so a batch decides exactly as its calls would have one by one, and nothing is ported to SQL that
 * could drift from the specification. A composite is all or nothing as on the memory store: every
 * member evaluates, and only if all admit does any of them record; a member that admitted inside a
 * denied composite reports what it holds as it stands. A denial records nothing.
 *
 * Pure apart from the StepOutput scratch: it reads the states it is given and answers the results
 * and the rows to write; the transaction (../wire/transaction.ts) writes them only if it can commit.
 *
 * An op may carry a ban in front of its one part (core's ban.ts, ../bindings/bans.ts): the ban is a row of its
 * own, [the instant it ends, the cost whose denial started it], locked with the op's other rows, so it
 * is decided in the same transaction and in the same order as the algorithm's state (below, banned).
 */
import type { Algorithm, Decision, Policy } from '@ratekeeper/core';
import { type LeaseWork, type StepOutput, bannedDecision, leaseView, releaseLeases, renewLeases, stepOutput, takeLeases, toDecision } from '@ratekeeper/core/store';

/** Part is one policy's share of a call: its algorithm, policy and row key (hex); a concurrency part carries its lease work (core's lease rows). */
export interface Part {
  readonly algorithm: Algorithm<Policy>;
  readonly policy: Policy;
  readonly row: string;
  readonly lease?: LeaseWork;
}

/** Ban is a ban in front of an op's one part: the ban's row key (hex) and how long a ban lasts. */
export interface Ban {
  readonly row: string;
  readonly banMs: number;
}

/**
 * Op is one call in a batch: decide (consume or peek: `commit`), refund or reset, over its parts (one
 * for a single limiter, the members of a composite), with a ban in front of its one part when given;
 * or a booking or a cancel ('book': ../bindings/reserve.ts), which reads and writes its parts' rows and their
 * `ledgers` rows through its own `book`. `now` is the caller's clock, used when the store takes time
 * from its clients.
 */
export interface Op {
  readonly kind: 'decide' | 'refund' | 'reset' | 'book' | 'renew';
  readonly parts: readonly Part[];
  readonly now: number;
  readonly cost: number;
  readonly commit: boolean;
  readonly ban?: Ban;
  /** A booking's ledger rows (hex), one per part. */
  readonly ledgers?: readonly string[];
  /** A booking's or a cancel's work on the locked rows at `at`: its decisions, or undefined. */
  readonly book?: (rows: Map<string, RowState>, at: number) => readonly Decision[] | undefined;
}

/** rowsOf lists every row `op` reads or writes: its parts', its ban's and its ledgers'. */
export function rowsOf(op: Op): string[] {
  const rows = op.parts.map((part) => part.row);
  if (op.ban !== undefined) rows.push(op.ban.row);
  if (op.ledgers !== undefined) rows.push(...op.ledgers);
  return rows;
}

/** Row is a locked row's state as the batch sees it, changed by the calls in order. */
export interface RowState {
  state: Float64Array | undefined;
  expiresAt: number;
  dirty: boolean;
}

const scratch = new Map<number, StepOutput>();

function outFor(size: number): StepOutput {
  let out = scratch.get(size);
  if (out === undefined) {
    out = stepOutput(size);
    scratch.set(size, out);
  }
  return out;
}

/** apply runs `op` at `at` over `rows`, answering its decisions (decide) or undefined. */
export function apply(op: Op, rows: Map<string, RowState>, at: number): readonly Decision[] | undefined {
  if (op.book !== undefined) return op.book(rows, at);
  return op.ban === undefined ? run(op, rows, at) : banned(op, op.ban, rows, at);
}

function run(op: Op, rows: Map<string, RowState>, at: number): readonly Decision[] | undefined {
  if (op.kind === 'renew') {
    for (const part of op.parts) renew(part, part.lease as LeaseWork, rows, at);
    return undefined;
  }
  if (op.kind === 'reset') {
    for (const part of op.parts) writeRow(rows, part.row, undefined, 0);
    for (const ledger of op.ledgers ?? []) writeRow(rows, ledger, undefined, 0);
    return undefined;
  }
  if (op.kind === 'refund') {
    for (const part of op.parts) refund(part, rows, at, op.cost);
    return undefined;
  }
  return decide(op, rows, at);
}

/**
 * banned runs `op` with `ban` in front of its one part, as the memory store's MemoryBans: a banned key
 * is denied with the time left, changing nothing; outside a ban, the first denial that waiting could
 * cure starts a ban of banMs from `at` and is answered as its first denial (a peek starts none); a
 * refund gives back first, then lifts the ban when the algorithm now admits the cost that started it;
 * a reset lifts it and empties the key.
 */
function banned(op: Op, ban: Ban, rows: Map<string, RowState>, at: number): readonly Decision[] | undefined {
  if (op.kind === 'reset') {
    writeRow(rows, ban.row, undefined, 0);
    return run(op, rows, at);
  }
  if (op.kind === 'refund') {
    run(op, rows, at);
    const held = banOf(rows, ban.row, at);
    if (held !== undefined && (decide({ ...op, kind: 'decide', cost: held.cost, commit: false }, rows, at)[0] as Decision).allowed) writeRow(rows, ban.row, undefined, 0);
    return undefined;
  }
  const { policy } = op.parts[0] as Part;
  const held = banOf(rows, ban.row, at);
  if (held !== undefined) return [bannedDecision(policy, held.until - at)];
  const decision = decide(op, rows, at)[0] as Decision;
  if (decision.allowed || decision.retryAfterMs === Number.POSITIVE_INFINITY) return [decision];
  if (op.commit) writeRow(rows, ban.row, Float64Array.of(at + ban.banMs, op.cost), at + ban.banMs);
  return [bannedDecision(policy, ban.banMs)];
}

/**
 * banOf is the ban held in `row` at `at`: its end and the cost whose denial started it, or undefined.
 * An ended ban is emptied when seen, as the memory store drops it, so a clock that then steps back
 * finds no ban there either (the row's expiry is the ban's end: the sweep deletes it unseen too).
 */
function banOf(rows: Map<string, RowState>, row: string, at: number): { until: number; cost: number } | undefined {
  const state = (rows.get(row) as RowState).state;
  if (state === undefined) return undefined;
  const until = state[0] as number;
  if (at < until) return { until, cost: state[1] as number };
  writeRow(rows, row, undefined, 0);
  return undefined;
}

/** writeRow gives `row` its next state and expiry (written with the batch's COMMIT). */
export function writeRow(rows: Map<string, RowState>, row: string, state: Float64Array | undefined, expiresAt: number): void {
  const held = rows.get(row) as RowState;
  held.state = state;
  held.expiresAt = expiresAt;
  held.dirty = true;
}

/** renew moves the part's own live leases to a fresh expiry; the work's `taken` answers those still held. */
function renew(part: Part, lease: LeaseWork, rows: Map<string, RowState>, at: number): void {
  const renewed = renewLeases((rows.get(part.row) as RowState).state, lease, at);
  writeRow(rows, part.row, renewed.state, renewed.expiresAt);
}

/** refund gives back with the algorithm's refund step; for a lease, it drops the holder's units named (a release). */
function refund(part: Part, rows: Map<string, RowState>, at: number, cost: number): void {
  if (part.lease !== undefined) {
    const left = releaseLeases((rows.get(part.row) as RowState).state, part.lease, at);
    if (left !== undefined) writeRow(rows, part.row, left.state, left.expiresAt);
    return;
  }
  const { algorithm, policy } = part;
  const state = (rows.get(part.row) as RowState).state;
  if (algorithm.refund === undefined || state === undefined) return;
  const out = outFor(algorithm.stateSize);
  if (algorithm.refund(policy, state, 0, at, cost, out)) writeRow(rows, part.row, Float64Array.from(out.next), at + out.ttlMs);
}

/** viewOf is the state the algorithm decides on: the row's, or for a lease part the count of its live leases. */
function viewOf(part: Part, rows: Map<string, RowState>, at: number): Float64Array | undefined {
  const state = (rows.get(part.row) as RowState).state;
  return part.lease === undefined ? state : leaseView(state, at);
}

function decide(op: Op, rows: Map<string, RowState>, at: number): Decision[] {
  const { parts, cost } = op;
  const decisions: Decision[] = [];
  const nexts: { state: Float64Array | undefined; expiresAt: number }[] = [];
  let allowed = true;
  for (const part of parts) {
    const { algorithm, policy } = part;
    const out = outFor(algorithm.stateSize);
    if (part.lease !== undefined) part.lease.taken = [];
    algorithm.evaluate(policy, viewOf(part, rows, at), 0, at, cost, out);
    decisions.push(toDecision(out, policy));
    nexts.push(part.lease === undefined ? { state: Float64Array.from(out.next), expiresAt: at + out.ttlMs } : { state: undefined, expiresAt: 0 });
    if (!out.allowed) allowed = false;
  }
  if (allowed) {
    if (op.commit)
      parts.forEach((part, i) => (part.lease === undefined ? writeRow(rows, part.row, nexts[i]?.state, nexts[i]?.expiresAt ?? 0) : take(part, part.lease, rows, at, cost)));
    return decisions;
  }
  return decisions.map((d, i) => (d.allowed ? held(parts[i] as Part, rows, at) : d));
}

/** take records `cost` new leases of the part's holder (expired ones leave the row with them); the work's `taken` answers their numbers. */
function take(part: Part, lease: LeaseWork, rows: Map<string, RowState>, at: number, cost: number): void {
  const next = takeLeases((rows.get(part.row) as RowState).state, lease, at, cost);
  writeRow(rows, part.row, next.state, next.expiresAt);
}

/** held reports what a member that admitted inside a denied composite holds as it stands. */
function held(part: Part, rows: Map<string, RowState>, at: number): Decision {
  const { algorithm, policy } = part;
  const out = outFor(algorithm.stateSize);
  algorithm.evaluate(policy, viewOf(part, rows, at), 0, at, Number.MAX_SAFE_INTEGER, out);
  return { allowed: true, limit: policy.limit, remaining: out.remaining, retryAfterMs: 0, resetAfterMs: out.resetAfterMs, policy };
}
