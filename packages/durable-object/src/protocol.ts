/**
 * The wire between a Worker and a RateLimiterObject: one RPC, `run(batch)`, carrying the kit's ops
 * (RowOp) of one request's turn as plain data (structured clone: every double exact). The object is the
 * key, so no row id travels: parts name their policies by index into `batch.policies` (the object
 * rebuilds each step from its policy, core's own steps only), bans and ledgers their rows by name, and
 * `now` travels with `time: 'client'` only. The kit's answers come back as they are, and the Worker puts
 * its own policy objects back in their decisions. Past `deadline` (the object's clock; 0: none) the
 * object changes nothing and replies `expired`: minus its clock.
 */
import type { Decision, Policy } from '@ratekeeper/core';
import { type Answer, type Booked, Failure, type RowOp, type UsageFigures } from '@ratekeeper/core/store';

type Wire = { readonly parts: readonly number[]; readonly now?: number; readonly ban?: { readonly name: string; readonly banMs: number }; readonly ledgers?: readonly string[] };
type Wired<O> = O extends RowOp ? Omit<O, 'parts' | 'now' | 'ban' | 'ledgers'> & Wire : never;
/** Op is a RowOp on the wire (above). */
export type Op = Wired<RowOp>;
export type Batch = { readonly deadline: number; readonly policies: readonly Policy[]; readonly ops: readonly Op[] };
/** Reply is one kit Answer per op, in order (null for none), or `expired`. */
export type Reply = readonly (Answer | null)[] | number;
export type { Answer };

/** UNREADABLE: a reply of the wrong shape (an object of another version, or of another class). */
export const UNREADABLE = new Failure('reply', new TypeError('DurableObjectStore: the object answered with an unexpected shape'));

/** wireOp puts `op` on the wire, `indexOf` numbering its policies. */
export function wireOp(op: RowOp, indexOf: (policy: Policy) => number, clientTime: boolean): Op {
  const { parts, now, ...rest } = op;
  const wire: Record<string, unknown> = { ...rest, parts: parts.map((part) => indexOf(part.policy)), ...(clientTime ? { now } : {}) };
  if ('ban' in op && op.ban !== undefined) wire['ban'] = { name: op.ban.name, banMs: op.ban.banMs };
  if ('ledgers' in op && op.ledgers !== undefined) wire['ledgers'] = op.ledgers.map((ledger) => ledger.name);
  return wire as Op;
}

/** answerOf reads `op`'s answer off the wire, its decisions around the op's own policies. */
export function answerOf(op: RowOp, answer: unknown): Answer | Failure {
  if (op.kind === 'cancel') return typeof answer === 'boolean' ? answer : UNREADABLE;
  if (op.kind === 'charge' || op.kind === 'usage') return isUsage(answer) ? answer : UNREADABLE;
  if (op.kind !== 'decide' && op.kind !== 'book') return answer === null ? undefined : UNREADABLE;
  const booked = op.kind === 'book' ? (answer as Partial<Booked> | undefined) : undefined;
  const decisions = booked === undefined ? answer : booked.decisions;
  if (!Array.isArray(decisions) || decisions.length !== op.parts.length || (booked !== undefined && typeof booked.ok !== 'boolean')) return UNREADABLE;
  const own = decisions.map((d: Decision, i) => ({ ...d, policy: op.parts[i]?.policy as Policy }));
  return booked === undefined ? own : ({ ...booked, decisions: own } as Booked);
}

/** isUsage checks a charge's or a usage read's answer: four numbers (the kit's UsageFigures). */
function isUsage(answer: unknown): answer is UsageFigures {
  if (typeof answer !== 'object' || answer === null) return false;
  const a = answer as Record<string, unknown>;
  return ['used', 'remaining', 'resetAfterMs', 'blockedMs'].every((k) => typeof a[k] === 'number');
}
