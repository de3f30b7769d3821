/**
 * No adapter loses a request or the process to an error in the decision path. Every error source is
 * driven on a synchronous limiter (the memory store's shape) and on an asynchronous one (a remote
 * store's: every answer a promise), three requests each: every request is answered (500 through the
 * framework's error path, or the right answer), the server keeps serving, the error path sees exactly
 * the expected errors, no response carries the store's secret or an unprintable header, and nothing
 * escapes as an unhandled rejection or an uncaught exception (withoutEscapes fails the check at once).
 *
 * Sources: key / skip / cost / onDecision / handler throwing or returning a rejecting promise; the
 * limiter's consume throwing synchronously; the limiter answering something that is not a Decision
 * (null, {}, NaN figures, a policy whose name Node would refuse as a header value); the response
 * refusing a rate-limit header (as Node does for an invalid value); a response someone else already
 * sent. A limiter whose own policies carry a hostile name is refused when the middleware is created.
 */
import { type Decision, ManualClock, type RateLimiter, TokenBucketLimiter } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import type { ContractOptions, Driver, Setup } from '../driver.js';
import { withoutEscapes } from './escapes.js';
import { nothingAfterHeadersSent } from './faults.js';
import { expectPrintableHeaders } from '../support.js';

type Mode = 'sync' | 'async';
export const MODES: readonly Mode[] = ['sync', 'async'];
const SECRET = 'redis://admin:hunter2@10.0.0.7:6379';
const HOSTILE_NAME = 'evil\r\nSet-Cookie: stolen=1';

/**
 * limiterFor is a token bucket of `capacity` on a ManualClock, answering synchronously or with
 * promises, whose answers pass through `answer` (a broken limiter rewrites them), or whose consume
 * throws `throws` synchronously (as a limiter refusing a call does, in either mode).
 */
export function limiterFor(mode: Mode, capacity: number, answer: (d: Decision) => unknown = (d) => d, throws?: Error): RateLimiter {
  const inner = new TokenBucketLimiter({ capacity, refillPerSecond: 1, name: 'b', clock: new ManualClock(0) });
  const decide = (key: string, cost?: number): unknown => {
    if (throws !== undefined) throw throws;
    return answer(inner.consume(key, cost));
  };
  const consume = mode === 'sync' ? decide : (key: string, cost?: number) => (throws !== undefined ? decide(key, cost) : Promise.resolve().then(() => decide(key, cost)));
  return { mode, policies: inner.policies, consume, peek: inner.peek.bind(inner), allow: inner.allow.bind(inner), reset: inner.reset.bind(inner) } as RateLimiter;
}

const boom = (what: string) => () => {
  throw new Error(`${what} broke`);
};
const rejecting = (what: string) => () => Promise.reject(new Error(`${what} broke`)) as never;
const limiterError = 'RateLimiterError: rateLimit: the limiter failed to decide';

/** One error source: the options (and setup) for a mode, what the three requests answer, what the error path sees. */
export interface ErrorCase {
  readonly title: string;
  options(mode: Mode): ContractOptions;
  readonly setup?: Pick<Setup<unknown>, 'refuseHeader'>;
  readonly statuses: readonly number[];
  readonly errors: readonly string[];
}

const thrice = (error: string): string[] => [error, error, error];
const failing = (title: string, options: (mode: Mode) => ContractOptions, error: string): ErrorCase => ({ title, options, statuses: [500, 500, 500], errors: thrice(error) });

export const ERROR_CASES: readonly ErrorCase[] = [
  failing('key throws', (m) => ({ limiter: limiterFor(m, 5), key: boom('key') }), 'Error: key broke'),
  failing('key returns a rejecting promise', (m) => ({ limiter: limiterFor(m, 5), key: rejecting('key') }), 'Error: key broke'),
  failing('skip throws', (m) => ({ limiter: limiterFor(m, 5), skip: boom('skip') }), 'Error: skip broke'),
  failing('skip returns a rejecting promise', (m) => ({ limiter: limiterFor(m, 5), skip: rejecting('skip') }), 'Error: skip broke'),
  failing('cost throws', (m) => ({ limiter: limiterFor(m, 5), cost: boom('cost') }), 'Error: cost broke'),
  failing('cost returns a rejecting promise', (m) => ({ limiter: limiterFor(m, 5), cost: rejecting('cost') }), 'Error: cost broke'),
  failing('onDecision throws', (m) => ({ limiter: limiterFor(m, 5), onDecision: boom('onDecision') }), 'Error: onDecision broke'),
  failing('onDecision rejects', (m) => ({ limiter: limiterFor(m, 5), onDecision: rejecting('onDecision') }), 'Error: onDecision broke'),
  {
    title: 'handler throws',
    options: (m) => ({ limiter: limiterFor(m, 1), handler: boom('handler') }),
    statuses: [200, 500, 500],
    errors: ['Error: handler broke', 'Error: handler broke'],
  },
  {
    title: 'handler rejects',
    options: (m) => ({ limiter: limiterFor(m, 1), handler: rejecting('handler') }),
    statuses: [200, 500, 500],
    errors: ['Error: handler broke', 'Error: handler broke'],
  },
  failing('consume throws synchronously', (m) => ({ limiter: limiterFor(m, 5, undefined, new Error(`ECONNREFUSED ${SECRET}`)) }), limiterError),
  failing('the limiter answers null', (m) => ({ limiter: limiterFor(m, 5, () => null) }), limiterError),
  failing('the limiter answers {}', (m) => ({ limiter: limiterFor(m, 5, () => ({})) }), limiterError),
  failing(
    'the limiter answers a Decision with NaN figures',
    (m) => ({ limiter: limiterFor(m, 5, (d) => ({ ...d, remaining: Number.NaN, resetAfterMs: Number.NaN })) }),
    limiterError,
  ),
  failing(
    'the limiter answers a policy name Node refuses in a header',
    (m) => ({ limiter: limiterFor(m, 5, (d) => ({ ...d, policy: { ...d.policy, name: HOSTILE_NAME } })) }),
    limiterError,
  ),
  {
    title: 'the response refuses the RateLimit header',
    options: (m) => ({ limiter: limiterFor(m, 5) }),
    setup: { refuseHeader: 'ratelimit' },
    statuses: [500, 500, 500],
    errors: thrice('TypeError: Invalid character in header content ["RateLimit"]'),
  },
  {
    title: 'the response refuses the Retry-After header of a denial',
    options: (m) => ({ limiter: limiterFor(m, 1) }),
    setup: { refuseHeader: 'retry-after' },
    statuses: [200, 500, 500],
    errors: ['TypeError: Invalid character in header content ["Retry-After"]', 'TypeError: Invalid character in header content ["Retry-After"]'],
  },
];

/** answersEveryError runs one case on `factory` (the real rateLimit or a mutant); it throws when the factory misbehaves. */
export async function answersEveryError<F>(driver: Driver<F>, factory: F, mode: Mode, kase: ErrorCase): Promise<void> {
  await withoutEscapes(async () => {
    const { http, errors, ran } = driver.serve(kase.options(mode), { factory, ...kase.setup });
    const statuses: number[] = [];
    for (let i = 0; i < kase.statuses.length; i++) {
      const res = await http.get('/').timeout({ response: 3000 });
      statuses.push(res.status);
      expect(JSON.stringify(res.headers) + res.text).not.toContain('hunter2');
      expectPrintableHeaders(res.headers);
      if (res.status === 500 && driver.genericErrorBody !== undefined) expect(res.text).toBe(driver.genericErrorBody);
    }
    expect(statuses, 'statuses').toEqual(kase.statuses);
    const owner = `${driver.owner ?? 'rateLimit'}: `;
    expect(errors.map((e) => `${(e as Error).name}: ${(e as Error).message}`)).toEqual(kase.errors.map((e) => e.replace('rateLimit: ', owner)));
    expect(ran(), 'route runs').toBe(kase.statuses.filter((s) => s === 200).length);
  });
}

/** A mutant and the case (and mode) that must catch it, with the message the check fails with. */
export interface DecisionErrorMutant<F> {
  readonly factory: F;
  readonly mode: Mode;
  readonly case: string;
  readonly caughtBy: RegExp;
}

export function decisionErrorsSuite<F>(drivers: readonly Driver<F>[], mutants: readonly DecisionErrorMutant<F>[] = []): void {
  for (const driver of drivers) {
    describe(driver.name, () => {
      for (const mode of MODES) {
        it.each(ERROR_CASES.map((kase) => [kase.title, kase] as const))(`${mode} limiter: %s: every request answered, nothing escapes`, async (_, kase) => {
          await answersEveryError(driver, driver.rateLimit, mode, kase);
        });

        it(`${mode} limiter: a response someone else already sent: nothing written, nothing escapes`, async () => {
          await withoutEscapes(() => nothingAfterHeadersSent(driver, driver.rateLimit, limiterFor(mode, 5)));
        });
      }

      it('refuses a limiter whose own policy name Node would refuse in a header, when the middleware is created', async () => {
        const inner = new TokenBucketLimiter({ capacity: 5, refillPerSecond: 1 });
        const hostile = { ...limiterFor('sync', 5), policies: [{ ...inner.policy, name: HOSTILE_NAME }] };
        await expect(driver.construct({ limiter: hostile })).rejects.toThrow(
          new RegExp(`^${driver.owner ?? 'rateLimit'}: limiter policies\\[0\\]: policy name "evil\\\\r\\\\nSet-Cookie: stolen=1" is not a header-safe token$`),
        );
        await expect(driver.construct({ name: HOSTILE_NAME })).rejects.toThrow(/^TokenBucketLimiter: name must be /);
      });
    });
  }

  for (const driver of drivers) {
    for (const mutant of mutants) {
      it(`mutants on ${driver.name}: ${mutant.mode} limiter, ${mutant.case}: the check catches it`, async () => {
        const kase = ERROR_CASES.find((c) => c.title === mutant.case);
        if (kase === undefined) throw new Error(`no error case titled ${mutant.case}`);
        await expect(answersEveryError(driver, mutant.factory, mutant.mode, kase)).rejects.toThrow(mutant.caughtBy);
      });
    }
  }
}
