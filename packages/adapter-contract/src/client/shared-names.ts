/**
 * Limiters on one shared store, through the framework's router, on the memory store and on Redis
 * alike: two routes each mounting `{ algorithm: 'fixed-window', limit: 3, store }` would derive one
 * name (`fw-3-60000`) and so share one budget on a shared store; the second is refused when it is
 * built, with an error naming the `name` option. Named apart, each route has its own three requests;
 * given the same name, the two share three on purpose. Both stores answer alike: on either, one
 * name is one budget and two names are two.
 */
import { type FixedWindowShorthand, ManualClock, type Store, TokenBucketLimiter } from '@ratekeeper/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { ContractBehaviour, ContractOptions, Driver } from '../driver.js';
import { STORES, runsOn, stopRedis, storeOn } from '../redis.js';

const everyone = (): ContractOptions => ({ limiter: new TokenBucketLimiter({ capacity: 100, refillPerSecond: 1, clock: new ManualClock(0) }) });

export function sharedNamesSuite<F>(drivers: readonly Driver<F>[]): void {
  for (const driver of drivers) {
    for (const where of STORES) {
      describe.runIf(runsOn(where))(`${driver.name} on ${where}: limiters sharing one store`, () => {
        afterAll(stopRedis);
        const route = (store: Store, clock: ManualClock, name?: string): ContractBehaviour & FixedWindowShorthand => ({
          algorithm: 'fixed-window',
          limit: 3,
          store,
          clock,
          ...(name === undefined ? {} : { name }),
        });

        it('refuses a second limiter with the same settings and no name, naming the option', async () => {
          const { store } = await storeOn(where);
          const clock = new ManualClock(0);
          await driver.construct(route(store, clock));
          await expect(driver.construct(route(store, clock))).rejects.toThrow(/same derived name "fw-3-60000".*give each limiter its own name \(name: /);
        });

        // RedisStore refuses this itself when binding, before the shorthand's own check, in its own words.
        it('refuses one name with two settings', async () => {
          const { store } = await storeOn(where);
          const clock = new ManualClock(0);
          await driver.construct({ ...route(store, clock, 'api') });
          await expect(driver.construct({ ...route(store, clock, 'api'), limit: 4 })).rejects.toThrow(
            /already uses the name "api" with other settings|policy name "api" is already bound with other parameters/,
          );
        });

        it('counts two named routes apart, and two routes given one name together', async () => {
          const { store, failures } = await storeOn(where);
          const clock = new ManualClock(0);
          const apart = driver.serveRoutes({ app: everyone(), routes: { '/a': route(store, clock, 'a'), '/b': route(store, clock, 'b') } });
          for (let i = 0; i < 3; i++) await apart.http.get('/a').expect(200);
          await apart.http.get('/a').expect(429);
          await apart.http.get('/b').expect(200);

          const together = driver.serveRoutes({ app: everyone(), routes: { '/c': route(store, clock, 'shared'), '/d': route(store, clock, 'shared') } });
          for (let i = 0; i < 3; i++) await together.http.get('/c').expect(200);
          await together.http.get('/d').expect(429);
          expect(failures).toEqual([]);
        });
      });
    }
  }
}
