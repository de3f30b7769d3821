/**
 * A batch the object cannot run changes nothing: an op whose policy has no core step (a Worker of a
 * newer version, say) refuses the whole batch before any op applies, so the ops before it are not
 * recorded in the object while the Worker decides them all by its failure policy.
 */
import type { Policy } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { KeyRows } from '../src/key-rows.js';
import type { Batch, Op } from '../src/protocol.js';

const T0 = 1_700_000_000_000;
const window: Policy = { algorithm: 'fixed-window', name: 'fw', limit: 1, windowMs: 60_000 };
const consume: Op = { kind: 'decide', parts: [0], cost: 1, commit: true };

describe('a batch the object cannot run', () => {
  it('refuses before any op applies: the key keeps its unit', () => {
    const rows = new KeyRows(new Map(), T0);
    const unknown = { algorithm: 'leaky-bucket', name: 'lb', limit: 1, windowMs: 1_000 } as unknown as Policy;
    const batch: Batch = { deadline: 0, policies: [window, unknown], ops: [consume, { ...consume, parts: [1] }] };
    expect(() => rows.run(batch, T0)).toThrow('RateLimiterObject: no step for algorithm "leaky-bucket"');
    expect(rows.writes.size).toBe(0);
    const [decisions] = rows.run({ deadline: 0, policies: [window], ops: [consume] }, T0) as readonly (readonly { allowed: boolean }[])[];
    expect(decisions?.map((d) => d.allowed)).toEqual([true]);
  });
});
