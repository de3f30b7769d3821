/**
 * refusedOutageChecks registers, inside the caller's describe, the checks that an outage which
 * announces itself is not waited for, on a store whose client connects over TCP. The store under test
 * is made with a timeoutMs of OUTAGE_TIMEOUT_MS (60 s): a decision that waited for the server in any
 * way could not settle within a check, so "settled" proves "did not wait". Per client kind:
 *
 * - Refused: over `rounds` rounds of five requests 10 ms apart (longer than the probe interval), every
 *   decision, the very first included (a cold start), is taken by the fallback and has settled; then
 *   the port accepts connections and answers nothing (a server half back: the breaker's probe, a
 *   background ping, waits there), and still every decision settles by the fallback; then a relay to
 *   the real server listens on the port, and decisions come from the store again within 1 s.
 * - Ended: a store that decided on its client goes on deciding by the fallback, at once, after the
 *   application ended that client.
 *
 * And the mutant whose probe is a user's call (the store's 'user-probe' build) leaves that call waiting
 * on the silent port. The listeners are closed in an afterAll of the caller's describe, before the
 * caller's own file-level afterAll ends its clients (a pool ends only once its silent connections are gone).
 */
import { type Decision, type Store, TokenBucketLimiter } from '@ratekeeper/core';
import { afterAll, expect, it } from 'vitest';
import { type Listener, closedPort, listening, relay } from './tcp.js';

export const OUTAGE_TIMEOUT_MS = 60_000;
const RETURN_BOUND_MS = 1000;

/** One decision asked: whether it has settled, and what it was. */
export interface Fired {
  settled: boolean;
  decision?: Decision;
}

export interface OutageKind {
  /** The client library's name, in the checks' titles. */
  readonly kind: string;
  /** storeAt makes a store with timeoutMs OUTAGE_TIMEOUT_MS, its client made as the README makes it, on `port`. */
  storeAt(port: number): Store;
  /** ended makes a store with timeoutMs OUTAGE_TIMEOUT_MS on the real server, and the function with which the application ends its client. */
  ended(): { store: Store; end(): Promise<void> };
}

export interface OutageCheckOptions {
  /** The real server, that the relay brings back. */
  readonly host: string;
  readonly port: number;
  readonly kinds: readonly OutageKind[];
  /** The 'user-probe' mutant's store on `port`, made as `storeAt` makes the real one. */
  mutantAt(port: number): Promise<Store>;
  /** Rounds of requests per phase (default 30). */
  readonly rounds?: number;
}

export function refusedOutageChecks(options: OutageCheckOptions): void {
  const rounds = options.rounds ?? 30;
  const listeners: Listener[] = [];
  afterAll(async () => {
    for (const listener of listeners.splice(0)) await listener.close();
  });

  /** refusedThenSilent runs the refused and the silent phases on the store `storeAt` makes; it answers the decisions of each. */
  async function refusedThenSilent(storeAt: (port: number) => Store | Promise<Store>, name: string) {
    const port = await closedPort();
    const limiter = limiterOn(await storeAt(port), name);
    const refused: Fired[] = [];
    await requests(limiter, refused)(rounds);
    const silentPort = await listening(() => {}, port);
    listeners.unshift(silentPort);
    const silent: Fired[] = [];
    await requests(limiter, silent)(rounds);
    return { port, limiter, refused, silent, silentPort };
  }

  for (const { kind, storeAt, ended } of options.kinds) {
    it(`settles every decision by the fallback without waiting, and decides on the store within ${RETURN_BOUND_MS} ms of its return (${kind})`, async () => {
      const { port, limiter, refused, silent, silentPort } = await refusedThenSilent(storeAt, `refused-${kind}`);
      for (const fired of [refused, silent]) expectAllByFallback(fired);

      await silentPort.close();
      listeners.push(await relay(options.host, options.port, port));
      const upAt = performance.now();
      const after: Fired[] = [];
      const decidedByStore = () => after.some((f) => f.settled && f.decision?.failure === undefined);
      await requests(limiter, after)(Math.ceil((5 * RETURN_BOUND_MS) / 10), decidedByStore);
      expect(decidedByStore()).toBe(true);
      expect(performance.now() - upAt).toBeLessThan(RETURN_BOUND_MS + 100);
    });

    it(`decides by the fallback at once once the application ended its client (${kind})`, async () => {
      const { store, end } = ended();
      const limiter = limiterOn(store, `ended-${kind}`);
      expect((await limiter.consume('warm')).failure).toBeUndefined();
      await end();
      const fired: Fired[] = [];
      await requests(limiter, fired)(rounds);
      expectAllByFallback(fired);
    });
  }

  it('catches the mutant whose probe is a user call: that call waits on the silent port', async () => {
    const { refused, silent } = await refusedThenSilent(options.mutantAt, 'mutant');
    expect(refused.filter((f) => !f.settled)).toEqual([]);
    expect(silent.filter((f) => !f.settled).length).toBeGreaterThan(0);
  }, 120_000);
}

const limiterOn = (store: Store, name: string) => new TokenBucketLimiter({ capacity: 1_000_000, refillPerSecond: 1, store, name });

function expectAllByFallback(fired: readonly Fired[]): void {
  expect(fired.filter((f) => !f.settled)).toEqual([]);
  expect(fired.filter((f) => f.decision?.failure !== 'fallback')).toEqual([]);
}

/** requests fires five requests every 10 ms on `limiter` into `fired`; the function it answers resolves after `rounds` rounds, or once `until` holds. */
export function requests(limiter: { consume(key: string): PromiseLike<Decision> | Decision }, fired: Fired[]) {
  const fire = () => {
    for (let i = 0; i < 5; i++) {
      const one: Fired = { settled: false };
      fired.push(one);
      void Promise.resolve(limiter.consume(`user-${i}`)).then((decision) => {
        one.settled = true;
        one.decision = decision;
      });
    }
  };
  return (rounds: number, until: () => boolean = () => false): Promise<void> =>
    new Promise((resolve) => {
      let left = rounds;
      fire();
      const timer = setInterval(() => {
        if (--left <= 0 || until()) {
          clearInterval(timer);
          setImmediate(resolve);
        } else fire();
      }, 10);
    });
}
