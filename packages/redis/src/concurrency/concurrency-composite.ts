/**
 * Composites with concurrency members on Redis: the leases are asked first (each an atomic ACQUIRE,
 * lua/concurrency.ts), the rate members after, together in their one composite script (../composite.ts).
 * All or nothing in effect: a request denied a lease spends no rate (the rates are then only peeked,
 * for the decision's parts), and a request the rates deny keeps no lease (the ones it took a moment
 * before are released at once, by id). In that moment the lease is held: a concurrent request may be
 * denied it, never admitted beyond the limit, so the limit is never exceeded and only ever briefly
 * under-admits. A member that admitted inside a denied composite reports what it holds as it stands,
 * as on the memory store.
 */
import type { Decision, StoreBinding } from '@ratekeeper/core';
import type { Backend } from '../binding.js';
import { type PreparedMembers, decideComposite, prepareMembers } from '../composite.js';
import { RedisConcurrency } from './concurrency-binding.js';
import type { FallbackStore } from '@ratekeeper/core/store';

export interface PreparedConcurrency {
  readonly leases: readonly { readonly index: number; readonly binding: RedisConcurrency }[];
  readonly rates: PreparedMembers | undefined;
  readonly rateIndexes: readonly number[];
  readonly size: number;
}

/** hasConcurrency tells whether a composite's bindings include a concurrency member. */
export function hasConcurrency(bindings: readonly StoreBinding<'async'>[]): boolean {
  return bindings.some((b) => b instanceof RedisConcurrency);
}

export function prepareConcurrency(backend: Backend, bindings: readonly StoreBinding<'async'>[]): PreparedConcurrency {
  const leases: { index: number; binding: RedisConcurrency }[] = [];
  const rates: StoreBinding<'async'>[] = [];
  const rateIndexes: number[] = [];
  for (const [index, binding] of bindings.entries()) {
    if (binding instanceof RedisConcurrency) {
      if (binding.backend !== backend) throw new TypeError(`RedisStore: composite member ${index} is not bound to this RedisStore`);
      leases.push({ index, binding });
    } else {
      rates.push(binding);
      rateIndexes.push(index);
    }
  }
  return { leases, rates: rates.length === 0 ? undefined : prepareMembers(backend, rates), rateIndexes, size: bindings.length };
}

/** decideWithConcurrency decides a composite with concurrency members (see the contract above). */
export async function decideWithConcurrency(
  backend: Backend,
  fallbackStore: FallbackStore,
  prepared: PreparedConcurrency,
  key: string,
  now: number,
  cost: number,
  commit: boolean,
): Promise<readonly Decision[]> {
  const parts = new Array<Decision>(prepared.size);
  const taken: RedisConcurrency[] = [];
  let leased = true;
  for (const { index, binding } of prepared.leases) {
    const d = await (leased && commit ? binding.consume(key, now, cost) : binding.peek(key, now, cost));
    parts[index] = d;
    if (!d.allowed) leased = false;
    else if (leased && commit) taken.push(binding);
  }
  const rateParts = prepared.rates === undefined ? [] : await decideComposite(backend, fallbackStore, prepared.rates, key, now, cost, commit && leased);
  for (const [i, d] of rateParts.entries()) parts[prepared.rateIndexes[i] as number] = d;
  const admitted = parts.every((d) => d.allowed);
  if (admitted) return parts;
  // Give back what this request took. Members that admitted report what they hold as it stands: the
  // figures of an admission are after the request, so its cost goes back into them (the rates' own
  // script already answers so when it denied).
  if (commit) await Promise.all(taken.map((binding) => binding.refund(key, now, cost)));
  const ratesAfter = rateParts.every((d) => d.allowed);
  const asItStands = (i: number) => {
    const d = parts[i] as Decision;
    if (d.allowed) parts[i] = { ...d, remaining: d.remaining + cost };
  };
  for (const { index } of prepared.leases) asItStands(index);
  if (ratesAfter) for (const index of prepared.rateIndexes) asItStands(index);
  return parts;
}
