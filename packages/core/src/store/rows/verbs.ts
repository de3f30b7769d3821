/**
 * verbs: rate-limiter-flexible's verbs on locked rows (./apply.ts dispatches to them), with core's own
 * steps, as the memory store runs them (memory/memory-binding.ts, memory/memory-ban.ts):
 *
 * - charge: the part's algorithm's charge step, written whatever the limit says (Algorithm.charge),
 *   answering the usage after it; a ban, if the op names one, is read for `blockedMs`, never started;
 * - usage: the part's usage at `at`, with the time left in its ban; it writes nothing (an ended ban
 *   is left for the next decision or the store's expiry to clear);
 * - block: the ban row set to end at at + ms, or kept when it ends later, with cost 0: the cost whose
 *   denial started a ban, which a refund's lift reads (./apply.ts), and 0 never lifts (core's ban.ts).
 */
import { stepOutput, usageOutput } from '../../algorithm.js';
import type { BanRef, BlockOp, ChargeOp, Part, UsageFigures, UsageOp } from './ops.js';
import { type Row, type Rows, writeRow } from './row.js';

const scratch = usageOutput();

function stateOf(rows: Rows, id: string): Float64Array | undefined {
  return (rows.get(id) as Row).state;
}

/** banLeft is the time left at `at` in the ban `ban` names (0 when none stands), read only. */
function banLeft(rows: Rows, ban: BanRef | undefined, at: number): number {
  if (ban === undefined) return 0;
  const state = stateOf(rows, ban.id);
  const until = state === undefined ? 0 : (state[0] as number);
  return at < until ? until - at : 0;
}

/** usageOf reads `part`'s usage at `at`, with `blockedMs` left in its ban. */
function usageOf(part: Part, rows: Rows, at: number, blockedMs: number): UsageFigures {
  const { algorithm, policy } = part;
  if (algorithm.usage === undefined) throw new TypeError(`row store: ${algorithm.name} cannot read usage`);
  algorithm.usage(policy, stateOf(rows, part.id), 0, at, scratch);
  if (blockedMs <= 0) return { used: scratch.used, remaining: scratch.remaining, resetAfterMs: scratch.resetAfterMs, blockedMs: 0 };
  return { used: scratch.used, remaining: 0, resetAfterMs: blockedMs > scratch.resetAfterMs ? blockedMs : scratch.resetAfterMs, blockedMs };
}

/** charge runs the charge op (above). */
export function charge(op: ChargeOp, rows: Rows, at: number): UsageFigures {
  const part = op.parts[0] as Part;
  const { algorithm, policy } = part;
  if (algorithm.charge === undefined) throw new TypeError(`row store: ${algorithm.name} cannot charge`);
  const out = stepOutput(algorithm.stateSize);
  algorithm.charge(policy, stateOf(rows, part.id), 0, at, op.cost, out);
  writeRow(rows, part.id, Float64Array.from(out.next), at + out.ttlMs, algorithm.fill(policy, out.next, 0, at));
  return usageOf(part, rows, at, banLeft(rows, op.ban, at));
}

/** usage runs the usage op (above). */
export function usage(op: UsageOp, rows: Rows, at: number): UsageFigures {
  return usageOf(op.parts[0] as Part, rows, at, banLeft(rows, op.ban, at));
}

/** block runs the block op (above). */
export function block(op: BlockOp, rows: Rows, at: number): void {
  const left = banLeft(rows, op.ban, at);
  const until = left > op.ms ? at + left : at + op.ms;
  writeRow(rows, op.ban.id, Float64Array.of(until, 0), until);
}
