/**
 * forgottenConnection: a connection the server forgot while a statement was on it (the half-open fault
 * of ./network-run.ts, made certain), for a SQL store. A store of DEFAULT options, on the client the
 * README makes, through a fault proxy: one call's statement waits on a row another session locks,
 * beside an idle connection (a second call, sent once the first is on the server: calls made in one
 * turn share a transaction). The proxy forgets both connections (nothing comes back, and the next
 * write on one is reset) and the lock is let go. The next call goes on another key (`next: 'other
 * key'`: it takes the idle connection, whose write is reset) or on the waiting call's own key (`'same
 * key'`: it waits behind it, so nothing but the store's own pings touches another connection); it must
 * be decided by the database. What the waiting call got, and when, is the answer: a store that takes
 * the silent statement for lost, once another connection died or once the database answered a ping,
 * runs it again on a new connection (decided by the database 1–1.5 s after the fault with default
 * options); one that waits for it as for any statement is still undecided at 2 × timeoutMs.
 */
import { FixedWindowLimiter, type Store } from '@ratekeeper/core';
import { expect } from 'vitest';
import { type FaultProxy, faultProxy } from './fault-proxy.js';

export interface ForgottenOptions {
  /** The database's address, behind the proxy. */
  readonly host: string;
  readonly port: number;
  /** storeOn makes a store of DEFAULT options, its client made as the README makes it, on `port`, and reports its failures to `failed`. */
  storeOn(port: number, failed: () => void): Store & { readonly timeoutMs: number };
  /** hold locks `key`'s row of policy `name` from another session, and answers the function that lets it go. */
  hold(name: string, key: string): Promise<() => Promise<void>>;
  /** waiting tells whether a statement of the store waits for a row lock on the server now. */
  waiting(): Promise<boolean>;
  /** Limiter: the limiter class to use (a mutant build with a core of its own passes that core's). */
  readonly Limiter?: typeof FixedWindowLimiter;
  /** next: the key of the call made after the fault (see above); 'other key' by default. */
  readonly next?: 'other key' | 'same key';
}

export interface Forgotten {
  /** 'decided', or 'pending' at 2 × timeoutMs after the fault. */
  readonly settled: 'decided' | 'pending';
  /** The decision's failure mark, when decided. */
  readonly failure?: string;
  /** From the fault to the decision (or to the bound). */
  readonly ms: number;
  /** How many failures the store reported. */
  readonly failures: number;
}

const proxies: FaultProxy[] = [];
let runs = 0;

/** forgottenConnection runs the case above once and answers what the waiting call got. */
export async function forgottenConnection(options: ForgottenOptions): Promise<Forgotten> {
  const proxy = await faultProxy(options.host, options.port);
  proxies.push(proxy);
  let failures = 0;
  const store = options.storeOn(proxy.port, () => failures++);
  const name = `forgotten-${process.pid}-${runs++}`;
  const Limiter = options.Limiter ?? FixedWindowLimiter;
  const limiter = new Limiter({ store, limit: 100, windowMs: 1e12, name });
  // Both rows made first: a row made while another session holds a lock could wait on that lock's gap.
  for (const key of ['held', 'other']) expect((await limiter.consume(key)).failure).toBeUndefined();

  const release = await options.hold(name, 'held');
  const waiting = Promise.resolve(limiter.consume('held'));
  while (!(await options.waiting())) await new Promise((resolve) => setImmediate(resolve));
  expect((await limiter.consume('other')).failure).toBeUndefined();

  const faultAt = performance.now();
  proxy.halfOpen();
  const same = options.next === 'same key';
  const next = Promise.resolve(limiter.consume(same ? 'held' : 'other'));
  await release();
  if (!same) expect((await next).failure).toBeUndefined();

  const bound = 2 * store.timeoutMs;
  const ended = await Promise.race([
    waiting.then((d) => ({ d })),
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), bound - (performance.now() - faultAt))),
  ]);
  const ms = performance.now() - faultAt;
  if (ended === undefined) return { settled: 'pending', ms, failures };
  if (same) expect((await next).failure).toBeUndefined();
  return ended.d.failure === undefined ? { settled: 'decided', ms, failures } : { settled: 'decided', failure: ended.d.failure, ms, failures };
}

/** closeForgotten closes the proxies of every run (first, in afterAll: a pool ends only once its silent connections are gone). */
export async function closeForgotten(): Promise<void> {
  for (const proxy of proxies.splice(0)) await proxy.close();
}
