/**
 * RedisConcurrency: a concurrency limit's binding on a RedisStore (core's ConcurrencyLimiter). The leases
 * live in Redis as one sorted set per key (lua/concurrency.ts), shared by every process, each member a
 * unit in flight scored by its expiry; this binding remembers which members it took, per key, so that
 * `refund` (core's `release`) removes this process's own leases by id, never another's.
 *
 * - Crash safety: every lease expires `leaseTtlMs` after it was taken or last renewed, on Redis's
 *   clock. While this process holds leases, one unref'd timer renews them all every leaseTtlMs / 3
 *   (one RENEW call per key, with a deadline like every script), and stops when none is held. A
 *   process that dies stops renewing, so its leases are gone leaseTtlMs later at most, without anyone's
 *   help. A request that outlives leaseTtlMs keeps its lease as long as its process lives.
 * - Failure: what Redis cannot decide (timeout, lost connection, error) the store's failure policy
 *   decides, as for every binding: 'fallback' takes the lease on the in-process fallback binding (and
 *   gives it back there on release), 'open' admits without a lease, 'closed' denies. Each admission's
 *   units are remembered in order with their kind, so a release gives back what was taken where it was
 *   taken. A lease whose acquire reply was lost after Redis ran it is not known here: it expires by
 *   itself after the TTL (the deadline makes this rare: see ../transport/remote.ts).
 * - Release sends ZREM of the members, atomic and idempotent. One that Redis could not run (stopped,
 *   restarted, the breaker open) is reported once and kept, and sent again every probeIntervalMs
 *   (each retry may be the store's probe) and at once when Redis answers again (Remote.onRecover): a
 *   short pause never leaves a key's units locked until their TTL. An error reply is not retried (the
 *   key holds foreign data).
 */
import { randomBytes } from 'node:crypto';
import type { ConcurrencyPolicy, Decision, StoreBinding } from '@ratekeeper/core';
import { type Backend, asFailure, info } from '../binding.js';
import { closedDecision, fallbackDecision, openDecision } from '@ratekeeper/core/store';
import { decodeOne } from '../transport/decisions.js';
import { Failure } from '@ratekeeper/core/store';
import type { Fallback } from '@ratekeeper/core/store';
import { encodeKey, keyHead } from '../keys.js';
import { ACQUIRE, RENEW } from '../lua/concurrency.js';

/** A unit held: a member of the Redis set, or one taken by the failure policy ('open' or on the fallback). */
type Unit = string | typeof OPEN | typeof FALLBACK;
const OPEN = 0;
const FALLBACK = 1;

export class RedisConcurrency implements StoreBinding<'async'> {
  readonly backend: Backend;
  readonly policy: ConcurrencyPolicy;
  readonly #fallback: Fallback;
  readonly leaseTtlMs: number;
  readonly #probeIntervalMs: number;
  readonly head: string;
  readonly #token = randomBytes(9).toString('base64url');
  #sequence = 0;
  /** This process's units in flight, by user key. */
  readonly #held = new Map<string, Unit[]>();
  /** Members released here that Redis has not yet removed, by Redis key (see the header). */
  readonly #unreleased = new Map<string, string[]>();
  #retry: ReturnType<typeof setTimeout> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(backend: Backend, policy: ConcurrencyPolicy, fallback: Fallback, leaseTtlMs: number, probeIntervalMs: number) {
    this.backend = backend;
    this.policy = policy;
    this.#fallback = fallback;
    this.leaseTtlMs = leaseTtlMs;
    this.head = keyHead(backend.prefix, policy.name);
    this.#probeIntervalMs = probeIntervalMs;
    backend.remote.onRecover(() => this.#retryReleases());
  }

  /** fallback is the in-process binding of this limit's share that decides while Redis cannot. */
  get fallback(): StoreBinding<'sync'> {
    return this.#fallback.binding;
  }

  /** keyOf is the Redis key of `key`'s leases. */
  keyOf(key: string): string {
    return `${this.head}${encodeKey(key)}}`;
  }

  /** held is how many units this process holds for `key` (tests and diagnostics). */
  held(key: string): number {
    return this.#held.get(key)?.length ?? 0;
  }

  /** renewing tells whether the renewal timer runs (it does exactly while some lease is held). */
  get renewing(): boolean {
    return this.#timer !== undefined;
  }

  consume(key: string, now: number, cost: number): Promise<Decision> {
    return this.#acquire(key, now, cost, true);
  }

  peek(key: string, now: number, cost: number): Promise<Decision> {
    return this.#acquire(key, now, cost, false);
  }

  allow(key: string, now: number, cost: number): Promise<boolean> {
    return this.#acquire(key, now, cost, true).then((d) => d.allowed);
  }

  /** reset deletes every lease of `key`, in Redis and on the fallback, and forgets this process's. */
  reset(key: string): Promise<void> {
    this.fallback.reset(key);
    this.#forget(key);
    const redisKey = this.keyOf(key);
    return this.backend.remote.command(['DEL', redisKey], redisKey, (ended) => {
      if (ended instanceof Failure) this.backend.report(info('reset', this.policy.name, ended));
    });
  }

  /** refund releases up to `cost` of this process's units of `key`, the latest taken first. */
  refund(key: string, now: number, cost: number): Promise<void> {
    const units = this.#held.get(key);
    if (units === undefined) return Promise.resolve();
    const members: string[] = [];
    let fallback = 0;
    for (let i = 0; i < cost && units.length > 0; i++) {
      const unit = units.pop() as Unit;
      if (typeof unit === 'string') members.push(unit);
      else if (unit === FALLBACK) fallback++;
    }
    if (fallback > 0) this.fallback.refund?.(key, now, fallback);
    const sent = members.length === 0 ? Promise.resolve() : this.#release(this.keyOf(key), members);
    if (units.length === 0) this.#forget(key);
    return sent;
  }

  /**
   * release removes `members` from the set at `redisKey`; what Redis could not run is kept and sent
   * again (a first failure is reported, a retry's is not).
   */
  #release(redisKey: string, members: string[], retried = false): Promise<void> {
    return this.backend.remote.command(['ZREM', redisKey, ...members], redisKey, (ended) => {
      if (!(ended instanceof Failure)) return;
      if (!retried) this.backend.report(info('refund', this.policy.name, ended));
      if (ended.reason === 'reply') return;
      const kept = this.#unreleased.get(redisKey);
      if (kept === undefined) this.#unreleased.set(redisKey, members);
      else kept.push(...members);
      if (this.#retry === undefined) {
        this.#retry = setTimeout(() => this.#retryReleases(), Math.max(1, this.#probeIntervalMs));
        this.#retry.unref();
      }
    });
  }

  /** retryReleases sends again every release Redis could not run. */
  #retryReleases(): void {
    clearTimeout(this.#retry);
    this.#retry = undefined;
    if (this.#unreleased.size === 0) return;
    const pending = [...this.#unreleased];
    this.#unreleased.clear();
    for (const [redisKey, members] of pending) void this.#release(redisKey, members, true);
  }

  /** unreleased counts the units released here that Redis has not yet removed (tests and diagnostics). */
  get unreleased(): number {
    let units = 0;
    for (const members of this.#unreleased.values()) units += members.length;
    return units;
  }

  #acquire(key: string, now: number, cost: number, commit: boolean): Promise<Decision> {
    const redisKey = this.keyOf(key);
    const id = `${this.#token}:${this.#sequence++}`;
    const p = this.policy;
    const command = ['EVALSHA', ACQUIRE.sha, '1', redisKey, String(commit ? cost : -cost), String(p.limit), String(this.leaseTtlMs), String(p.retryAfterMs), id, '0'];
    return this.backend.remote.eval(ACQUIRE, command, redisKey, (ended) => {
      const decision = decodeOne(ended, p);
      if (decision === undefined) return this.#failed(ended, key, now, cost, commit);
      if (decision.allowed && commit)
        this.#record(
          key,
          Array.from({ length: cost }, (_, i) => `${id}.${i + 1}`),
        );
      return decision;
    });
  }

  #failed(ended: unknown, key: string, now: number, cost: number, commit: boolean): Decision {
    this.backend.report(info(commit ? 'consume' : 'peek', this.policy.name, asFailure(ended)));
    const onFailure = this.backend.onFailure;
    if (onFailure === 'closed') return closedDecision(this.policy);
    if (onFailure === 'open') {
      if (commit) this.#record(key, new Array<Unit>(cost).fill(OPEN));
      return openDecision(this.policy, cost);
    }
    const decision = commit ? this.fallback.consume(key, now, cost) : this.fallback.peek(key, now, cost);
    if (decision.allowed && commit) this.#record(key, new Array<Unit>(cost).fill(FALLBACK));
    return fallbackDecision(decision, this.policy);
  }

  #record(key: string, units: readonly Unit[]): void {
    const held = this.#held.get(key);
    if (held === undefined) this.#held.set(key, [...units]);
    else held.push(...units);
    this.#watch();
  }

  /** watch runs the renewal timer while leases are held. */
  #watch(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.renew(), Math.max(1, Math.floor(this.leaseTtlMs / 3)));
    this.#timer.unref();
  }

  #forget(key: string): void {
    this.#held.delete(key);
    if (this.#held.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  /** renew moves every lease this process holds to a fresh expiry, one RENEW call per key (the timer calls it every leaseTtlMs / 3). */
  renew(): void {
    for (const [key, units] of this.#held) {
      const members = units.filter((u): u is string => typeof u === 'string');
      if (members.length === 0) continue;
      const redisKey = this.keyOf(key);
      const command = ['EVALSHA', RENEW.sha, '1', redisKey, '1', String(this.leaseTtlMs), ...members, '0'];
      void this.backend.remote.eval(RENEW, command, redisKey, (ended) => {
        if (ended instanceof Failure) this.backend.report(info('renew', this.policy.name, ended));
      });
    }
  }
}
