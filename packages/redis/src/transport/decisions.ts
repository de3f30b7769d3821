/**
 * Decisions from script replies (the failure policy's own decisions are core's: @ratekeeper/core/store).
 *
 * A script answers four values per policy (see lua/scripts.ts); numbers arrive as integers or as %.17g
 * strings and are read back to the exact doubles the TypeScript step would have produced. An
 * admission with the usual figures comes as one compact integer per policy instead. A reply of any
 * other shape (a proxy or client that maps types) is not trusted and counts as a failure.
 *
 */
import type { Decision, Policy } from '@ratekeeper/core';

/** numberOf reads one number of a reply: an integer, or %.17g text ('inf' for Infinity). */
export function numberOf(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value === 'inf') return Infinity;
  if (value === '-inf') return -Infinity;
  return Number(value);
}

/** decisionAt reads the decision of the policy whose four values start at `reply[offset]`. */
export function decisionAt(reply: readonly unknown[], offset: number, policy: Policy): Decision {
  return {
    allowed: reply[offset] === 1,
    limit: policy.limit,
    remaining: numberOf(reply[offset + 1]),
    retryAfterMs: numberOf(reply[offset + 2]),
    resetAfterMs: numberOf(reply[offset + 3]),
    policy,
  };
}

/**
 * compactDecision reads an admission sent as one integer (see `compact` in lua/prelude.ts): rest·8 + t,
 * where rest = resetAfterMs·2^b + remaining and t = 1, 3 or 5 for b = 20, 32 or 50. Divisions by powers
 * of two and floor are exact here, and cheaper than % on doubles.
 */
function compactDecision(value: number, policy: Policy): Decision {
  const rest = Math.floor(value / 8);
  const tag = value - rest * 8;
  const span = tag === 1 ? 1_048_576 : tag === 3 ? 4_294_967_296 : 1_125_899_906_842_624;
  const resetAfterMs = Math.floor(rest / span);
  return { allowed: true, limit: policy.limit, remaining: rest - resetAfterMs * span, retryAfterMs: 0, resetAfterMs, policy };
}

/** decodeOne reads a single policy's reply; undefined when the reply has an unexpected shape. */
export function decodeOne(reply: unknown, policy: Policy): Decision | undefined {
  if (typeof reply === 'number') return compactDecision(reply, policy);
  return Array.isArray(reply) && reply.length === 4 ? decisionAt(reply, 0, policy) : undefined;
}

/** allowedOf reads only the verdict of a single policy's reply; undefined for an unexpected shape. */
export function allowedOf(reply: unknown): boolean | undefined {
  if (typeof reply === 'number') return true;
  return Array.isArray(reply) && reply.length === 4 ? reply[0] === 1 : undefined;
}

/** decodeAll reads a composite's reply for `policies`; undefined when it has an unexpected shape. */
export function decodeAll(reply: unknown, policies: readonly Policy[]): Decision[] | undefined {
  if (!Array.isArray(reply)) return undefined;
  const n = policies.length;
  if (reply.length === n && reply.every((v) => typeof v === 'number')) return policies.map((p, i) => compactDecision(reply[i] as number, p));
  return reply.length === 4 * n ? policies.map((p, i) => decisionAt(reply, 4 * i, p)) : undefined;
}
