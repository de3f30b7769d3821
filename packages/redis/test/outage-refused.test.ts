/**
 * An outage that announces itself is not waited for. Nothing listens on Redis's port, so every
 * connection is refused; the clients are made as the README makes them (ioredis `new Redis(url)` with
 * its offline queue; node-redis `createClient({ url })` with an 'error' listener and `connect()` called,
 * its promise caught), and the store's timeoutMs is 60 s: a decision that waited for the store in any
 * way could not settle within this test, so "settled" proves "did not wait".
 *
 * While the client is refused REFUSALS times in a row (its own retry delays, ~0.5–1.5 s), requests
 * arrive every 10 ms: every decision, the very first included (a cold start), is taken by the fallback
 * and has settled by the end; after the first refusal no user's request reaches the client (the
 * breaker's probe is a PING). Then redis-server starts on the port, and decisions come from Redis
 * again within 1 s of the client's reconnection.
 *
 * Mutants, each caught here: a client whose connection events the store cannot hear (a refused
 * connection waited for: the first decisions do not settle), and the build whose breaker probes with
 * a user's request (requests reach the client while it is refused; each waits for the next refusal).
 */
import { TokenBucketLimiter } from '@ratekeeper/core';
import type { Fired } from '@ratekeeper/store-contract';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RedisClientLike, RedisStore } from '../src/index.js';
import { mutantBuild } from './support/mutant-builds.js';
import { RedisServer, freePort } from './support/redis-server.js';
import { describeRedis } from './support/requirements.js';

const HUGE_TIMEOUT_MS = 60_000;
const REFUSALS = 5;
const RETURN_BOUND_MS = 1000;

type Kind = 'ioredis' | 'node-redis';
type Emitter = { on(event: string, listener: (...args: unknown[]) => void): unknown; once(event: string, listener: () => void): unknown };

interface Outcome {
  readonly fired: readonly Fired[];
  /** Script calls handed to the client after the first decision settled, until the server started. */
  readonly userSendsWhileDown: number;
  /** From the client's reconnection to the first decision Redis took (Infinity: never, within the test). */
  readonly returnMs: number;
}

const closers: (() => unknown)[] = [];
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
});

/** readmeClient makes `kind`'s client as the README does, pointed at `port`; refusedEvent is the event each refused connect emits. */
function readmeClient(kind: Kind, port: number): { client: Emitter & object; refusedEvent: string } {
  const url = `redis://127.0.0.1:${port}`;
  if (kind === 'ioredis') {
    const client = new Redis(url);
    client.on('error', () => {}); // silences ioredis's log of each refusal; the store does not listen to it
    closers.push(() => client.disconnect());
    return { client, refusedEvent: 'close' };
  }
  const client = createClient({ url });
  client.on('error', () => {}); // node-redis requires one (README)
  client.connect().catch(() => {});
  closers.push(() => client.destroy());
  return { client: client as unknown as Emitter & object, refusedEvent: 'error' };
}

const isScript = (args: unknown[]): boolean => /^(EVALSHA|EVAL|FCALL)$/i.test(String(Array.isArray(args[0]) ? args[0][0] : args[0]));

/** counted forwards everything to `client`, counting the script calls (a user's decision) sent through it. */
function counted<T extends object>(client: T, tally: { sends: number }, hideEvents: boolean): T {
  return new Proxy(client, {
    get(target, property) {
      if (hideEvents && (property === 'on' || property === 'listenerCount')) return undefined;
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property !== 'call' && property !== 'sendCommand') return value.bind(target);
      return (...args: unknown[]) => {
        if (isScript(args)) tally.sends++;
        return value.apply(target, args);
      };
    },
  });
}

/** events resolves at the n-th `event` of `emitter` from now. */
function events(emitter: Emitter, event: string, n: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    emitter.on(event, () => {
      if (++seen === n) resolve();
    });
  });
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** refusedOutage runs the scenario above for `kind` on `Store`; `hideEvents` hides the client's events from the store. */
async function refusedOutage(kind: Kind, Store: typeof RedisStore, hideEvents = false, restart = true, refusals = REFUSALS): Promise<Outcome> {
  const port = await freePort();
  const { client, refusedEvent } = readmeClient(kind, port);
  const tally = { sends: 0 };
  const store = new Store({ client: counted(client, tally, hideEvents) as unknown as RedisClientLike, timeoutMs: HUGE_TIMEOUT_MS });
  store.on('failure', () => {});
  const limiter = new TokenBucketLimiter({ capacity: 1_000_000, refillPerSecond: 1, store });
  const fired: Fired[] = [];
  let sendsAtFirst: number | undefined;
  let storeDecidedAt = Number.POSITIVE_INFINITY;
  const fire = () => {
    for (let i = 0; i < 5; i++) {
      const one: Fired = { settled: false };
      fired.push(one);
      void limiter.consume(`user-${i}`).then((decision) => {
        one.settled = true;
        one.decision = decision;
        sendsAtFirst ??= tally.sends;
        if (decision.failure === undefined) storeDecidedAt = Math.min(storeDecidedAt, performance.now());
      });
    }
  };
  const refused = events(client, refusedEvent, refusals);
  fire();
  let timer = setInterval(fire, 10);
  await refused;
  clearInterval(timer);
  await nextTurn();
  const outage = fired.slice();
  const userSendsWhileDown = tally.sends - (sendsAtFirst ?? 0);
  if (!restart) return { fired: outage, userSendsWhileDown, returnMs: Number.NaN };

  let readyAt = 0;
  client.once('ready', () => {
    readyAt = performance.now();
  });
  const server = new RedisServer(port);
  closers.push(() => server.stop());
  await server.start();
  const back = new Promise<void>((resolve) => {
    timer = setInterval(() => {
      if (storeDecidedAt < Number.POSITIVE_INFINITY) resolve();
      else fire();
    }, 10);
  });
  await back;
  clearInterval(timer);
  return { fired: outage, userSendsWhileDown, returnMs: storeDecidedAt - readyAt };
}

describeRedis('Redis refusing connections: decided at once, from the first request', () => {
  const outcomes = new Map<string, Outcome>();
  beforeAll(async () => {
    for (const kind of ['ioredis', 'node-redis'] as const) outcomes.set(kind, await refusedOutage(kind, RedisStore));
  }, 30_000);

  for (const kind of ['ioredis', 'node-redis'] as const) {
    it(`settles every decision by the fallback without waiting, the first included (${kind})`, () => {
      const { fired } = outcomes.get(kind) as Outcome;
      expect(fired.length).toBeGreaterThan(REFUSALS * 5);
      expect(fired.filter((f) => !f.settled)).toEqual([]);
      expect(fired.filter((f) => f.decision?.failure !== 'fallback')).toEqual([]);
    });

    it(`sends no user request to the refused client: the probe is a PING (${kind})`, () => {
      expect((outcomes.get(kind) as Outcome).userSendsWhileDown).toBe(0);
    });

    it(`decides on Redis again within ${RETURN_BOUND_MS} ms of the client's reconnection (${kind})`, () => {
      const { returnMs } = outcomes.get(kind) as Outcome;
      expect(returnMs).toBeGreaterThanOrEqual(0);
      expect(returnMs).toBeLessThan(RETURN_BOUND_MS);
    });
  }

  it('catches the mutant that cannot hear the refusal: its first decisions wait for the store', async () => {
    const { fired } = await refusedOutage('ioredis', RedisStore, true, false);
    expect(fired[0]?.settled).toBe(false);
  });

  it('catches the mutant whose probe is a user request: requests reach the refused client', async () => {
    const { RedisStore: Mutant } = (await import(mutantBuild('user-probe'))) as { RedisStore: typeof RedisStore };
    // Each refusal re-opens the breaker; ioredis's retry delays grow past probeIntervalMs (200 ms) from the 5th on.
    const { userSendsWhileDown } = await refusedOutage('ioredis', Mutant, false, false, 8);
    expect(userSendsWhileDown).toBeGreaterThan(0);
  }, 120_000);
});
