/**
 * MUTANT — the Redis store in client-time mode standing in for "every process trusts its own clock".
 * With app clocks 30 s apart, a process whose clock is behind writes a window that a process whose
 * clock is ahead reads as stale, so both spend the limit. The clock-skew harness must see it exceed
 * the limit that server time holds exactly.
 */
export function clientTimeStore(RedisStore, client, prefix) {
  return new RedisStore({ client, prefix, time: 'client', timeoutMs: 10_000, onFailure: 'closed' });
}
