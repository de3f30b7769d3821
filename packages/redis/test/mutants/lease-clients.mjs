/**
 * MUTANTS of lease mode, made by rewriting what the client carries (plain JavaScript, for the worker
 * processes):
 *   overspendingLeaseClient  every lease take that granted units reports one more than Redis took, so
 *                            the process spends one unit beyond its lease per take. The 8-process
 *                            exactness test must see more than the limit admitted.
 *   forgetfulLeaseClient     the refund that gives a lease's unspent units back is never sent (answered
 *                            as if done), so units taken are neither spent nor returned. The ledger
 *                            check (Redis's tokens after close = limit − admitted) must catch it.
 */
import { scriptBySha } from '../../dist/esm/lua/scripts.js';

/** sourceOf is the script a call runs (EVALSHA by its SHA-1, EVAL by its text), or undefined. */
function sourceOf(command, args) {
  if (command === 'EVALSHA') return scriptBySha(args[0])?.source;
  return command === 'EVAL' ? args[0] : undefined;
}

const isLease = (source) => source?.includes('local granted = cost') === true;
const isRefund = (source) => source?.includes('local changed, ttl, state = tb_refund(') === true;

export function overspendingLeaseClient(client) {
  return {
    async call(command, ...args) {
      const reply = await client.call(command, ...args);
      if (!isLease(sourceOf(command, args)) || !Array.isArray(reply) || !(reply[0] > 0)) return reply;
      return [reply[0] + 1, ...reply.slice(1)];
    },
  };
}

export function forgetfulLeaseClient(client) {
  return {
    call(command, ...args) {
      return isRefund(sourceOf(command, args)) ? Promise.resolve(2) : client.call(command, ...args);
    },
  };
}
