/**
 * Rate-limit response headers, shared by every adapter.
 *
 * - `Retry-After` (RFC 9110 delay-seconds) on every limited response whose request can ever succeed:
 *   the wait rounded UP to whole seconds, at least 1, so a client that obeys it is never early. A cost
 *   that can never be granted gets no Retry-After (waiting would not help).
 * - 'draft-10' (default): the IETF `RateLimit-Policy` and `RateLimit` fields of
 *   draft-ietf-httpapi-ratelimit-headers-10, Structured Field Lists with one item per policy that
 *   applied (every member of a composite): `"name";q=<quota>;w=<window s>` and `"name";r=<remaining>;
 *   t=<s>`. A concurrency limit has no window: its policy item is `"name";q=<limit>;qu="concurrent-requests"`
 *   (the draft's quota unit for requests in flight), with no `w`. `t` is when more quota is available: the Retry-After value on a denial (so Retry-After is
 *   never earlier than `t`), the time to a full reset otherwise (never earlier than the truth).
 * - 'legacy': `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (delta seconds) of the
 *   most restrictive policy (replaced, not appended, by a later limiter on the same request); 'both' writes both sets; false writes none (Retry-After still goes out).
 * Values are built only from policy names (validated to a header-safe alphabet) and numbers: no key
 * and no user text ever reaches a header.
 */
import type { Decision } from '../../decision.js';
import type { Policy } from '../../policy.js';
import { describeValue } from '../../validate.js';

export type HeaderStyle = 'draft-10' | 'legacy' | 'both' | false;

/**
 * HeaderSetter writes one header on a framework's response object. With `append`, it adds a field
 * line instead of replacing one, so that stacked limiters (a global one and a route's) each contribute
 * their items to the RateLimit and RateLimit-Policy Lists, as draft-10 allows (RFC 9651 §3.1).
 */
export type HeaderSetter<Res> = (res: Res, name: string, value: string, append: boolean) => void;

export function checkHeaderStyle(owner: string, value: unknown): HeaderStyle {
  if (value === 'draft-10' || value === 'legacy' || value === 'both' || value === false) return value;
  throw new TypeError(`${owner}: headers must be 'draft-10', 'legacy', 'both' or false, got ${describeValue(value)}`);
}

/** seconds rounds milliseconds up to whole seconds (never earlier than the truth), never negative. */
export function seconds(ms: number): number {
  return ms > 0 ? Math.ceil(ms / 1000) : 0;
}

/** retryAfterSeconds is the Retry-After value for a denial, or undefined when waiting cannot help. */
export function retryAfterSeconds(decision: Decision): number | undefined {
  const ms = decision.retryAfterMs;
  if (!Number.isFinite(ms)) return undefined;
  return ms > 1000 ? Math.ceil(ms / 1000) : 1;
}

/** policyField is the RateLimit-Policy value for a set of policies (constant per limiter: compute once). */
export function policyField(policies: readonly Policy[]): string {
  return policies
    .map((p) => (p.algorithm === 'concurrency' ? `"${p.name}";q=${p.limit};qu="concurrent-requests"` : `"${p.name}";q=${p.limit};w=${Math.max(1, seconds(p.windowMs))}`))
    .join(', ');
}

/** limitField is the RateLimit value for a decision: one item per member decision. */
export function limitField(decision: Decision): string {
  const parts = decision.parts;
  if (parts === undefined) return limitItem(decision);
  let field = limitItem(parts[0] as Decision);
  for (let i = 1; i < parts.length; i++) field += `, ${limitItem(parts[i] as Decision)}`;
  return field;
}

/**
 * The last item built, by what it is built from: a client under its limit repeats its `r` and `t`
 * (a bucket that refilled to full answers capacity − 1 each time), and so does every 429 of one
 * policy within a second, so the item string is reused instead of built and kept as garbage per
 * request. One entry, so its cost on a miss is three comparisons; the item is a pure function of
 * the three, so the cache is shared by every limiter in the process.
 */
let lastPolicy: Decision['policy'] | undefined;
let lastRemaining = Number.NaN;
let lastT = Number.NaN;
let lastItem = '';

function limitItem(d: Decision): string {
  const t = d.allowed ? seconds(d.resetAfterMs) : (retryAfterSeconds(d) ?? seconds(d.resetAfterMs));
  if (d.policy === lastPolicy && d.remaining === lastRemaining && t === lastT) return lastItem;
  lastPolicy = d.policy;
  lastRemaining = d.remaining;
  lastT = t;
  lastItem = `"${d.policy.name}";r=${d.remaining};t=${t}`;
  return lastItem;
}

/**
 * writeHeaders writes the chosen rate-limit headers for `decision` (plus Retry-After when it is a
 * denial that waiting can cure, and that is blocked: a shadow-mode denial passes without one).
 * `policy` is the precomputed policyField of the limiter.
 */
export function writeHeaders<Res>(res: Res, set: HeaderSetter<Res>, decision: Decision, style: HeaderStyle, policy: string, blocked = !decision.allowed): void {
  if (style === 'draft-10' || style === 'both') {
    set(res, 'RateLimit-Policy', policy, true);
    set(res, 'RateLimit', limitField(decision), true);
  }
  if (style === 'legacy' || style === 'both') {
    set(res, 'X-RateLimit-Limit', String(decision.limit), false);
    set(res, 'X-RateLimit-Remaining', String(decision.remaining), false);
    set(res, 'X-RateLimit-Reset', String(seconds(decision.resetAfterMs)), false);
  }
  if (blocked) {
    const retry = retryAfterSeconds(decision);
    if (retry !== undefined) set(res, 'Retry-After', String(retry), false);
  }
}
