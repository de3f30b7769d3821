/**
 * limitField keeps the last item it built (headers.ts) and hands it back while the policy, `r` and `t`
 * repeat: a reused item must be exactly what building it again would give, whichever decisions came
 * between (another policy with the same figures, the same policy with other figures).
 */
import { describe, expect, it } from 'vitest';
import { type Decision, TokenBucketLimiter } from '../../src/index.js';
import { limitField } from '../../src/adapter.js';

const api = new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1, name: 'api' }).policy;
const web = new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1, name: 'web' }).policy;
const at = (policy: Decision['policy'], remaining: number, resetAfterMs: number, allowed = true): Decision => ({
  allowed,
  limit: 10,
  remaining,
  retryAfterMs: allowed ? 0 : 1500,
  resetAfterMs,
  policy,
});

describe('limitField reuses its last item', () => {
  const steps: [string, Decision, string][] = [
    ['t0 api', at(api, 9, 1000), '"api";r=9;t=1'],
    ['t1 api again, same r and t', at(api, 9, 900), '"api";r=9;t=1'],
    ['t2 web, same figures', at(web, 9, 1000), '"web";r=9;t=1'],
    ['t3 api, same figures after web', at(api, 9, 1000), '"api";r=9;t=1'],
    ['t4 api, r moves', at(api, 8, 1000), '"api";r=8;t=1'],
    ['t5 api, t moves', at(api, 8, 2000), '"api";r=8;t=2'],
    ['t6 api denied: t is the wait', at(api, 0, 10_000, false), '"api";r=0;t=2'],
    ['t7 api denied again', at(api, 0, 9_000, false), '"api";r=0;t=2'],
  ];
  it.each(steps)('%s', (_step, decision, want) => {
    expect(limitField(decision)).toBe(want);
  });
});
