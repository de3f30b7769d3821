/**
 * The lease scripts of a concurrency limit (core's ConcurrencyLimiter) on Redis. A key's leases are a
 * sorted set: one member per unit in flight, named by the lease id of the process that took it, scored
 * by the instant (server ms) it expires unless renewed. The scripts always read the server's TIME (the
 * prelude's server-time variant, whatever the store's `time` option): a lease must expire on one clock
 * every process shares, not on a client's (a crashed process cannot be trusted to say it is gone).
 *
 * ACQUIRE (KEYS: the set; ARGV: signed cost, limit, ttlMs, retryAfterMs hint, lease id, deadline):
 * drops the expired members, counts the rest, and admits while held + cost ≤ limit, adding `cost`
 * members `<id>.<i>` scored now + ttl (a peek, negative cost, adds nothing). The set's TTL is set to its
 * latest expiry, so an abandoned set vanishes by itself. The reply is the four-value decision of
 * lua/scripts.ts: an admission `{1, limit - held - cost, 0, hint}`, a denial `{0, limit - held, hint
 * (inf for a cost above the limit), hint or 0 when idle}`, the figures of core's concurrency step.
 *
 * RENEW (KEYS: the set; ARGV: 1, ttlMs, member…, deadline): drops the expired members, then moves each
 * listed member still present to now + ttl (ZADD XX: a lease that already expired is never revived,
 * since another request may have taken its place), and refreshes the set's TTL. Replies 1 + the
 * number renewed (never ≤ 0, which Remote reads as a script past its deadline).
 *
 * Release needs no script: ZREM of the process's own members is atomic and idempotent.
 */
import { script } from './scripts.js';

const EXPIRE_AT_LATEST = `
local function expire_at_latest(key)
  local top = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if top[2] then redis.call('PEXPIRE', key, px(tonumber(top[2]) - now)) end
end
`;

const ACQUIRE_BODY = `
local limit = tonumber(ARGV[first])
local ttl = tonumber(ARGV[first + 1])
local hint = tonumber(ARGV[first + 2])
local id = ARGV[first + 3]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
if held + cost <= limit then
  if commit then
    for i = 1, cost do redis.call('ZADD', KEYS[1], now + ttl, id .. '.' .. i) end
    expire_at_latest(KEYS[1])
  end
  return { 1, limit - held - cost, 0, hint }
end
local retry = hint
if cost > limit then retry = INF end
local reset = 0
if held > 0 then reset = hint end
return { 0, limit - held, num(retry), reset }
`;

const RENEW_BODY = `
local ttl = tonumber(ARGV[first])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local renewed = 0
for i = first + 1, #ARGV - 1 do
  renewed = renewed + redis.call('ZADD', KEYS[1], 'XX', 'CH', now + ttl, ARGV[i])
end
expire_at_latest(KEYS[1])
return renewed + 1
`;

export const ACQUIRE = script(false, EXPIRE_AT_LATEST, ACQUIRE_BODY);
export const RENEW = script(false, EXPIRE_AT_LATEST, RENEW_BODY);
