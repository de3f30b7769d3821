/**
 * Mutants: stores whose booking cancels succeed only for the latest live booking of a key (the rule
 * of an earlier release): in a burst, a request whose client leaves while others are booked behind it keeps
 * its units. The delay suite's aborted-burst check (../delay/aborted-burst.ts) must catch both, on memory
 * and on Redis.
 */
import { type Booking, MemoryStore, type StoreBinding } from '@ratekeeper/core';
import { RedisStore } from '@ratekeeper/redis';

/** lastOnly wraps a booking so that its cancel gives nothing back while a later booking of `queue` is live. */
function lastOnly<M extends 'sync' | 'async'>(booking: Booking<M>, queue: Booking<M>[], refuse: () => ReturnType<Booking<M>['cancel']>): Booking<M> {
  if (!booking.ok || booking.delayMs === 0) return booking;
  const mine: Booking<M> = {
    ...booking,
    cancel: (now) => {
      if (queue[queue.length - 1] !== mine) return refuse();
      queue.pop();
      return booking.cancel(now);
    },
  };
  queue.push(mine);
  return mine;
}

export class MemoryCancelsLastOnly extends MemoryStore {
  readonly #queues = new Map<string, Booking<'sync'>[]>();
  override reserveAll(bindings: readonly StoreBinding<'sync'>[], key: string, now: number, cost: number, maxWaitMs: number): Booking<'sync'> {
    const queue = this.#queues.get(key) ?? [];
    this.#queues.set(key, queue);
    return lastOnly(super.reserveAll(bindings, key, now, cost, maxWaitMs), queue, () => false);
  }
}

export class RedisCancelsLastOnly extends RedisStore {
  readonly #queues = new Map<string, Booking<'async'>[]>();
  override async reserveAll(bindings: readonly StoreBinding<'async'>[], key: string, now: number, cost: number, maxWaitMs: number): Promise<Booking<'async'>> {
    const queue = this.#queues.get(key) ?? [];
    this.#queues.set(key, queue);
    return lastOnly(await super.reserveAll(bindings, key, now, cost, maxWaitMs), queue, () => Promise.resolve(false));
  }
}
