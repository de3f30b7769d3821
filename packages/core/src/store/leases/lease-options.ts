/** The `leaseTtlMs` option every store that keeps concurrency leases takes, with one default and one message. */
import { optionFail } from '../remote/options.js';

/** The default `leaseTtlMs` of a store that keeps leases: a stopped process's concurrency leases expire after 30 s. */
export const DEFAULT_CONCURRENCY_LEASE_TTL_MS = 30_000;

/** leaseTtlOption validates a store's `leaseTtlMs` option (an integer from 100 to 86,400,000; default DEFAULT_CONCURRENCY_LEASE_TTL_MS). */
export function leaseTtlOption(owner: string, value: unknown): number {
  if (value === undefined) return DEFAULT_CONCURRENCY_LEASE_TTL_MS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 100 || value > 86_400_000) optionFail(owner, 'leaseTtlMs', 'an integer from 100 to 86400000', value);
  return value as number;
}
