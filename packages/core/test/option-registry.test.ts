/**
 * The option registry (src/http/options/options.ts) is what the shorthand and the plan obey: every name it
 * lists is known to the plan (refused for its value, if at all, never as unknown), a name it does not
 * list is refused as unknown; each algorithm built with no sizes has exactly the registry's defaults,
 * and takes exactly the registry's sizes (any other size is refused naming the algorithm).
 */
import { describe, expect, it } from 'vitest';
import { type Limiter, type Policy, chooseLimiter, prepareRateLimit } from '../src/index.js';
import { ALGORITHMS, LIMITER_OPTIONS, OPTIONS, SIZES, SIZE_OPTIONS, sizesOf } from '../src/http/options/options.js';

describe('the option registry', () => {
  it('every option it lists is known to the plan; any other name is refused as unknown', () => {
    for (const name of OPTIONS) {
      let message = '';
      try {
        prepareRateLimit('rateLimit', { [name]: Symbol('odd value') } as never);
      } catch (error) {
        message = String(error);
      }
      expect(message, name).not.toMatch(/unknown option/);
    }
    for (const name of ['limitt', 'windowMS', 'algorithms', 'keys']) {
      expect(() => prepareRateLimit('rateLimit', { [name]: 1 } as never), name).toThrow(/unknown option/);
    }
  });

  it('names each option once: exactly the options rateLimit documents, the limiter options among them', () => {
    // Pinned: an option dropped from (or slipped into) the registry fails here, not only in the plan.
    expect([...OPTIONS].sort()).toEqual(
      [
        ...['limiter', 'algorithm', 'capacity', 'refillPerSecond', 'limit', 'windowMs', 'emissionIntervalMs', 'burst', 'retryAfterMs', 'name', 'store', 'clock', 'plans', 'plan'],
        ...['key', 'cost', 'skip', 'ipv6Subnet', 'missingIp', 'allowList', 'denyList'],
        ...['headers', 'shadow', 'onDecision', 'telemetry', 'proxyWarning', 'countOutcome', 'settle', 'abandonedMs', 'mode', 'maxDelayMs'],
      ].sort(),
    );
    expect(new Set(OPTIONS).size).toBe(OPTIONS.length);
    for (const name of LIMITER_OPTIONS) expect(OPTIONS).toContain(name);
  });

  for (const algorithm of ALGORITHMS) {
    it(`${algorithm}: built with its registry defaults, taking exactly its registry sizes`, () => {
      const limiter = chooseLimiter('rateLimit', { algorithm } as never) as Limiter<Policy, 'sync'>;
      const policy = limiter.policy as unknown as Record<string, unknown>;
      // GCRA is the token bucket in its own parameters: its policy holds the bucket's.
      const want: Record<string, number> = algorithm === 'gcra' ? { capacity: SIZES.gcra.burst, refillPerSecond: 1000 / SIZES.gcra.emissionIntervalMs } : SIZES[algorithm];
      for (const [size, value] of Object.entries(want)) expect([size, policy[size]]).toEqual([size, value]);
      for (const size of SIZE_OPTIONS) {
        const build = () => chooseLimiter('rateLimit', { algorithm, [size]: 2 } as never);
        if (sizesOf(algorithm).includes(size)) expect(build, size).not.toThrow();
        else expect(build, size).toThrow(`${size} does not apply to algorithm '${algorithm}'`);
      }
    });
  }
});
