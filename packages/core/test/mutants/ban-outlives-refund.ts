/**
 * Mutant: bans that outlive the refunds of the charges that caused them (the behaviour before the
 * fix): a refund gives back to the algorithm and leaves a running ban as it is, so six concurrent
 * logins that all succeed ban the key for the whole `banMs`. The ban-refund checks must catch it.
 */
import { MemoryStore, type StoreBinding } from '../../src/index.js';
import { type MemoryBinding } from '../../src/store/index.js';
import type { MemoryBans } from '../../src/memory/memory-ban.js';

export class BanOutlivesRefundStore extends MemoryStore {
  override banned(binding: StoreBinding<'sync'>, banMs: number): MemoryBans {
    const bans = super.banned(binding, banMs);
    const inner = binding as MemoryBinding;
    const mutant: StoreBinding<'sync'> = {
      consume: (k, n, c) => bans.consume(k, n, c),
      peek: (k, n, c) => bans.peek(k, n, c),
      allow: (k, n, c) => bans.allow(k, n, c),
      reset: (k) => bans.reset(k),
      refund: (k, n, c) => inner.refund(k, n, c),
    };
    return mutant as unknown as MemoryBans;
  }
}
