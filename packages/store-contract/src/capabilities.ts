/**
 * The capabilities of the Store contract (core's packages/core/src/store/contract.ts) beyond a single policy's consume, peek,
 * allow and reset, as the suite names them: what a store claims, and what its checks and its
 * differential and burst replay per claim.
 */
export type Capability = 'composite' | 'refund' | 'reserve' | 'bans' | 'concurrency' | 'charge' | 'block';
/** `charge` is the bindings' charge and usage (a limiter's charge and usage); `block`, a ban binding's block (BanLimiter's block). */
export const CAPABILITIES: readonly Capability[] = ['composite', 'refund', 'reserve', 'bans', 'concurrency', 'charge', 'block'];
