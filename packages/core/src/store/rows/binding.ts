/**
 * RowBinding: one rate limit's policy on a row store. Each call is one op (./ops.ts) on the key's row,
 * applied by the store's runner with core's own step (./apply.ts); whatever keeps the store from
 * deciding is decided by the failure policy instead ('fallback': the policy's share on an in-process
 * binding, counted there alone; 'open'; 'closed'), reported once as a failure, so nothing throws or
 * rejects and no error text reaches a Decision. A refund the store could not take is owed to it and
 * given to the fallback too (./engine.ts).
 *
 * RowBans puts a ban of `banMs` in front of one (core's ban.ts contract, decided in the same op:
 * ./apply.ts): a row of its own named after the policy with BAN_SUFFIX. While the store cannot decide,
 * the failure policy decides on the fallback with a ban of its own in front (../remote/fallback.ts's
 * bannedFor): the store's bans are out of reach, and the fallback bans what its own denials ban.
 *
 * charge and usage (rate-limiter-flexible's penalty and get) are ops of their own (./verbs.ts); while
 * the store cannot take them they are reported and go to the fallback (a charge is not owed: a penalty
 * lost in an outage is counted where requests were then decided). RowBans adds `block`: a block the
 * store cannot take is reported and goes to the fallback's ban (not owed to the store).
 */
import type { Algorithm } from '../../algorithm.js';
import type { Decision } from '../../decision.js';
import type { Policy } from '../../policy.js';
import type { Mode, Result, StoreBinding } from '../contract.js';
import { decideByPolicy } from '../remote/decisions.js';
import { Failure, type FailureInfo } from '../remote/failure.js';
import type { Fallback } from '../remote/fallback.js';
import type { RowEngine } from './engine.js';
import type { BanRef, Part, RowOp, UsageFigures } from './ops.js';
import { type Usage, toUsage } from '../../usage.js';
import { BAN_SUFFIX, LEDGER_SUFFIX, nameHead, rowId } from './row-id.js';
import type { RowRef } from './row.js';

type Operation = FailureInfo['operation'];

export class RowBinding<M extends Mode = Mode, P extends Policy = Policy> implements StoreBinding<M> {
  /** @internal The store's shared state, for the kit's files. */
  readonly engine: RowEngine<M>;
  readonly algorithm: Algorithm<P>;
  readonly policy: P;
  readonly #head: string;
  readonly #ledger: { readonly head: string; readonly name: string };
  readonly #fallback: Fallback;

  /** @internal Made by RowStore.bind. */
  constructor(engine: RowEngine<M>, algorithm: Algorithm<P>, policy: P) {
    this.engine = engine;
    this.algorithm = algorithm;
    this.policy = policy;
    this.#head = nameHead(policy.name);
    const ledger = policy.name + LEDGER_SUFFIX;
    this.#ledger = { head: nameHead(ledger), name: ledger };
    this.#fallback = engine.fallbackOf(algorithm as unknown as Algorithm<Policy>, policy);
  }

  /** fallback is the in-process binding of this policy's share that decides while the store cannot. */
  get fallback(): StoreBinding<'sync'> {
    return this.#fallback.binding;
  }

  /** fallbackFor is the fallback binding for a call with `ban` in front: the share with the fallback's own ban of that length. */
  #fallbackFor(ban: BanRef | undefined): StoreBinding<'sync'> {
    return ban === undefined ? this.#fallback.binding : this.#fallback.bannedFor(ban.banMs);
  }

  consume(key: string, now: number, cost: number): Result<M, Decision> {
    return this.decide('consume', key, now, cost, true);
  }

  peek(key: string, now: number, cost: number): Result<M, Decision> {
    return this.decide('peek', key, now, cost, false);
  }

  allow(key: string, now: number, cost: number): Result<M, boolean> {
    return this.decide('allow', key, now, cost, true, undefined, allowedOf);
  }

  reset(key: string): Result<M, void> {
    return this.resetWith(key);
  }

  refund(key: string, now: number, cost: number): Result<M, void> {
    return this.refundWith(key, now, cost);
  }

  charge(key: string, now: number, cost: number): Result<M, Usage> {
    return this.chargeWith(key, now, cost);
  }

  usage(key: string, now: number): Result<M, Usage> {
    return this.usageWith(key, now);
  }

  /** @internal chargeWith charges `key` (./verbs.ts), reading `ban`'s time left when given; the fallback takes it while the store cannot. */
  chargeWith(key: string, now: number, cost: number, ban?: BanRef): Result<M, Usage> {
    const op: RowOp = { kind: 'charge', parts: [this.part(key)], now, cost, ...(ban === undefined ? {} : { ban }) };
    return this.engine.runner.run(op, (answer) => {
      if (!(answer instanceof Failure)) return this.#usage(answer as UsageFigures);
      this.engine.report('charge', this.policy.name, answer);
      const fallback = this.#fallbackFor(ban);
      return (fallback.charge as NonNullable<StoreBinding<'sync'>['charge']>).call(fallback, key, now, cost);
    });
  }

  /** @internal usageWith reads `key`'s usage (with `ban`'s time left when given); the fallback's while the store cannot answer. */
  usageWith(key: string, now: number, ban?: BanRef): Result<M, Usage> {
    const op: RowOp = { kind: 'usage', parts: [this.part(key)], now, ...(ban === undefined ? {} : { ban }) };
    return this.engine.runner.run(op, (answer) => {
      if (!(answer instanceof Failure)) return this.#usage(answer as UsageFigures);
      this.engine.report('usage', this.policy.name, answer);
      const fallback = this.#fallbackFor(ban);
      return (fallback.usage as NonNullable<StoreBinding<'sync'>['usage']>).call(fallback, key, now);
    });
  }

  /** @internal block runs a block op on `ban` (./verbs.ts); one the store cannot take is reported. */
  blockWith(key: string, now: number, ms: number, ban: BanRef): Result<M, void> {
    const op: RowOp = { kind: 'block', parts: [this.part(key)], now, ms, ban };
    return this.engine.runner.run(op, (answer) => {
      if (!(answer instanceof Failure)) return;
      this.engine.report('block', this.policy.name, answer);
      this.#fallbackFor(ban).block?.(key, now, ms);
    });
  }

  #usage(figures: UsageFigures): Usage {
    return toUsage(figures, this.policy, figures.blockedMs);
  }

  /** @internal part is this policy's share of a call on `key`. */
  part(key: string): Part {
    return { id: rowId(this.#head, key), name: this.policy.name, algorithm: this.algorithm as unknown as Algorithm<Policy>, policy: this.policy };
  }

  /** @internal ledgerRef is the row of this policy's booking ledger for `key` (./book.ts). */
  ledgerRef(key: string): RowRef {
    return { id: rowId(this.#ledger.head, key), name: this.#ledger.name };
  }

  /** @internal decide decides one call (consume or peek: `commit`), with `ban` in front when given; the failure policy decides without it. */
  decide<T = Decision>(operation: Operation, key: string, now: number, cost: number, commit: boolean, ban?: BanRef, map?: (d: Decision) => T): Result<M, T> {
    const op: RowOp = ban === undefined ? { kind: 'decide', parts: [this.part(key)], now, cost, commit } : { kind: 'decide', parts: [this.part(key)], now, cost, commit, ban };
    return this.engine.runner.run(op, (answer) => {
      let decision: Decision;
      if (!(answer instanceof Failure)) decision = (answer as readonly Decision[])[0] as Decision;
      else {
        this.engine.report(operation, this.policy.name, answer);
        decision = decideByPolicy(this.engine.onFailure, this.policy, this.#fallbackFor(ban), key, now, cost, commit);
      }
      return (map === undefined ? decision : map(decision)) as T;
    });
  }

  /** @internal resetWith empties the key in the store (its bookings, and `ban` when given) and in the fallback. */
  resetWith(key: string, ban?: BanRef): Result<M, void> {
    this.#fallbackFor(ban).reset(key);
    const op: RowOp = { kind: 'reset', parts: [this.part(key)], now: 0, ledgers: [this.ledgerRef(key)], ...(ban === undefined ? {} : { ban }) };
    return this.engine.runner.run(op, (answer) => {
      if (answer instanceof Failure) this.engine.report('reset', this.policy.name, answer);
    });
  }

  /**
   * @internal refundWith gives back up to `cost` units with the algorithm's own refund step (then lifts `ban` when the
   * algorithm admits the cost that started it); a refund the store cannot take is owed to it and given to the fallback.
   */
  refundWith(key: string, now: number, cost: number, ban?: BanRef): Result<M, void> {
    const op: RowOp = { kind: 'refund', parts: [this.part(key)], now, cost, ...(ban === undefined ? {} : { ban }) };
    return this.engine.runner.run(op, (answer) => {
      if (!(answer instanceof Failure)) return;
      this.engine.report('refund', this.policy.name, answer);
      this.engine.owe(op, this.policy.name);
      this.#fallbackFor(ban).refund?.(key, now, cost);
    });
  }
}

function allowedOf(decision: Decision): boolean {
  return decision.allowed;
}

/** RowBans is a binding with a ban of `banMs` in front of a RowBinding (see above). */
export class RowBans<M extends Mode = Mode> implements StoreBinding<M> {
  readonly #inner: RowBinding<M>;
  readonly #head: string;
  readonly #name: string;
  readonly #banMs: number;

  constructor(inner: RowBinding<M>, banMs: number) {
    this.#inner = inner;
    this.#name = inner.policy.name + BAN_SUFFIX;
    this.#head = nameHead(this.#name);
    this.#banMs = banMs;
  }

  consume(key: string, now: number, cost: number): Result<M, Decision> {
    return this.#inner.decide('consume', key, now, cost, true, this.#ban(key));
  }

  peek(key: string, now: number, cost: number): Result<M, Decision> {
    return this.#inner.decide('peek', key, now, cost, false, this.#ban(key));
  }

  allow(key: string, now: number, cost: number): Result<M, boolean> {
    return this.#inner.decide('allow', key, now, cost, true, this.#ban(key), allowedOf);
  }

  /** reset lifts the key's ban and empties the key. */
  reset(key: string): Result<M, void> {
    return this.#inner.resetWith(key, this.#ban(key));
  }

  /** refund gives `cost` back to the algorithm, then lifts the key's ban when the algorithm admits the cost whose denial started it. */
  refund(key: string, now: number, cost: number): Result<M, void> {
    return this.#inner.refundWith(key, now, cost, this.#ban(key));
  }

  /** charge charges the algorithm, ban or not (starting none); the Usage carries the ban's time left. */
  charge(key: string, now: number, cost: number): Result<M, Usage> {
    return this.#inner.chargeWith(key, now, cost, this.#ban(key));
  }

  /** usage is the algorithm's usage with the time left in the key's ban. */
  usage(key: string, now: number): Result<M, Usage> {
    return this.#inner.usageWith(key, now, this.#ban(key));
  }

  /** block bans `key` until now + ms, or a running ban's later end; no refund lifts it. */
  block(key: string, now: number, ms: number): Result<M, void> {
    return this.#inner.blockWith(key, now, ms, this.#ban(key));
  }

  #ban(key: string): BanRef {
    return { id: rowId(this.#head, key), name: this.#name, banMs: this.#banMs };
  }
}
