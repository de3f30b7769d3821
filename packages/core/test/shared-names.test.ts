/**
 * One name on one shared store is one budget (src/limiter/store-names.ts). Through the adapters' shorthand,
 * which derives names for its user, a second limiter with the same settings and no name on one store
 * is refused at construction, naming the `name` option, and so is one name with two settings. Limiters
 * built directly keep the store's rule, now the same on the MemoryStore as on Redis: one name, one
 * budget. A limiter on its own default store is never checked. Names and MemoryStore tables are held
 * only while a limiter holds them: 20,000 limiters built and dropped leave no name behind.
 */
import { describe, expect, it } from 'vitest';
import { FixedWindowLimiter, ManualClock, MemoryStore, type RateLimiter } from '../src/index.js';
import { prepareRateLimit } from '../src/adapter.js';
import { type LimiterChoice, chooseLimiter } from '../src/http/options/shorthand.js';
import { claimedNames } from '../src/limiter/store-names.js';

declare const gc: (() => void) | undefined;

const clock = () => new ManualClock(0);

describe('limiters on one shared store', () => {
  it.each([
    ['fixed-window', { limit: 3 }, 'fw-3-60000'],
    ['sliding-window', { limit: 3 }, 'sw-3-60000'],
    ['sliding-log', { limit: 3 }, 'sl-3-60000'],
    ['token-bucket', { capacity: 3 }, 'tb-3-1'],
    ['gcra', { burst: 3 }, undefined],
    ['concurrency', { limit: 3 }, undefined],
  ] as const)('%s shorthand: a second limiter with the same settings and no name on one store throws, naming the option', (algorithm, settings, name) => {
    const store = new MemoryStore();
    const first = chooseLimiter('rateLimit', { algorithm, ...settings, store } as LimiterChoice);
    const derived = name ?? first.policies[0]?.name;
    const again = () => chooseLimiter('rateLimit', { algorithm, ...settings, store } as LimiterChoice);
    expect(again).toThrow(TypeError);
    expect(again).toThrow(`rateLimit: another limiter on this store has the same settings and the same derived name "${derived}"`);
    expect(again).toThrow("give each limiter its own name (name: 'login', name: 'api')");
  });

  it("two routes with { algorithm: 'fixed-window', limit: 3, store } throw on the second; named apart both are built", () => {
    const store = new MemoryStore();
    prepareRateLimit('rateLimit', { algorithm: 'fixed-window', limit: 3, store });
    expect(() => prepareRateLimit('rateLimit', { algorithm: 'fixed-window', limit: 3, store })).toThrow(/^rateLimit: .*same derived name "fw-3-60000"/);
    prepareRateLimit('rateLimit', { algorithm: 'fixed-window', limit: 3, store, name: 'a' });
    prepareRateLimit('rateLimit', { algorithm: 'fixed-window', limit: 3, store, name: 'b' });
  });

  it('a derived name next to a limiter built directly with the same settings throws too, and a given name next to a derived one', () => {
    const store = new MemoryStore();
    new FixedWindowLimiter({ limit: 3, windowMs: 60_000, store });
    expect(() => chooseLimiter('rateLimit', { algorithm: 'fixed-window', limit: 3, store })).toThrow(/same derived name/);
    expect(() => chooseLimiter('rateLimit', { algorithm: 'fixed-window', limit: 3, store, name: 'fw-3-60000' })).toThrow(/same derived name/);
  });

  it('one name with other settings throws through the shorthand', () => {
    const store = new MemoryStore();
    chooseLimiter('rateLimit', { algorithm: 'fixed-window', limit: 3, store, name: 'api' });
    expect(() => chooseLimiter('rateLimit', { algorithm: 'fixed-window', limit: 4, store, name: 'api' })).toThrow(
      'rateLimit: another limiter on this store already uses the name "api" with other settings',
    );
    expect(() => chooseLimiter('rateLimit', { algorithm: 'sliding-window', limit: 3, store, name: 'api' })).toThrow(/already uses the name "api" with other settings/);
  });

  it('one name given twice with the same settings is one budget on the MemoryStore, as on Redis', () => {
    const store = new MemoryStore();
    const c = clock();
    const a = chooseLimiter('rateLimit', { algorithm: 'fixed-window', limit: 3, store, clock: c, name: 'shared' }) as RateLimiter<'sync'>;
    const b = chooseLimiter('rateLimit', { algorithm: 'fixed-window', limit: 3, store, clock: c, name: 'shared' }) as RateLimiter<'sync'>;
    expect([a.allow('k'), a.allow('k'), a.allow('k'), b.allow('k')]).toEqual([true, true, true, false]);
    // Built directly, two limiters with one derived name share too: the store's rule, as on Redis.
    const x = new FixedWindowLimiter({ limit: 2, windowMs: 60_000, store, clock: c });
    const y = new FixedWindowLimiter({ limit: 2, windowMs: 60_000, store, clock: c });
    expect([x.allow('k'), y.allow('k'), x.allow('k'), y.allow('k')]).toEqual([true, true, false, false]);
  });

  it('different settings, different stores, or the default store never clash', () => {
    const store = new MemoryStore();
    const c = clock();
    const three = chooseLimiter('rateLimit', { algorithm: 'fixed-window', limit: 3, store, clock: c }) as RateLimiter<'sync'>;
    const four = chooseLimiter('rateLimit', { algorithm: 'fixed-window', limit: 4, store, clock: c }) as RateLimiter<'sync'>;
    expect([three.allow('k'), three.allow('k'), three.allow('k'), three.allow('k'), four.allow('k')]).toEqual([true, true, true, false, true]);
    chooseLimiter('rateLimit', { algorithm: 'fixed-window', limit: 3, store: new MemoryStore() });
    for (let i = 0; i < 3; i++) chooseLimiter('rateLimit', { algorithm: 'fixed-window', limit: 3 });
  });

  it('holds a name only while a limiter holds it: 20,000 dropped limiters leave none, and a dropped one can be built again', async () => {
    if (gc === undefined) throw new Error('run with --expose-gc (vitest.config.ts sets it)');
    const store = new MemoryStore();
    const keep = new FixedWindowLimiter({ limit: 3, windowMs: 60_000, store, name: 'kept' });
    (() => {
      for (let i = 0; i < 20_000; i++) new FixedWindowLimiter({ limit: 3, windowMs: 60_000, store, name: `tenant-${i}` }).allow('k');
      chooseLimiter('rateLimit', { algorithm: 'fixed-window', limit: 5, store });
    })();
    for (let i = 0; i < 10 && claimedNames(store) > 1; i++) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(claimedNames(store)).toBe(1);
    expect(() => chooseLimiter('rateLimit', { algorithm: 'fixed-window', limit: 5, store })).not.toThrow();
    expect(keep.allow('k')).toBe(true);
  });
});
