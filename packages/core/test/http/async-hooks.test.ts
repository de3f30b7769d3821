/**
 * Async hooks: `skip`, `key`, `cost` and `plan` may answer with a promise. The synchronous answers keep
 * the synchronous path (decide answers a Decision, not a promise, on a memory-store limiter); an async
 * answer is awaited and decides exactly as the same synchronous answer would; a rejection rejects
 * decide, uncounted and never unhandled; a client gone during the wait is not counted (decide resolves
 * to null). The same counting check fails on a plan that does not await the key (mutant).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Decision, ManualClock, TokenBucketLimiter } from '../../src/index.js';
import { prepareRateLimit } from '../../src/adapter.js';
import { unawaitedKeyOptions } from './mutants.js';
import { counting } from './support.js';

type Req = { readonly id: string; gone?: boolean };
const prepare = (options: unknown, gone?: (req: Req) => boolean) => prepareRateLimit<Req>('rateLimit', options as never, [], gone === undefined ? {} : { gone });
const bucket = (capacity = 2) => counting(new TokenBucketLimiter({ capacity, refillPerSecond: 1, clock: new ManualClock(1_700_000_000_000) }));
const later = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)));

/** perCaller sends two requests each from callers a and b through the plan, answering their `allowed`. */
async function perCaller(plan: ReturnType<typeof prepare>): Promise<boolean[]> {
  const answers: boolean[] = [];
  for (const id of ['a', 'a', 'b', 'b', 'a']) answers.push(((await plan.decide({ id }, '1.2.3.4')) as Decision).allowed);
  return answers;
}

describe('async hooks', () => {
  const unhandled: unknown[] = [];
  const listen = (reason: unknown) => void unhandled.push(reason);
  beforeEach(() => void process.on('unhandledRejection', listen));
  afterEach(async () => {
    await new Promise((resolve) => setImmediate(resolve));
    process.off('unhandledRejection', listen);
    expect(unhandled.splice(0)).toEqual([]);
  });

  it('keeps synchronous answers on the synchronous path: a Decision, not a promise', () => {
    const plan = prepare({ limiter: bucket().limiter, key: (r: Req) => r.id, cost: () => 1, skip: () => false }, () => true);
    const outcome = plan.decide({ id: 'a' }, '1.2.3.4');
    expect(outcome).not.toBeInstanceOf(Promise);
    expect((outcome as Decision).allowed).toBe(true);
  });

  it('counts each caller under the key its async key function found', async () => {
    const { limiter, calls } = bucket();
    expect(await perCaller(prepare({ limiter, key: (r: Req) => later(`tenant:${r.id}`) }))).toEqual([true, true, true, true, false]);
    expect(calls.map(([k]) => k)).toEqual(['tenant:a', 'tenant:a', 'tenant:b', 'tenant:b', 'tenant:a']);
  });

  it('the same check catches a plan that does not await the key (mutant)', async () => {
    const { limiter } = bucket();
    const answers = await perCaller(prepare(unawaitedKeyOptions({ limiter, key: (r: Req) => later(`tenant:${r.id}`) })));
    expect(answers).not.toEqual([true, true, true, true, false]);
  });

  it.each<[string, object, [string, number][]]>([
    ['skip', { skip: () => later(true) }, []],
    ['skip', { skip: () => later(false) }, [['1.2.3.4', 1]]],
    ['cost', { cost: () => later(2) }, [['1.2.3.4', 2]]],
    ['key', { key: () => later('k') }, [['k', 1]]],
    ['all', { skip: () => later(false), key: () => later('k'), cost: () => later(2) }, [['k', 2]]],
    ['key and cost', { key: () => 'k', cost: () => later(2) }, [['k', 2]]],
  ])('awaits an async %s and counts exactly what the same sync answers would (%o)', async (_name, hooks, want) => {
    const { limiter, calls } = bucket();
    const outcome = prepare({ limiter, ...hooks }).decide({ id: 'a' }, '1.2.3.4');
    expect(outcome).toBeInstanceOf(Promise);
    const decision = await outcome;
    expect(decision === undefined ? undefined : (decision as Decision).allowed).toBe(want.length === 0 ? undefined : true);
    expect(calls).toEqual(want);
  });

  it('runs each hook once, in order skip, key, cost', async () => {
    const log: string[] = [];
    const hook =
      <T>(name: string, value: T) =>
      () => (log.push(name), later(value));
    await prepare({ limiter: bucket().limiter, skip: hook('skip', false), key: hook('key', 'k'), cost: hook('cost', 1) }).decide({ id: 'a' }, undefined);
    expect(log).toEqual(['skip', 'key', 'cost']);
  });

  it.each(['skip', 'key', 'cost'])('rejects decide with the rejection of %s, uncounted', async (hook) => {
    const { limiter, calls } = bucket();
    const broken = new Error('lookup failed');
    await expect(prepare({ limiter, [hook]: () => Promise.reject(broken) }).decide({ id: 'a' }, '1.2.3.4')).rejects.toBe(broken);
    expect(calls).toEqual([]);
  });

  it('refuses an async key that resolves to undefined, uncounted', async () => {
    const { limiter, calls } = bucket();
    await expect(prepare({ limiter, key: () => later(undefined) }).decide({ id: 'a' }, '1.2.3.4')).rejects.toThrowError(
      new TypeError('rateLimit: key(req) must return a string, got undefined'),
    );
    expect(calls).toEqual([]);
  });

  it('follows missingIp after an async skip when the request has no IP', async () => {
    const { limiter, calls } = bucket();
    expect(await prepare({ limiter, skip: () => later(false), missingIp: 'skip' }).decide({ id: 'a' }, undefined)).toBeUndefined();
    await expect(prepare({ limiter, skip: () => later(false) }).decide({ id: 'a' }, undefined)).rejects.toThrow(/no usable client IP/);
    expect(calls).toEqual([]);
  });

  it('does not count a request whose client went away during the lookup, and answers null', async () => {
    const { limiter, calls } = bucket();
    const plan = prepare({ limiter, key: (r: Req) => later(r.id) }, (r) => r.gone === true);
    const req: Req = { id: 'a' };
    const pending = plan.decide(req, '1.2.3.4');
    req.gone = true;
    expect(await pending).toBeNull();
    expect(await plan.decide({ id: 'b' }, '1.2.3.4')).toMatchObject({ allowed: true, remaining: 1 });
    expect(calls).toEqual([['b', 1]]);
  });
});
