/**
 * The single-policy clauses, for every algorithm: consume admits exactly `limit` and then denies with
 * a wait and nothing left, also when the calls are in flight together; the store answers in its
 * declared mode (directly or with promises), with the limiter's policy; peek records nothing; allow is consume's verdict and records alike; reset
 * empties a key; costs above one count whole and a cost above the limit is denied for ever, recording
 * nothing; keys never share state, hostile ones included, and no key makes a call throw.
 */
import type { Decision, Mode, RateLimiter } from '@ratekeeper/core';
import { expect } from 'vitest';
import { ALGORITHMS, type AlgorithmCase, limiterOf } from './algorithms.js';
import { type Check, answered, check, decided } from '../check.js';

const L = 5;

/** consumeN consumes `n` times 1 and expects each allowed, remaining counting down from `from`. */
export async function consumeN(l: RateLimiter<Mode>, key: string, n: number, from: number, what: string): Promise<void> {
  for (let i = 0; i < n; i++) {
    const d = decided(await answered(() => l.consume(key)), what);
    expect(d.allowed, `${what}: consume ${i + 1} of ${n} must be allowed`).toBe(true);
    expect(d.remaining, `${what}: remaining after consume ${i + 1}`).toBe(from - i - 1);
    expect(d.retryAfterMs, `${what}: an admission waits 0`).toBe(0);
  }
}

/** expectDenied expects a denial a wait can cure: remaining 0, a finite retryAfterMs > 0. */
export function expectDenied(d: Decision, limit: number, what: string): void {
  decided(d, what);
  expect(d.allowed, `${what}: must be denied`).toBe(false);
  expect(d.remaining, `${what}: a denial leaves remaining 0`).toBe(0);
  expect(d.limit, `${what}: limit`).toBe(limit);
  expect(d.retryAfterMs, `${what}: a denial names a wait > 0`).toBeGreaterThan(0);
  expect(Number.isFinite(d.retryAfterMs), `${what}: a curable denial's wait is finite, got ${d.retryAfterMs}`).toBe(true);
}

function checksFor(a: AlgorithmCase): Check[] {
  const t = (clause: string) => `${a.algorithm}: ${clause}`;
  return [
    check(t('consume admits exactly the limit, then denies with retryAfterMs > 0 and remaining 0'), async (c) => {
      const l = limiterOf(a, c, L);
      await consumeN(l, 'k', L, L, 'consume');
      for (let i = 0; i < 3; i++) expectDenied(await answered(() => l.consume('k')), L, `consume ${L + 1 + i}`);
    }),
    check(t('peek records nothing'), async (c) => {
      const l = limiterOf(a, c, L);
      for (let i = 0; i < 2 * L; i++) {
        const d = decided(await answered(() => l.peek('k')), 'peek');
        expect(d.allowed, `peek ${i + 1} on an unused key`).toBe(true);
        expect(d.remaining, `peek ${i + 1}: remaining (what consume would leave)`).toBe(L - 1);
      }
      await consumeN(l, 'k', L, L, 'consume after peeks');
      expectDenied(await answered(() => l.peek('k')), L, 'peek on a spent key');
      expectDenied(await answered(() => l.consume('k')), L, `consume ${L + 1} after peeks`);
    }),
    check(t('allow agrees with consume and records alike'), async (c) => {
      const l = limiterOf(a, c, L);
      for (let i = 0; i < L; i++) expect(await answered(() => l.allow('k')), `allow ${i + 1}`).toBe(true);
      expect(await answered(() => l.allow('k')), `allow ${L + 1}`).toBe(false);
      expectDenied(await answered(() => l.consume('k')), L, 'consume after allows');
      const m = limiterOf(a, c, L);
      await answered(() => m.allow('k', 2));
      expect(decided(await answered(() => m.peek('k')), 'peek').remaining, 'peek after allow(2): allow recorded its cost').toBe(L - 3);
    }),
    check(t('reset empties the key'), async (c) => {
      const l = limiterOf(a, c, L);
      await answered(() => l.reset('never-used'));
      await consumeN(l, 'k', L, L, 'first');
      await answered(() => l.reset('k'));
      await consumeN(l, 'k', L, L, 'after reset');
      expectDenied(await answered(() => l.consume('k')), L, 'after reset, one more');
    }),
    check(t('costs above one count whole; a cost above the limit is denied for ever and records nothing'), async (c) => {
      const l = limiterOf(a, c, L);
      let d = decided(await answered(() => l.consume('k', 2)), 'consume(2)');
      expect([d.allowed, d.remaining], 'consume(2): allowed, remaining').toEqual([true, L - 2]);
      d = decided(await answered(() => l.consume('k', L)), `consume(${L}) with ${L - 2} left`);
      expect(d.allowed, `consume(${L}) with ${L - 2} left`).toBe(false);
      expect(d.remaining, 'a denial reports what is left').toBe(L - 2);
      expect(d.retryAfterMs, 'a curable denial names a finite wait > 0').toBeGreaterThan(0);
      expect(Number.isFinite(d.retryAfterMs), 'a curable denial names a finite wait').toBe(true);
      d = decided(await answered(() => l.consume('k', L - 2)), `consume(${L - 2})`);
      expect([d.allowed, d.remaining], `consume(${L - 2}) takes the rest exactly`).toEqual([true, 0]);
      const m = limiterOf(a, c, L);
      d = decided(await answered(() => m.consume('k', L + 1)), `consume(${L + 1})`);
      expect(d.allowed, `consume(${L + 1}) above the limit`).toBe(false);
      expect(d.retryAfterMs, `consume(${L + 1}): never satisfiable, retryAfterMs Infinity`).toBe(Infinity);
      await consumeN(m, 'k', L, L, `after the refused consume(${L + 1})`);
    }),
    check(t('calls in flight together admit exactly the limit'), async (c) => {
      const l = limiterOf(a, c, L);
      const all = await Promise.all(Array.from({ length: 10 * L }, () => answered(() => l.consume('k'))));
      for (const d of all) decided(d, 'a consume in flight with others');
      expect(all.filter((d) => d.allowed).length, `${10 * L} consumes in flight at once on one key, limit ${L}`).toBe(L);
      expect(
        all
          .filter((d) => d.allowed)
          .map((d) => d.remaining)
          .sort((x, y) => x - y),
        'each admission leaves a distinct remaining',
      ).toEqual(Array.from({ length: L }, (_, i) => i));
    }),
    check(t('the store answers in its declared mode'), async (c) => {
      const l = limiterOf(a, c, L);
      const calls = { consume: () => l.consume('k'), peek: () => l.peek('k'), allow: () => l.allow('k'), reset: () => l.reset('k') };
      for (const [verb, call] of Object.entries(calls)) {
        const answer = call();
        expect(answer instanceof Promise, `mode '${c.store.mode}': ${verb} must answer ${c.store.mode === 'sync' ? 'directly' : 'with a promise'}`).toBe(c.store.mode === 'async');
        await answer;
      }
      const d = decided(await answered(() => l.consume('k')), 'consume');
      expect(d.policy, 'a decision carries its limiter policy').toEqual(l.policies[0]);
      expect(d.resetAfterMs, 'resetAfterMs after an admission is > 0').toBeGreaterThan(0);
    }),
    check(t('keys are independent'), async (c) => {
      const l = limiterOf(a, c, L);
      await consumeN(l, 'a', L, L, 'key a');
      expectDenied(await answered(() => l.consume('a')), L, 'key a spent');
      for (const other of ['b', 'A', 'a ', ' a', 'aa', 'a:b']) await consumeN(l, other, 1, L, `key ${JSON.stringify(other)} beside a spent "a"`);
    }),
    check(t('hostile keys are kept apart and never throw'), async (c) => {
      const limit = 100;
      const l = limiterOf(a, c, limit);
      for (const [i, key] of HOSTILE.entries()) {
        const d = decided(await answered(() => l.consume(key, i + 1)), `consume(${i + 1}) of key ${show(key)}`);
        expect([d.allowed, d.remaining], `key ${show(key)}: consume(${i + 1})`).toEqual([true, limit - i - 1]);
      }
      for (const [i, key] of HOSTILE.entries()) {
        const d = decided(await answered(() => l.peek(key)), `peek of key ${show(key)}`);
        expect(d.remaining, `key ${show(key)} holds only its own cost (${i + 1}): shared with another key?`).toBe(limit - i - 2);
      }
      for (const key of HOSTILE) await answered(() => l.reset(key));
      for (const key of HOSTILE) expect(decided(await answered(() => l.peek(key)), `peek after reset of ${show(key)}`).remaining, `key ${show(key)} after reset`).toBe(limit - 1);
    }),
  ];
}

/**
 * Keys a client controls: empty-ish, long, unicode (composed and decomposed é; lone surrogates, which a
 * UTF-8 encoding turns into one replacement character; NUL, which a SQL text column may refuse), a
 * Redis Cluster hash tag, separators, control characters, SQL.
 */
export const HOSTILE: readonly string[] = [
  '',
  ' ',
  '  ',
  'x'.repeat(4096),
  'x'.repeat(4095),
  'ключ-键-🔑-é',
  'e\u0301',
  '\u00e9',
  '\ud800',
  '\udbff',
  '\ufffd',
  'a\u0000b',
  'a\u0000c',
  '{}',
  '{tag}',
  ':',
  '::',
  'a\nb',
  '\r\n',
  '\t',
  '%s',
  "'; --",
];

function show(key: string): string {
  const s = JSON.stringify(key);
  return s.length > 40 ? `${s.slice(0, 20)}…(${key.length} chars)` : s;
}

export function rateChecks(): Check[] {
  return ALGORITHMS.flatMap(checksFor);
}
