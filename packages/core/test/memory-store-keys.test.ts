/**
 * MemoryStore keys (issue 7, hostile keys): a key of up to 64 code units is kept verbatim, a longer one
 * as a fixed 65-character keyed digest of all its code units, so
 * - memory per key is bounded in bytes whatever the key's length (measured after full GCs, and caught
 *   on a store that keeps keys verbatim),
 * - distinct keys never share state, however long and however alike (a property, caught on a store
 *   that truncates keys instead),
 * - no stored key is long enough for V8 to hash it by its length alone, so 20,000 keys of 20,000
 *   characters fill a table in linear time.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore, type Store, TokenBucketLimiter } from '../src/index.js';
import { MAX_VERBATIM_KEY, digestKey, storedKey } from '../src/memory/key-digest.js';
import { TruncatingStore, VerbatimStore } from './mutants/truncating-store.js';

const T0 = 1_700_000_000_000;
const gc = (globalThis as { gc?: () => void }).gc;

/** A fresh, flat key of `length` characters ending in `i` (a server reads one from a header). */
function longKey(length: number, i: number): string {
  const s = 'k'.repeat(length - 10) + String(1_000_000_000 + i);
  // A flat string of its own, as a request's header is: a rope would share its prefix with every other
  // key (V8 on Node 22 and 24 keeps the concatenation a rope through charCodeAt, so a store keeping keys
  // verbatim cost 944 bytes a key there in one run).
  return Buffer.from(s, 'latin1').toString('latin1');
}

describe('stored keys', () => {
  it('keeps keys of up to 64 code units verbatim and replaces longer ones by 65 characters', () => {
    expect(MAX_VERBATIM_KEY).toBe(64);
    for (const key of ['', '203.0.113.7', 'login:user@example.com', 'x'.repeat(64), '€'.repeat(64)]) expect(storedKey(key)).toBe(key);
    for (const length of [65, 100, 16_000, 16_384, 20_000, 100_000]) expect(storedKey(longKey(length, 7)).length).toBe(65);
  });

  it('gives a long key the same digest every time and a different one for any change of one code unit', () => {
    const base = longKey(20_000, 1);
    expect(digestKey(base)).toBe(digestKey(base.slice(0, 10_000) + base.slice(10_000)));
    const digests = new Set<string>();
    for (let at = 0; at < 20_000; at += 97) for (const c of [0, 1, 0x7f, 0xd800, 0xffff]) digests.add(digestKey(base.slice(0, at) + String.fromCharCode(c) + base.slice(at + 1)));
    expect(digests.size).toBe(Math.ceil(20_000 / 97) * 5);
    expect(digests.has(digestKey(base))).toBe(false);
  });

  it('tells apart keys that differ around the 16,384-unit chunk boundary, in either encoding', () => {
    // '😀' is a surrogate pair (kept whole across the boundary), a lone surrogate sends the whole key
    // through the UTF-16 encoding instead of UTF-8: every variant must still get its own digest.
    const variants: string[] = [];
    for (let at = 16_379; at < 16_389; at++) for (const c of ['a', 'é', '😀', '\ud800', '\udc00', '\0']) variants.push(`${'x'.repeat(at)}${c}${'y'.repeat(40)}`);
    const digests = variants.map(digestKey);
    expect(new Set(digests).size).toBe(variants.length);
    expect(variants.map((k) => digestKey(k.slice(0, 8000) + k.slice(8000)))).toEqual(digests);
  });

  it('tells apart keys that differ only in length or in a trailing zero unit', () => {
    const keys = Array.from({ length: 200 }, (_, n) => '\0'.repeat(65 + n));
    expect(new Set(keys.map(digestKey)).size).toBe(200);
  });
});

/**
 * neverShared: for two distinct keys, exhausting one leaves the other fresh. Long keys are drawn alike
 * on purpose: a shared prefix longer than 64 characters, then a difference anywhere (or only in length).
 */
function neverShared(store: () => Store<'sync'>) {
  const unit = fc.constantFrom('a', 'b', '\0', 'é', '\ud800', '😀');
  const tail = fc.array(unit, { maxLength: 40 }).map((a) => a.join(''));
  const pair = fc.record({ prefix: fc.integer({ min: 0, max: 200 }), a: tail, b: tail }).filter(({ a, b }) => a !== b);
  return fc.property(pair, ({ prefix, a, b }) => {
    const head = 'p'.repeat(prefix);
    const limiter = new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, clock: { now: () => T0 }, store: store() });
    while (limiter.allow(head + a));
    expect(limiter.peek(head + b).remaining, `keys of ${head.length + a.length} and ${head.length + b.length} characters`).toBe(2);
  });
}

describe('distinct keys, long or short, never share state', () => {
  it('holds on the memory store', () => {
    fc.assert(
      neverShared(() => new MemoryStore()),
      { numRuns: 2000 },
    );
  });

  it('catches a store that bounds keys by truncating them (mutant)', () => {
    expect(
      fc.check(
        neverShared(() => new TruncatingStore()),
        { numRuns: 2000 },
      ).failed,
    ).toBe(true);
  });
});

/** heapPerKey holds `count` fresh 16,000-character keys in a limiter on `store`; bytes of V8 heap per key. */
function heapPerKey(store: Store<'sync'>, count: number): number {
  if (gc === undefined) throw new Error('run with --expose-gc (vitest.config.ts sets it)');
  const limiter = new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1, clock: { now: () => T0 }, store });
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < count; i++) limiter.allow(longKey(16_000, i));
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  expect(limiter.peek(longKey(16_000, 0)).remaining).toBe(3); // every key is held
  return (after - before) / count;
}

describe('memory per key', () => {
  it('stays under 1,000 bytes per 16,000-character key (the keys themselves take 16,000)', () => {
    expect(heapPerKey(new MemoryStore(), 5000)).toBeLessThan(1000);
  });

  it('catches a store that keeps keys verbatim (mutant)', () => {
    // About the key's 16,000 bytes: 16,3xx on Node 20, 15,5xx on Node 22 and 24 (V8 holds the string
    // more tightly); ten times the bound above either way.
    expect(heapPerKey(new VerbatimStore(), 5000)).toBeGreaterThan(10_000);
  });
});

describe('keys past V8 hashing limit', () => {
  it('are stored short enough to be hashed by content', () => {
    expect(storedKey(longKey(20_000, 1)).length).toBeLessThan(16_384);
  });

  it('fill a table of 20,000 keys of 20,000 characters in linear time: each decided as a fresh key', () => {
    const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1, clock: { now: () => T0 } });
    let admitted = 0;
    for (let i = 0; i < 20_000; i++) if (limiter.allow(longKey(20_000, i))) admitted++;
    expect(admitted).toBe(20_000);
    expect(limiter.allow(longKey(20_000, 19_999))).toBe(false);
  }, 30_000); // about 1 s; a table holding the keys verbatim needs hours (every lookup compares every key)
});
