/**
 * The capabilities of the Store contract (core's store.ts) beyond a single policy's consume, peek,
 * allow and reset, as the suite names them: what a store claims, and what its checks and its
 * differential and burst replay per claim.
 */
export type Capability = 'composite' | 'refund' | 'reserve' | 'bans' | 'concurrency';
export const CAPABILITIES: readonly Capability[] = ['composite', 'refund', 'reserve', 'bans', 'concurrency'];
