/**
 * Header properties over real limiters and composites (reliability plan, scenarios 45 and 51), on
 * random policies, names and request histories on a ManualClock, for keys full of CR, LF, NUL and
 * non-ASCII:
 * - every header name and value written in any style is printable ASCII, and the draft-10 fields
 *   parse as one `"name";q=…;w=…` / `"name";r=…;t=…` item per policy, in member order;
 * - on a denial, Retry-After is whole seconds ≥ 1, never earlier than retryAfterMs (the same request
 *   is admitted at now + Retry-After), and no denying item's `t` is later than Retry-After;
 * - when admitted, each item's `t` is its reset rounded up, never earlier than the truth.
 * The same harness catches a writer that rounds Retry-After to the nearest second (mutant). Policy
 * names can only come from the validator's alphabet: every other name is refused at construction.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CompositeLimiter,
  type Decision,
  FixedWindowLimiter,
  type HeaderStyle,
  ManualClock,
  type Policy,
  type RateLimiter,
  SlidingWindowLimiter,
  TokenBucketLimiter,
} from '../../src/index.js';
import { policyField, writeHeaders } from '../../src/adapter.js';
import { roundedRetryAfterSeconds } from './mutants.js';
import { type Headers, header, recorder } from './support.js';

const NAME = /^[A-Za-z0-9_.:-]{1,64}$/;
const STYLES: HeaderStyle[] = ['draft-10', 'legacy', 'both', false];
const PRINTABLE = /^[\x20-\x7e]*$/;

interface Spec {
  readonly build: (clock: ManualClock) => RateLimiter<'sync'>;
  readonly limit: number;
  readonly scaleMs: number;
}

const name = fc.stringMatching(NAME);
const bucket = fc.record({
  name,
  capacity: fc.integer({ min: 1, max: 12 }),
  refill: fc.oneof(fc.constantFrom(0.5, 1 / 3, 1, 7, 1000), fc.double({ min: 0.05, max: 500, noNaN: true })),
});
const windowed = fc.record({
  name,
  sliding: fc.boolean(),
  limit: fc.integer({ min: 1, max: 10 }),
  windowMs: fc.oneof(fc.constantFrom(1, 7, 1000, 60_000), fc.integer({ min: 2, max: 5000 })),
});
const spec: fc.Arbitrary<Spec> = fc.oneof(
  bucket.map(({ name: n, capacity, refill }) => ({
    build: (clock: ManualClock) => new TokenBucketLimiter({ capacity, refillPerSecond: refill, name: n, clock }),
    limit: capacity,
    scaleMs: Math.ceil((capacity * 1000) / refill),
  })),
  windowed.map(({ name: n, sliding, limit, windowMs }) => ({
    build: (clock: ManualClock) => (sliding ? new SlidingWindowLimiter({ limit, windowMs, name: n, clock }) : new FixedWindowLimiter({ limit, windowMs, name: n, clock })),
    limit,
    scaleMs: windowMs,
  })),
);

const scenario = fc.array(spec, { minLength: 1, maxLength: 3 }).chain((specs) => {
  const limit = Math.min(...specs.map((s) => s.limit));
  const scale = Math.max(...specs.map((s) => s.scaleMs));
  const move = fc.record({
    dt: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: Math.max(1, Math.ceil(scale / 8)) }), fc.integer({ min: 1, max: 2 * scale })),
    cost: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: limit + 1 })),
  });
  return fc.record({
    specs: fc.constant(specs),
    start: fc.integer({ min: 1_577_836_800_000, max: 1_893_456_000_000 }),
    key: fc.string({ unit: 'binary', maxLength: 12 }).map((k) => `${k}\r\n\0\u2028é`),
    moves: fc.array(move, { minLength: 1, maxLength: 40 }),
  });
});

type Write = (decision: Decision, style: HeaderStyle, policy: string) => Headers;

const realWrite: Write = (decision, style, policy) => {
  const { headers, set } = recorder();
  writeHeaders(headers, set, decision, style, policy);
  return headers;
};

const roundingWrite: Write = (decision, style, policy) =>
  realWrite(decision, style, policy).map(([n, v]) => [n, n === 'Retry-After' ? String(roundedRetryAfterSeconds(decision)) : v]);

/** items parses a draft-10 field into its items, or throws when any item is malformed. */
function items(field: string | undefined, a: string, b: string): { name: string; a: number; b: number }[] {
  const item = new RegExp(`^"([A-Za-z0-9_.:-]{1,64})";${a}=(\\d{1,15});${b}=(\\d{1,15})$`);
  return (field ?? '').split(', ').map((text) => {
    const m = item.exec(text);
    if (m === null) throw new Error(`malformed item ${JSON.stringify(text)} in ${JSON.stringify(field)}`);
    return { name: m[1] as string, a: Number(m[2]), b: Number(m[3]) };
  });
}

function checkFields(d: Decision, h: Headers, policies: readonly Policy[]): void {
  const declared = items(header(h, 'RateLimit-Policy'), 'q', 'w');
  expect(declared.map((x) => [x.name, x.a])).toEqual(policies.map((p) => [p.name, p.limit]));
  for (const [i, p] of policies.entries()) expect(roundedUp((declared[i] as { b: number }).b, p.windowMs), `w of ${p.name}`).toBe(true);
  const parts = d.parts ?? [d];
  const found = items(header(h, 'RateLimit'), 'r', 't');
  expect(found.map((x) => [x.name, x.a])).toEqual(parts.map((p) => [p.policy.name, p.remaining]));
  expect(Number(header(h, 'X-RateLimit-Remaining'))).toBeLessThanOrEqual(Number(header(h, 'X-RateLimit-Limit')));
  const retry = header(h, 'Retry-After');
  if (d.allowed || d.retryAfterMs === Number.POSITIVE_INFINITY) {
    expect(retry).toBeUndefined();
    if (d.allowed) for (const [i, p] of parts.entries()) expect(roundedUp((found[i] as { b: number }).b, p.resetAfterMs), `t of ${p.policy.name}`).toBe(true);
    return;
  }
  if (retry === undefined || !/^[1-9]\d*$/.test(retry) || !roundedUp(Number(retry), d.retryAfterMs)) throw new Error(`Retry-After ${retry} for ${d.retryAfterMs} ms`);
  const denying = found.filter((_, i) => !(parts[i] as Decision).allowed).map((x) => x.b);
  expect(Math.max(...denying), `t of the denying items ${denying} against Retry-After ${retry}`).toBe(Number(retry));
}

/** roundedUp: `s` seconds cover `ms` and overshoot it by less than a second. */
function roundedUp(s: number, ms: number): boolean {
  return ms <= 0 ? s === 0 : s * 1000 >= ms && (s - 1) * 1000 < ms;
}

function headerProperty(write: Write) {
  return fc.property(scenario, ({ specs, start, key, moves }) => {
    const clock = new ManualClock(start);
    const members = specs.map((s) => s.build(clock));
    const limiter = members.length === 1 ? (members[0] as RateLimiter<'sync'>) : new CompositeLimiter(members);
    const policy = policyField(limiter.policies);
    let now = start;
    for (const [i, move] of moves.entries()) {
      clock.set((now += move.dt));
      const d = limiter.consume(key, move.cost);
      for (const style of STYLES) {
        for (const [n, v] of write(d, style, policy)) if (!PRINTABLE.test(n) || !PRINTABLE.test(v) || v === '') throw new Error(`step ${i}: ${n}: ${JSON.stringify(v)}`);
      }
      const h = write(d, 'both', policy);
      checkFields(d, h, limiter.policies);
      if (d.allowed || d.retryAfterMs === Number.POSITIVE_INFINITY) continue;
      clock.set(now + Number(header(h, 'Retry-After')) * 1000);
      if (!limiter.peek(key, move.cost).allowed) throw new Error(`step ${i} at ${now}: denied again after Retry-After ${header(h, 'Retry-After')}`);
      clock.set(now);
    }
  });
}

describe('rate-limit headers', () => {
  it('are printable, well-formed, and never earlier than the truth, for any history', () => {
    fc.assert(headerProperty(realWrite), { numRuns: 300 });
  });

  it('catch a Retry-After rounded to the nearest second (mutant)', () => {
    expect(fc.check(headerProperty(roundingWrite), { numRuns: 300 }).failed).toBe(true);
  });

  it('come only from policy names in the validator’s alphabet: every other name is refused', () => {
    const outside = fc.string({ unit: 'binary', maxLength: 70 }).filter((s) => !NAME.test(s));
    const spliced = fc
      .tuple(name, fc.constantFrom('"', '\\', ' ', ',', ';', '=', '\r', '\n', '\0', '\x7f', 'é', '\u2028'), fc.nat())
      .map(([n, c, at]) => n.slice(0, at % (n.length + 1)) + c + n.slice(at % (n.length + 1)));
    fc.assert(
      fc.property(fc.oneof(outside, spliced), (bad) => {
        expect(() => new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, name: bad })).toThrow(/name must be 1 to 64 characters/);
        expect(() => new SlidingWindowLimiter({ limit: 1, windowMs: 1, name: bad })).toThrow(/name must be 1 to 64 characters/);
        expect(() => new FixedWindowLimiter({ limit: 1, windowMs: 1, name: bad })).toThrow(/name must be 1 to 64 characters/);
      }),
      { numRuns: 1000 },
    );
  });
});
