/**
 * Failure is a policy, in workerd: an object that never answers (StallingObject) and one that throws
 * (ThrowingObject) are decided by the store's failure policy within timeoutMs, each failure reported
 * once to the 'failure' listeners with its reason, no promise rejected and no error text in any
 * answer: 'fallback' (the default) enforces the same policy in the isolate's memory, composites all
 * or nothing there too; 'open' admits, 'closed' denies with a finite wait; a booking the object
 * cannot make is refused ('closed', never the fallback). And a call its caller gave up on is not also
 * decided by the object: past its deadline the object answers 'expired' and changes nothing (a
 * DeadlineDeafObject, mutant, changes the key).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Workerd, startWorkerd } from './support/harness.js';
import type { LimiterSpec, Scenario, Step } from './support/scenario.js';
import type { Batch } from '../src/index.js';
import type { ScenarioRequest } from './support/worker.js';

const BUCKET: readonly LimiterSpec[] = [{ type: 'token-bucket', options: { capacity: 2, refillPerSecond: 0.001, name: 'b' } }];
const consume = (n: number): Step[] => Array.from({ length: n }, () => ({ do: 'consume', key: 'k' }) as const);

let workerd: Workerd;
let run = 0;

function on(namespace: string, scenario: Scenario, options: ScenarioRequest['store']['options'] = {}) {
  return workerd.scenario(0, { prefix: `fault${run++}:`, store: { kind: 'durable', namespace, options: { timeoutMs: 100, ...options } }, scenario });
}

describe('an object that cannot answer is decided by the failure policy', () => {
  beforeAll(async () => {
    workerd = await startWorkerd(1);
  });
  afterAll(async () => {
    await workerd?.dispose();
  });

  it('fallback (default): the same policy in the isolate, within timeoutMs of each call, each failure reported once', async () => {
    const started = performance.now();
    const answer = await on('STALLING', { limiters: BUCKET, steps: consume(3) });
    expect(performance.now() - started).toBeLessThan(3 * 100 + 2_000);
    expect(answer.results.map((r) => [(r as unknown[])[0], (r as unknown[])[4]])).toEqual([
      [true, 'fallback'],
      [true, 'fallback'],
      [false, 'fallback'],
    ]);
    expect(answer.failures).toEqual(Array.from({ length: 3 }, () => ({ operation: 'consume', policy: 'b', reason: 'timeout' })));
  });

  it('fallback decides a composite all or nothing too', async () => {
    const limiters: LimiterSpec[] = [
      { type: 'token-bucket', options: { capacity: 5, refillPerSecond: 0.001, name: 'wide' } },
      { type: 'fixed-window', options: { limit: 1, windowMs: 60_000, name: 'narrow' } },
    ];
    const answer = await on('THROWING', { limiters, composite: true, steps: consume(3) });
    expect(answer.results.map((r) => (r as unknown[])[0])).toEqual([true, false, false]);
    expect(answer.failures[0]).toEqual({ operation: 'consume', policy: 'wide+narrow', reason: 'reply' });
  });

  it("'open' admits, 'closed' denies with a finite wait; the object's error text reaches no answer", async () => {
    const open = await on('THROWING', { limiters: BUCKET, steps: consume(3) }, { onFailure: 'open' });
    expect(open.results.map((r) => (r as unknown[]).slice(0, 3).concat((r as unknown[])[4]))).toEqual(Array.from({ length: 3 }, () => [true, 1, 0, 'open']));
    const closed = await on('THROWING', { limiters: BUCKET, steps: consume(1) }, { onFailure: 'closed' });
    expect(closed.results).toEqual([[false, 0, 1000, 1000, 'closed']]);
    expect(JSON.stringify([open, closed])).not.toContain('SECRET');
  });

  it('refuses a booking it cannot make (never the fallback), and answers a refund and a reset', async () => {
    const answer = await on('STALLING', {
      limiters: BUCKET,
      steps: [
        { do: 'reserve', key: 'k' },
        { do: 'refund', key: 'k' },
        { do: 'reset', key: 'k' },
      ],
    });
    expect(answer.results).toEqual([{ ok: false, delayMs: 'Infinity', decision: [false, 0, 1000, 1000, 'closed'] }, null, null]);
    expect(answer.failures.map((f) => f.operation)).toEqual(['reserve', 'refund', 'reset']);
  });
});

describe('a call past its deadline changes nothing', () => {
  beforeAll(async () => {
    workerd = await startWorkerd(1);
  });
  afterAll(async () => {
    await workerd?.dispose();
  });

  const policy = { algorithm: 'fixed-window', name: 'fw', limit: 1, windowMs: 60_000 } as const;
  const late = { deadline: 1, policies: [policy], ops: [{ kind: 'decide', parts: [0], cost: 1, commit: true }] } satisfies Batch;

  /** lateThenLeft sends a consume whose deadline has passed, then reads what a fresh consume is left with. */
  async function lateThenLeft(namespace: string): Promise<{ reply: unknown; next: unknown }> {
    const name = `deadline${run++}`;
    const { reply } = (await (await workerd.post('/raw', { name, batch: late, namespace })).json()) as { reply: unknown };
    const fresh = { ...late, deadline: 0 };
    const next = ((await (await workerd.post('/raw', { name, batch: fresh, namespace })).json()) as { reply: unknown }).reply;
    return { reply, next };
  }

  it("answers 'expired' with its clock, and the key is untouched", async () => {
    const { reply, next } = await lateThenLeft('LIMITS');
    expect(typeof reply === 'number' && reply < -1_600_000_000_000).toBe(true);
    expect((next as { allowed: boolean }[][])[0]?.[0]?.allowed).toBe(true); // the one unit is still there
  });

  it('catches an object that runs late calls anyway (mutant)', async () => {
    const { reply, next } = await lateThenLeft('DEAF');
    expect(Array.isArray(reply)).toBe(true);
    expect((next as { allowed: boolean }[][])[0]?.[0]?.allowed).toBe(false);
  });
});
