/**
 * AsyncMemoryStore: a stand-in for a remote store (Redis) built only from the public Store contract:
 * mode 'async', every call answers with a promise, consumeAll decides several bindings at once and
 * reserveAll books them.
 * It delegates the deciding to a MemoryStore and counts round trips, so tests can show that limiters
 * and composites work on a remote store without any change, and how many calls they make.
 */
import { type Algorithm, type Booking, type Decision, MemoryStore, type Policy, type Store, type StoreBinding } from '../../src/index.js';

export class AsyncMemoryStore implements Store<'async'> {
  readonly mode = 'async';
  roundTrips = 0;
  readonly #inner = new MemoryStore();
  readonly #inners = new Map<StoreBinding<'async'>, StoreBinding<'sync'>>();

  bind<P extends Policy>(algorithm: Algorithm<P>, policy: P): StoreBinding<'async'> {
    const inner = this.#inner.bind(algorithm, policy);
    const later = <T>(f: () => T): Promise<T> => {
      this.roundTrips++;
      return Promise.resolve().then(f);
    };
    const binding: StoreBinding<'async'> = {
      consume: (key, now, cost) => later(() => inner.consume(key, now, cost)),
      peek: (key, now, cost) => later(() => inner.peek(key, now, cost)),
      allow: (key, now, cost) => later(() => inner.allow(key, now, cost)),
      reset: (key) => later(() => inner.reset(key)),
    };
    this.#inners.set(binding, inner);
    return binding;
  }

  consumeAll(bindings: readonly StoreBinding<'async'>[], key: string, now: number, cost: number, commit: boolean): Promise<readonly Decision[]> {
    this.roundTrips++;
    const inners = bindings.map((b) => this.#inners.get(b) as StoreBinding<'sync'>);
    return Promise.resolve().then(() => this.#inner.consumeAll(inners, key, now, cost, commit));
  }

  /** reserveAll books on the memory store behind, answering (and cancelling) with promises. */
  reserveAll(bindings: readonly StoreBinding<'async'>[], key: string, now: number, cost: number, maxWaitMs: number): Promise<Booking<'async'>> {
    this.roundTrips++;
    const inners = bindings.map((b) => this.#inners.get(b) as StoreBinding<'sync'>);
    return Promise.resolve().then(() => {
      const booking = this.#inner.reserveAll(inners, key, now, cost, maxWaitMs);
      return { ...booking, cancel: (at: number) => Promise.resolve().then(() => booking.cancel(at)) };
    });
  }
}
