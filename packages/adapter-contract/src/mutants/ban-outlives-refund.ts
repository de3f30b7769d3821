/**
 * Mutants: stores whose bans outlive the refunds of the charges that caused them (an earlier release's
 * behaviour): a refund goes to the policy alone and leaves a running ban as it is, so six concurrent
 * logins that all succeed ban the key for the whole hour. The login suite (../work/login.ts) must catch
 * both, on memory and on Redis.
 */
import { MemoryStore, type StoreBinding } from '@ratekeeper/core';
import { RedisStore } from '@ratekeeper/redis';

/** outliving is `bans` with its refund sent to the policy's own binding. */
function outliving<M extends 'sync' | 'async'>(bans: StoreBinding<M>, policy: StoreBinding<M>): StoreBinding<M> {
  const refund = policy.refund as NonNullable<StoreBinding<M>['refund']>;
  return {
    consume: (k, n, c) => bans.consume(k, n, c),
    peek: (k, n, c) => bans.peek(k, n, c),
    allow: (k, n, c) => bans.allow(k, n, c),
    reset: (k) => bans.reset(k),
    refund: (k, n, c) => refund.call(policy, k, n, c),
  };
}

export class MemoryBansOutliveRefunds extends MemoryStore {
  override banned(binding: StoreBinding<'sync'>, banMs: number): ReturnType<MemoryStore['banned']> {
    return outliving(super.banned(binding, banMs), binding) as ReturnType<MemoryStore['banned']>;
  }
}

export class RedisBansOutliveRefunds extends RedisStore {
  override banned(binding: StoreBinding<'async'>, banMs: number): ReturnType<RedisStore['banned']> {
    return outliving(super.banned(binding, banMs), binding) as ReturnType<RedisStore['banned']>;
  }
}
