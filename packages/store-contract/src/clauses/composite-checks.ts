/**
 * Composites on one store, when it claims them (Store.consumeAll): all or nothing. For every
 * algorithm, two members on the same store: whichever member denies, the other records nothing (also
 * for calls in flight together); a cost
 * one member can never grant records nothing; peek records nothing; allow records like consume; parts
 * come back in member order. One composite of all five algorithms too. Unclaimed, CompositeLimiter is
 * refused at construction with a TypeError naming consumeAll.
 */
import { CompositeLimiter, type Mode, type RateLimiter } from '@ratekeeper/core';
import { expect } from 'vitest';
import { ALGORITHMS, type AlgorithmCase, limiterOf } from './algorithms.js';
import { type Check, type CheckContext, answered, check, decided, refused } from '../check.js';
import { REFUSAL } from '../options.js';

/** remainingOf peeks a member alone: what it holds for `key`. */
async function remainingOf(member: RateLimiter<Mode>, key: string, what: string): Promise<number> {
  const d = decided(await answered(() => member.peek(key)), what);
  return d.allowed ? d.remaining + 1 : d.remaining;
}

function pair(a: AlgorithmCase, c: CheckContext, limits: readonly number[]) {
  const members = limits.map((limit) => limiterOf(a, c, limit));
  return { members, composite: new CompositeLimiter<Mode>(members) };
}

function checksFor(a: AlgorithmCase): Check[] {
  const t = (clause: string) => `${a.algorithm}: composite ${clause}`;
  return [
    check(t('is all or nothing: a denial by either member records nothing on the other'), async (c) => {
      for (const limits of [
        [5, 2],
        [2, 5],
      ]) {
        const { members, composite } = pair(a, c, limits);
        for (let i = 0; i < 2; i++) {
          const d = decided(await answered(() => composite.consume('k')), `consume ${i + 1}`);
          expect(d.allowed, `limits ${limits}: consume ${i + 1}`).toBe(true);
          expect(
            d.parts?.map((p) => p.limit),
            'parts come in member order',
          ).toEqual(limits);
        }
        for (let i = 0; i < 3; i++) expect(decided(await answered(() => composite.consume('k')), 'denied consume').allowed, `limits ${limits}: consume ${3 + i}`).toBe(false);
        for (const [i, m] of members.entries()) {
          expect(await remainingOf(m, 'k', `member ${i}`), `limits ${limits}: member ${i} (limit ${limits[i]}) after 2 admitted and 3 denied: a denial recorded on it?`).toBe(
            (limits[i] as number) - 2,
          );
        }
      }
    }),
    check(t('is all or nothing for calls in flight together'), async (c) => {
      const { members, composite } = pair(a, c, [5, 2]);
      const all = await Promise.all(Array.from({ length: 20 }, () => answered(() => composite.consume('k'))));
      for (const d of all) decided(d, 'a composite consume in flight with others');
      expect(all.filter((d) => d.allowed).length, '20 composite consumes in flight at once, limits 5 and 2').toBe(2);
      expect(await remainingOf(members[0] as RateLimiter<Mode>, 'k', 'member 0'), 'member 0 (limit 5) holds only the 2 admitted').toBe(3);
    }),
    check(t('records nothing for a cost one member can never grant'), async (c) => {
      const { members, composite } = pair(a, c, [5, 2]);
      const d = decided(await answered(() => composite.consume('k', 3)), 'consume(3)');
      expect(d.allowed, 'consume(3) with a member of limit 2').toBe(false);
      expect(d.retryAfterMs, 'never satisfiable: Infinity').toBe(Infinity);
      expect(await remainingOf(members[0] as RateLimiter<Mode>, 'k', 'member 0'), 'the member that admits 3 recorded nothing').toBe(5);
    }),
    check(t('peek records nothing; allow records like consume'), async (c) => {
      const { members, composite } = pair(a, c, [5, 2]);
      for (let i = 0; i < 4; i++) expect(decided(await answered(() => composite.peek('k')), 'peek').allowed, `peek ${i + 1}`).toBe(true);
      expect(await remainingOf(members[0] as RateLimiter<Mode>, 'k', 'member 0'), 'peeks recorded nothing').toBe(5);
      expect(await answered(() => composite.allow('k')), 'allow 1').toBe(true);
      expect(await answered(() => composite.allow('k')), 'allow 2').toBe(true);
      expect(await answered(() => composite.allow('k')), 'allow 3').toBe(false);
      expect(await remainingOf(members[0] as RateLimiter<Mode>, 'k', 'member 0'), 'allow recorded 2 and the denied one nothing').toBe(3);
    }),
  ];
}

export function compositeChecks(): Check[] {
  return [
    ...ALGORITHMS.flatMap(checksFor),
    check('composite of every algorithm is all or nothing', async (c) => {
      const top = ALGORITHMS.length + 1;
      const members = ALGORITHMS.map((a, i) => limiterOf(a, c, top - i)); // limits top..2
      const composite = new CompositeLimiter<Mode>(members);
      for (let i = 0; i < 2; i++) expect(decided(await answered(() => composite.consume('k')), 'consume').allowed, `consume ${i + 1}`).toBe(true);
      expect(decided(await answered(() => composite.consume('k')), 'consume').allowed, 'consume 3 (the last member allows 2)').toBe(false);
      for (const [i, m] of members.entries()) expect(await remainingOf(m, 'k', ALGORITHMS[i]?.algorithm ?? ''), `member ${ALGORITHMS[i]?.algorithm}: 2 recorded`).toBe(top - i - 2);
    }),
  ];
}

export function compositeRefusals(): Check[] {
  return [
    check('composite unclaimed: CompositeLimiter is refused at construction by name', async (c) => {
      const a = ALGORITHMS[0] as AlgorithmCase;
      await refused(() => new CompositeLimiter<Mode>([limiterOf(a, c, 5), limiterOf(a, c, 2)]), REFUSAL.composite, 'a composite on a store that does not claim consumeAll');
    }),
  ];
}
