/**
 * PostgresBans: the store's side of core's Bans contract (ban.ts): a binding that decides with the
 * ban in front of the algorithm, in the batch's transaction (../rows/apply.ts), so a decision is still one
 * op of one batch, on the server's clock like the rest. A ban is a row of its own policy name,
 * `<policy name>#ban` (no policy name can contain '#'), holding [the instant it ends, the cost of the
 * denial that started it], with that end as its expiry, so the sweep deletes it once ended like any
 * expired row. Its row is locked with the algorithm's, in the batch's one key order, so every
 * process's calls on a key see and start its ban one at a time.
 *
 * When the database cannot decide, the failure policy decides without the ban (the fallback does not
 * know the database's bans).
 */
import type { Decision, StoreBinding } from '@ratekeeper/core';
import type { Ban } from '../rows/apply.js';
import type { PostgresBinding } from './binding.js';
import { nameHead, rowKey } from '../rows/keys.js';

/** BAN_SUFFIX ends the name of a ban's rows. */
export const BAN_SUFFIX = '#ban';

export class PostgresBans implements StoreBinding<'async'> {
  readonly #inner: PostgresBinding;
  readonly #head: string;
  readonly #banMs: number;

  constructor(inner: PostgresBinding, banMs: number) {
    this.#inner = inner;
    this.#head = nameHead(`${inner.policy.name}${BAN_SUFFIX}`);
    this.#banMs = banMs;
  }

  consume(key: string, now: number, cost: number): Promise<Decision> {
    return this.#inner.decide('consume', key, now, cost, true, this.#ban(key));
  }

  peek(key: string, now: number, cost: number): Promise<Decision> {
    return this.#inner.decide('peek', key, now, cost, false, this.#ban(key));
  }

  async allow(key: string, now: number, cost: number): Promise<boolean> {
    return (await this.#inner.decide('allow', key, now, cost, true, this.#ban(key))).allowed;
  }

  /** reset lifts the key's ban and empties the key. */
  reset(key: string): Promise<void> {
    return this.#inner.resetWith(key, this.#ban(key));
  }

  /** refund gives `cost` back to the algorithm, then lifts the key's ban when the algorithm admits the cost whose denial started it. */
  refund(key: string, now: number, cost: number): Promise<void> {
    return this.#inner.refundWith(key, now, cost, this.#ban(key));
  }

  #ban(key: string): Ban {
    return { row: rowKey(this.#head, key), banMs: this.#banMs };
  }
}
