/**
 * A request whose client left is an attempt like any other (DESIGN.md: a limit covers the work it
 * admits): its outcome is its handler's answer, reported when the handler answers, with `aborted:
 * true`. Through a real app of the driver's framework over real HTTP, on the memory store and on
 * RedisStore (a real redis-server, default options), the README's login recipe (BanLimiter over a
 * sliding window of 5 per 15 minutes, `countOutcome: ({ status }) => status >= 400`) runs exactly 5
 * password checks for 20 attempts whose clients each leave while their password is being checked
 * (the handler then answers 401, to nobody), one after the other or all at once, and every adapter
 * reports `{ status: 401, aborted: true }` for each, after the check. The adapter's mutant reports
 * the status the response had when the client left (Node's 200, which the recipe gives back; Koa's
 * 404): the same check catches it.
 */
import { BanLimiter, SlidingWindowLimiter, type Store } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import type { Driver } from '../driver.js';
import { type WorkApp, eventually, serveWork, tracked } from './serve-work.js';
import { type StoreCase, storeCases } from '../stores.js';
import { type Finished } from '@ratekeeper/core/adapter';

const ATTEMPTS = 20;
let serial = 0;

/**
 * loginRecipeCountsAborts: ATTEMPTS failed logins, each client leaving once the server has its
 * request; the password check runs after the client left and answers 401. One after the other (each
 * attempt settled before the next) or all at once. Exactly 5 checks, 5 outcomes of 401 aborted.
 */
export async function loginRecipeCountsAborts<F>(driver: Driver<F>, store: Store<'async'> | undefined, together: boolean, factory?: F): Promise<void> {
  const limiter = new BanLimiter<'async'>({
    limiter: new SlidingWindowLimiter<'async'>({ limit: 5, windowMs: 900_000, ...(store === undefined ? {} : { store }) }),
    banMs: 3_600_000,
  });
  const counted = tracked(limiter);
  const outcomes: Finished[] = [];
  const user = `user:${process.pid}-${++serial}`;
  let checks = 0;
  let app: WorkApp | undefined;
  const checkPassword = async (id: string) => {
    if (id.startsWith('a')) await app!.closed(id); // the client has gone; the check runs anyway
    checks++;
    counted.ended();
  };
  const recipe = (o: Finished) => (outcomes.push(o), o.status >= 400);
  app = await serveWork(driver, { limiter: counted.limiter, key: () => user, countOutcome: recipe }, checkPassword, factory);
  const attempt = async (i: number) => {
    const { client } = await app!.send(`a${i}`, 'status=401');
    client.destroy();
    await app!.closed(`a${i}`);
  };
  const settled = () => eventually('every attempt settled', () => counted.finished() === counted.admitted() && outcomes.length === counted.admitted() && counted.pending() === 0);
  if (together) await Promise.all(Array.from({ length: ATTEMPTS }, (_, i) => attempt(i)));
  else {
    for (let i = 0; i < ATTEMPTS; i++) {
      await attempt(i);
      await settled();
    }
  }
  await settled();
  expect(checks, 'password checks').toBe(5);
  expect(
    outcomes.map((o) => [o.status, o.aborted]),
    'outcomes reported',
  ).toEqual(Array.from({ length: 5 }, () => [401, true]));
  expect(await (await app.send('next', 'status=401')).status, 'the next attempt').toBe(429);
}

export function abortedOutcomeSuite<F>(drivers: readonly Driver<F>[], mutant: { statusAtDisconnect: F }, stores: readonly StoreCase[] = storeCases()): void {
  for (const driver of drivers) {
    for (const kind of stores) {
      describe(`${driver.name}, ${kind.name} store`, () => {
        it('counts failed logins whose clients left before the answer: 20 attempts, one after the other, run exactly 5 password checks', async () => {
          await loginRecipeCountsAborts(driver, await kind.store(), false);
        });

        it('counts failed logins whose clients left before the answer: 20 attempts at once run exactly 5 password checks', async () => {
          await loginRecipeCountsAborts(driver, await kind.store(), true);
        });

        it('the check catches an adapter that reports the status the response had when the client left (mutant)', async () => {
          await expect(loginRecipeCountsAborts(driver, await kind.store(), false, mutant.statusAtDisconnect)).rejects.toThrow(/password checks|outcomes reported/);
        });
      });
    }
  }
}
