/**
 * The peer count's beat on Redis (core's Peers, @ratekeeper/core/store, counts and schedules): one
 * script that records this process in a sorted set `${prefix}peers` (which no policy key can equal:
 * those always hold ':{'), scored by the server's TIME, drops the members not seen for MEMBER_TTL_MS,
 * sets the set's TTL to that, and answers how many remain (never ≤ 0, which Remote reads as a script
 * past its deadline). It carries a deadline like every script, so a beat Redis runs late changes
 * nothing.
 */
import { MEMBER_TTL_MS, Peers, peerId } from '@ratekeeper/core/store';
import { script } from '../lua/scripts.js';
import type { RedisRemote } from './remote.js';

/** BEAT (KEYS: the set; ARGV: signed cost (unused), member, ttl, deadline): record, expire, count. */
const BEAT = script(
  false,
  '',
  `
local ttl = tonumber(ARGV[first + 1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ttl)
redis.call('ZADD', KEYS[1], now, ARGV[first])
redis.call('PEXPIRE', KEYS[1], ttl)
return redis.call('ZCARD', KEYS[1])
`,
);

/** redisPeers counts the processes deciding on `prefix` through `wire`. */
export function redisPeers(wire: RedisRemote, prefix: string): Peers {
  const key = `${prefix}peers`;
  return new Peers(wire.remote, () => wire.request(BEAT, ['EVALSHA', BEAT.sha, '1', key, '1', peerId(), String(MEMBER_TTL_MS), '0'], key));
}
