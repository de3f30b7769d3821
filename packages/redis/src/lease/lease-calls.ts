/**
 * The two Redis calls of lease mode (./leased.ts), on a token-bucket RedisBinding: `takeLease` runs
 * the lease script (../lua/lease-script.ts), `returnUnits` the token bucket's refund script. Both go
 * straight through the store's Remote (one shared timeout, the breaker, deadlines): a take that Redis
 * cannot answer took nothing it will ever run (its deadline has passed), and resolves undefined;
 * the store's 'failure' event reports it (operation 'lease'), and the caller decides its requests by
 * the store's failure policy. A return that fails is reported (operation 'refund') and dropped: those
 * units are lost to the bucket until it refills, which can only admit less, never more. (A binding's
 * own refund would credit them to the fallback instead, which never charged them.)
 *
 * The counters per store (`leaseCounters`) feed RedisStore's `leasing` and @ratekeeper/otel.
 */
import type { RedisBinding } from '../binding.js';
import { asFailure, info } from '../binding.js';
import { Failure } from '@ratekeeper/core/store';
import { leaseScript } from '../lua/lease-script.js';
import { refundScript } from '../lua/scripts.js';

/** LeaseTake is Redis's answer to one take. */
export interface LeaseTake {
  readonly granted: number;
  /** Whole tokens left in the shared bucket after the take. */
  readonly remaining: number;
  /** 0 when everything asked was granted, else the wait until that many tokens would be there. */
  readonly waitMs: number;
  readonly resetAfterMs: number;
}

/** LeaseCounters are one store's lease totals since it was made. */
export interface LeaseCounters {
  /** Takes Redis answered. */
  refills: number;
  /** Units those takes granted. */
  units: number;
  /** Units given back (expired, evicted, closed), counted when Redis answered the refund. */
  returned: number;
}

const counters = new WeakMap<object, LeaseCounters>();

/** leaseCounters are the counters of the store behind `backend` (made on first use). */
export function leaseCounters(backend: object): LeaseCounters {
  let c = counters.get(backend);
  if (c === undefined) counters.set(backend, (c = { refills: 0, units: 0, returned: 0 }));
  return c;
}

function numberOf(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value === 'inf') return Infinity;
  return Number(value);
}

/** decodeTake reads the script's reply; undefined for any other shape. */
export function decodeTake(reply: unknown): LeaseTake | undefined {
  if (!Array.isArray(reply) || reply.length !== 4 || typeof reply[0] !== 'number') return undefined;
  const [granted, remaining, waitMs, resetAfterMs] = [reply[0], numberOf(reply[1]), numberOf(reply[2]), numberOf(reply[3])];
  if (!(granted >= 0) || Number.isNaN(remaining) || Number.isNaN(waitMs) || Number.isNaN(resetAfterMs)) return undefined;
  return { granted, remaining, waitMs, resetAfterMs };
}

/** takeLease asks Redis for up to `wanted` units of `key` at `now` (used in client time only). */
export function takeLease(binding: RedisBinding, key: string, wanted: number, now: number): Promise<LeaseTake | undefined> {
  const backend = binding.backend;
  backend.batcher?.flush(); // Redis sees this process's calls in the order they were made
  const redisKey = binding.keyOf(key);
  const script = leaseScript(backend.clientTime);
  const [capacity, interval] = binding.params;
  const args = [String(wanted), capacity, interval, '0'];
  const command = ['EVALSHA', script.sha, '1', redisKey, ...(backend.clientTime ? [String(now), ...args] : args)];
  return backend.remote.eval(script, command, redisKey, (ended) => {
    const take = ended instanceof Failure ? undefined : decodeTake(ended);
    if (take === undefined) {
      backend.report(info('lease', binding.policy.name, asFailure(ended)));
      return undefined;
    }
    const c = leaseCounters(backend);
    c.refills++;
    c.units += take.granted;
    return take;
  });
}

/** returnUnits gives `units` back to `key`'s bucket in one atomic refund. */
export function returnUnits(binding: RedisBinding, key: string, units: number, now: number): Promise<void> {
  const backend = binding.backend;
  const redisKey = binding.keyOf(key);
  backend.denyCache?.forget(redisKey); // a remembered denial may no longer hold once units come back (keyed by the Redis key)
  backend.batcher?.flush();
  const script = refundScript('token-bucket', backend.clientTime);
  const [capacity, interval] = binding.params;
  const args = [String(units), capacity, interval, '0'];
  const command = ['EVALSHA', script.sha, '1', redisKey, ...(backend.clientTime ? [String(now), ...args] : args)];
  return backend.remote.eval(script, command, redisKey, (ended) => {
    backend.denyCache?.forget(redisKey); // again at the reply: a return sent again may run after a denial sent later
    if (ended instanceof Failure || (ended !== 1 && ended !== 2)) {
      backend.report(info('refund', binding.policy.name, asFailure(ended)));
      return;
    }
    leaseCounters(backend).returned += units;
  });
}
