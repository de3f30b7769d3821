/**
 * MySqlBans: the store's side of core's Bans contract (ban.ts): a binding that decides with the ban
 * in front of the algorithm, in the batch's transaction (../rows/steps.ts), so a decision is still one
 * transaction. A ban is a row of its own policy, `<policy name>#ban` (no policy name can contain '#'),
 * holding the instant it ends and the cost of the denial that started it, with that end as its expiry,
 * so the sweep deletes it once ended like any expired row. When the database cannot decide, the failure
 * policy decides without the ban (the fallback does not know the database's bans).
 */
import type { Algorithm, Decision, Policy, StoreBinding } from '@ratekeeper/core';
import type { MySqlBinding } from './binding.js';
import type { Ban, Member } from '../rows/steps.js';

/** A ban's row: [until, cost], empty at `until`; never evaluated as a step. */
const BAN: Algorithm<Policy> = {
  name: 'fixed-window',
  stateSize: 2,
  evaluate() {
    throw new TypeError('MySqlStore: a ban is not a step');
  },
  emptyAt: (_policy, state, offset) => state[offset] as number,
  fill: () => 1,
};

export class MySqlBans implements StoreBinding<'async'> {
  readonly #inner: MySqlBinding;
  readonly #ban: Ban;

  constructor(inner: MySqlBinding, banMs: number) {
    this.#inner = inner;
    const member: Member = { policy: Object.freeze({ ...inner.policy, name: `${inner.policy.name}#ban` }), algorithm: BAN };
    this.#ban = { member, banMs };
  }

  consume(key: string, now: number, cost: number): Promise<Decision> {
    return this.#inner.decide('consume', 'consume', key, now, cost, this.#ban);
  }

  peek(key: string, now: number, cost: number): Promise<Decision> {
    return this.#inner.decide('peek', 'peek', key, now, cost, this.#ban);
  }

  allow(key: string, now: number, cost: number): Promise<boolean> {
    return this.consume(key, now, cost).then((d) => d.allowed);
  }

  reset(key: string): Promise<void> {
    return this.#inner.resetWith(key, this.#ban);
  }

  refund(key: string, now: number, cost: number): Promise<void> {
    return this.#inner.refundWith(key, now, cost, this.#ban);
  }
}
