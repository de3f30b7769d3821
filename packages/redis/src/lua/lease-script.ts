/**
 * The lease script: one atomic call that takes up to `wanted` tokens from a token bucket for a
 * process to spend locally (../lease/leased.ts). It runs the token bucket's own step (./token-bucket.ts, `tb`),
 * so what it takes is exactly what that many consumes of one unit at the same instant would have
 * taken: `wanted` when that many tokens are there, else every whole token there is (a partial lease),
 * else nothing.
 *
 * ARGV: [now,] wanted, capacity, refill interval (ms), deadline (set by Remote, see ./prelude.ts).
 * Reply, always an array (never a bare integer, which Remote would read as 'expired'):
 *   { granted, remaining, waitMs, resetAfterMs }
 * granted   the whole tokens taken (0 to wanted), written with the bucket's TTL;
 * remaining the whole tokens left in the bucket after the take;
 * waitMs    0 when `wanted` was granted, else the wait until `wanted` tokens would be there (after
 *           this take), the holder's hint for when a full lease is worth asking again;
 * resetAfterMs until the bucket is full again.
 */
import { type Script, script } from './scripts.js';
import { TOKEN_BUCKET_LUA } from './token-bucket.js';

const LEASE_BODY = `
local capacity, interval = tonumber(ARGV[first]), tonumber(ARGV[first + 1])
local raw = (untail(redis.call('GET', KEYS[1])))
local ok, remaining, retry, reset, ttl, state = tb(raw, now, cost, capacity, interval)
local granted = cost
if not ok and remaining >= 1 then
  granted = remaining
  ok, remaining, retry, reset, ttl, state = tb(raw, now, granted, capacity, interval)
end
local wait = 0
if ok then
  redis.call('SET', KEYS[1], state, 'PX', px(ttl))
  if granted < cost then
    local _, _, after = tb(state, now, cost, capacity, interval)
    wait = after
  end
else
  granted = 0
  wait = retry
end
return { granted, num(remaining), num(wait), num(reset) }
`;

/** leaseScript is the lease script reading time from the server or, with `clientTime`, from the call. */
export function leaseScript(clientTime: boolean): Script {
  return script(clientTime, TOKEN_BUCKET_LUA, LEASE_BODY);
}
