/**
 * wrapped: a store that delegates to a MemoryStore through bindings of its own (not MemoryBinding, so
 * CompositeLimiter goes through consumeAll as it does on every other store), answering synchronously
 * or with promises. Without a flaw it keeps the whole contract, sync and async alike; each Flaw breaks
 * one clause, deliberately, so the package's test can show the suite catches it.
 */
import { type Algorithm, type Booking, type Decision, MemoryStore, type Mode, type Policy, type Store, type StoreBinding } from '@ratekeeper/core';
import type { MemoryBinding } from '@ratekeeper/core/store';

export type Flaw =
  | 'peek-records' // peek consumes
  | 'commit-on-denial' // consumeAll records each member it passes, even when a later one denies
  | 'keys-trimmed' // keys are trimmed: ' a' and 'a' share state
  | 'keys-truncated' // keys longer than 1000 characters are cut: long keys collide
  | 'keys-utf8' // keys go through UTF-8: lone surrogates collapse into U+FFFD
  | 'reset-ignored' // reset does nothing
  | 'ban-ignored' // banned returns the binding without a ban
  | 'refund-uncapped' // refund empties the key, whatever the cost: gives back more than asked
  | 'no-consume-all' // lacks consumeAll
  | 'racy' // async consume reads (peek), then writes a turn later: calls in flight together over-admit
  | 'sync-promises' // a 'sync' store that answers with promises
  | 'waits-rounded' // a denial's retryAfterMs rounded up to a whole second (never early, but not the step's figure)
  | 'reserve-early' // a booking tells half the wait its instant needs
  | 'release-ignored' // a concurrency lease's release does nothing
  | 'ban-refund-kept' // a refund during a ban gives the units back but never lifts the ban
  | 'charge-capped' // a charge records only what the limit allows (a consume), then reads usage
  | 'block-ignored'; // block does nothing

const kept = Symbol('inner');
type Inner = StoreBinding<'sync'>;
interface Wrapped extends StoreBinding {
  readonly [kept]: Inner;
}

export function wrapped(mode: Mode, flaw?: Flaw): Store {
  const inner = new MemoryStore();
  const out = <T>(value: T): T | Promise<T> => (mode === 'sync' && flaw !== 'sync-promises' ? value : Promise.resolve(value));
  const k = (key: string) => {
    if (flaw === 'keys-trimmed') return key.trim();
    if (flaw === 'keys-truncated') return key.slice(0, 1000);
    return flaw === 'keys-utf8' ? Buffer.from(key).toString() : key;
  };
  const rounded = (d: Decision): Decision =>
    flaw === 'waits-rounded' && d.retryAfterMs > 0 && Number.isFinite(d.retryAfterMs) ? { ...d, retryAfterMs: Math.ceil(d.retryAfterMs / 1000) * 1000 } : d;
  const wrap = (b: Inner, policy: Policy, refunds: Inner = b): Wrapped =>
    ({
      [kept]: b,
      consume: (key, now, cost) => (flaw === 'racy' ? racy(b, k(key), now, cost) : out(rounded(b.consume(k(key), now, cost)))),
      peek: (key, now, cost) => out(rounded(flaw === 'peek-records' ? b.consume(k(key), now, cost) : b.peek(k(key), now, cost))),
      allow: (key, now, cost) => out(b.allow(k(key), now, cost)),
      reset: (key) => out(flaw === 'reset-ignored' ? undefined : b.reset(k(key))),
      refund: (key, now, cost) => {
        if (flaw === 'refund-uncapped') return out(b.reset(k(key)));
        if (flaw === 'release-ignored' && policy.algorithm === 'concurrency') return out(undefined);
        return out(refunds.refund?.(k(key), now, cost));
      },
      charge: (key, now, cost) => {
        if (flaw !== 'charge-capped') return out(b.charge?.(k(key), now, cost));
        b.consume(k(key), now, cost);
        return out(b.usage?.(k(key), now));
      },
      usage: (key, now) => out(b.usage?.(k(key), now)),
      ...(b.block === undefined ? {} : { block: (key: string, now: number, ms: number) => out(flaw === 'block-ignored' ? undefined : b.block?.(k(key), now, ms)) }),
    }) as Wrapped;
  const unwrap = (bs: readonly StoreBinding[]) => bs.map((b) => (b as Wrapped)[kept]);
  const store: Store & { banned?: (b: StoreBinding, banMs: number) => StoreBinding } = {
    mode,
    bind: <P extends Policy>(algorithm: Algorithm<P>, policy: P) => wrap(inner.bind(algorithm, policy), policy),
    reserveAll: (bs, key, now, cost, maxWaitMs) => {
      const booking = inner.reserveAll(unwrap(bs), k(key), now, cost, maxWaitMs);
      const delayMs = flaw === 'reserve-early' && Number.isFinite(booking.delayMs) ? Math.floor(booking.delayMs / 2) : booking.delayMs;
      return out({ ...booking, delayMs, cancel: (at: number) => out(booking.cancel(at)) } as Booking) as never;
    },
    banned: (b, banMs) => {
      if (flaw === 'ban-ignored') return b;
      const plain = (b as Wrapped)[kept] as MemoryBinding;
      const bans = inner.banned(plain, banMs);
      return wrap(bans, plain.policy, flaw === 'ban-refund-kept' ? plain : bans);
    },
  };
  if (flaw !== 'no-consume-all') {
    store.consumeAll = (bs, key, now, cost, commit) => {
      if (flaw !== 'commit-on-denial') return out(inner.consumeAll(unwrap(bs), k(key), now, cost, commit)) as never;
      const parts: Decision[] = unwrap(bs).map((b) => (commit ? b.consume(k(key), now, cost) : b.peek(k(key), now, cost)));
      return out(parts) as never;
    };
  }
  return store;
}

/** racy decides on a read and writes a turn later, as a client-side GET, step, SET would. */
async function racy(b: Inner, key: string, now: number, cost: number): Promise<Decision> {
  const seen = b.peek(key, now, cost);
  await new Promise((resolve) => setImmediate(resolve));
  if (seen.allowed) b.consume(key, now, cost);
  return seen;
}
