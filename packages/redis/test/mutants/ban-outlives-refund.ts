/**
 * Mutant: a RedisStore whose bans outlive the refunds of the charges that caused them (the behaviour
 * before the fix): a refund goes to the policy's own refund script and leaves the ban key as it is, so
 * six concurrent logins that all succeed ban the key for the whole `banMs`. The ban-refund checks of
 * test/ban-refund.test.ts must catch it.
 */
import type { StoreBinding } from '@ratekeeper/core';
import type { RedisBans } from '../../src/ban-binding.js';
import { RedisStore } from '../../src/index.js';

export class BanOutlivesRefundStore extends RedisStore {
  override banned(binding: StoreBinding<'async'>, banMs: number): RedisBans {
    const bans = super.banned(binding, banMs);
    const mutant: StoreBinding<'async'> = {
      consume: (k, n, c) => bans.consume(k, n, c),
      peek: (k, n, c) => bans.peek(k, n, c),
      allow: (k, n, c) => bans.allow(k, n, c),
      reset: (k) => bans.reset(k),
      refund: (k, n, c) => (binding.refund as NonNullable<StoreBinding<'async'>['refund']>).call(binding, k, n, c),
    };
    return mutant as unknown as RedisBans;
  }
}
