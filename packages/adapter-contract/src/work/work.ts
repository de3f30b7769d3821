/**
 * A limit covers the work it admits (DESIGN.md): through a real app of the driver's framework over
 * real HTTP, on the memory store and on RedisStore (a real redis-server, default options), at most
 * `limit` handlers of a ConcurrencyLimiter work at once, whatever the clients do. "At once" is from
 * admission to the end of the handler's work (serve-work.ts).
 * - Clients that leave while their handlers work do not take their leases with them: a request sent
 *   meanwhile is denied, and each lease comes back when its handler answers (to nobody).
 * - A storm: every request at once, a third of the clients leaving on arrival (before, during or
 *   after the decision, as it falls), a third leaving once their handler works, the rest waiting for
 *   their answer: never more than `limit` at once, and every lease back at the end.
 * The adapter's mutant ends a lease at the client's disconnect, as every adapter did before: the same
 * checks catch it.
 */
import { ConcurrencyLimiter, type Store } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import type { Driver } from '../driver.js';
import { type WorkApp, eventually, serveWork, tracked } from './serve-work.js';
import { type StoreCase, storeCases } from '../stores.js';

const LIMIT = 3;
let serial = 0;

/** workApp serves a ConcurrencyLimiter of LIMIT on `store` under one fresh key, the route doing `work`. */
async function workApp<F>(driver: Driver<F>, store: Store<'async'> | undefined, work: (id: string) => Promise<void>, factory?: F) {
  const inner = new ConcurrencyLimiter<'async'>({ limit: LIMIT, name: 'inflight', ...(store === undefined ? {} : { store }) });
  const counted = tracked(inner);
  const key = `work-${process.pid}-${++serial}`;
  const held = async () => {
    const d = await inner.peek(key);
    return LIMIT - d.remaining - (d.allowed ? 1 : 0);
  };
  const ended = async (id: string) => {
    await work(id);
    counted.ended();
  };
  const app = await serveWork(driver, { limiter: counted.limiter, key: () => key }, ended, factory);
  return { app, counted, held };
}

/**
 * leasesOutliveTheirClients: LIMIT requests whose clients leave while their handlers work keep their
 * leases; a request sent then is denied; each lease comes back once its handler answers.
 */
export async function leasesOutliveTheirClients<F>(driver: Driver<F>, store: Store<'async'> | undefined, factory?: F): Promise<void> {
  const gates: (() => void)[] = [];
  const { app, counted, held } = await workApp(driver, store, (id) => (id.startsWith('gone') ? new Promise((open) => gates.push(open)) : Promise.resolve()), factory);
  for (let i = 0; i < LIMIT; i++) {
    const { client } = await app.send(`gone${i}`);
    await eventually(`the handler of request ${i} works`, () => gates.length === i + 1);
    client.destroy();
    await app.closed(`gone${i}`);
  }
  const probe = await app.send('probe');
  expect(await probe.status, 'a request while every lease is held by a handler whose client left').toBe(429);
  expect(counted.max(), 'handlers running at once').toBeLessThanOrEqual(LIMIT);
  for (let i = 0; i < LIMIT; i++) {
    gates.shift()!();
    await eventually(`the lease of handler ${i} back once it answered`, async () => (await held()) === LIMIT - 1 - i);
  }
  expect(await (await app.send('after')).status).toBe(200);
}

/**
 * stormStaysWithin: 36 requests at once, a third of the clients leaving on arrival; every third handler
 * to start has its client leave while it works and goes on working until LIMIT late requests, sent once
 * the 36 were answered, have been decided. At most LIMIT handlers at once, and every lease back at the
 * end. The late requests make the check deterministic: an adapter that gave a lease back when its client
 * left admits them while that handler still works, however the 36 were batched.
 */
export async function stormStaysWithin<F>(driver: Driver<F>, store: Store<'async'> | undefined, factory?: F): Promise<void> {
  const N = 36;
  let app: WorkApp | undefined;
  let started = 0;
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const leftWhileWorking = new Set<string>();
  const work = async (id: string) => {
    if (started++ % 3 === 0) {
      leftWhileWorking.add(id);
      app!.client(id)?.destroy(); // the client leaves while its handler works
      await app!.closed(id);
      await gate;
    }
    for (let turn = 0; turn < 3; turn++) await new Promise(setImmediate);
  };
  const served = await workApp(driver, store, (id) => work(id), factory);
  app = served.app;
  const { counted, held } = served;
  /** answered sends every request at once, the clients `leaves` names leaving on arrival, and answers the ids of the others with their statuses. */
  const answered = (ids: readonly string[], leaves: (i: number) => boolean) =>
    Promise.all(
      ids.map(async (id, i) => {
        const s = await app!.send(id);
        if (leaves(i)) s.client.destroy();
        return [id, leaves(i) ? 'left' : await s.status] as const;
      }),
    );
  const storm = await answered(
    Array.from({ length: N }, (_, i) => `s${i}`),
    (i) => i % 3 === 0,
  );
  const late = await answered(
    Array.from({ length: LIMIT }, (_, i) => `late${i}`),
    () => false,
  );
  open();
  await eventually('every admitted handler done', () => counted.finished() === counted.admitted() && counted.pending() === 0);
  expect(counted.max(), 'handlers running at once').toBeLessThanOrEqual(LIMIT);
  await eventually('every lease back', async () => (await held()) === 0);
  expect(
    [...storm, ...late].filter(([id, s]) => s !== 'left' && !leftWhileWorking.has(id) && s !== 200 && s !== 429),
    'the waiting clients got 200 or 429',
  ).toEqual([]);
  expect(app.ran()).toBe(counted.admitted());
}

export function workSuite<F>(drivers: readonly Driver<F>[], mutant: { releasesAtDisconnect: F }, stores: readonly StoreCase[] = storeCases()): void {
  for (const driver of drivers) {
    for (const kind of stores) {
      describe(`${driver.name}, ${kind.name} store`, () => {
        it('keeps the lease of a request whose client left until its handler answers: a request sent meanwhile is denied', async () => {
          await leasesOutliveTheirClients(driver, await kind.store());
        });

        it('runs at most `limit` handlers at once in a storm of clients leaving at various moments, and gets every lease back', async () => {
          await stormStaysWithin(driver, await kind.store());
        });

        it('the check catches an adapter that ends the lease when the client disconnects (mutant)', async () => {
          await expect(leasesOutliveTheirClients(driver, await kind.store(), mutant.releasesAtDisconnect)).rejects.toThrow(/a request while every lease is held/);
        });

        it('the storm catches an adapter that ends the lease when the client disconnects (mutant)', async () => {
          await expect(stormStaysWithin(driver, await kind.store(), mutant.releasesAtDisconnect)).rejects.toThrow(/handlers running at once/);
        });
      });
    }
  }
}
