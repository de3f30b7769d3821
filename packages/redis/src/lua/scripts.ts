/**
 * The four scripts RedisStore runs: one per algorithm and one composite that decides several policies
 * for one request all or nothing. Each is assembled from the algorithm steps (./token-bucket.ts …) and
 * the shared prelude below, and addressed by its SHA-1 for EVALSHA.
 *
 * Calling convention (every script):
 *   KEYS       one key per policy; a composite's keys share one hash tag, hence one cluster slot.
 *   ARGV[1]    `now` in epoch ms as JavaScript's String(number), or '' to read the server's TIME.
 *   ARGV[2]    the cost; ARGV[3] '1' to record an admitted request, '0' to only decide (peek).
 *   ARGV[4…]   the policy's two parameters (String(number)): capacity and refill interval (ms) for a
 *              token bucket, window (ms) and limit for the windows. A composite sends, per policy,
 *              an algorithm code ('t', 's', 'f') and then its two parameters.
 * Reply: four values per policy: allowed (1/0), remaining, retryAfterMs, resetAfterMs. Each number is
 * an integer reply when it is a safe integer other than -0, else a %.17g string ('inf' for Infinity),
 * because Redis truncates a Lua number to an integer on the way out.
 *
 * A denied request writes nothing. An admitted one writes each state with SET … PX ttl, so every key
 * carries the TTL after which its state is empty: no key is ever left without one. State is binary,
 * little-endian doubles packed with struct.pack (exact, and far cheaper than %.17g text and parsing
 * it back); a value of the wrong length is foreign data (RKCORRUPT). Parameters are parsed with
 * tonumber, which reads JavaScript's shortest round-trip digits back to the same double.
 */
import { createHash } from 'node:crypto';
import { FIXED_WINDOW_LUA } from './fixed-window.js';
import { SLIDING_WINDOW_LUA } from './sliding-window.js';
import { TOKEN_BUCKET_LUA } from './token-bucket.js';

export interface Script {
  readonly source: string;
  readonly sha: string;
}

/**
 * MAX_PX caps a TTL just below 10^14 ms (about 3,170 years): redis.call turns a Lua number into text
 * with %.14g, exact for every integer below 10^14, so PX needs no string formatting.
 */
const PRELUDE = `
local floor, ceil, format, tonumber = math.floor, math.ceil, string.format, tonumber
local pack, unpack = struct.pack, struct.unpack
local INF = math.huge
local MAX_SAFE = 9007199254740992
local MAX_PX = 99999999999999

local function corrupt()
  error({ err = 'RKCORRUPT the key holds a value ratekeeper did not write' })
end

local function num(x)
  if x == floor(x) and x > -MAX_SAFE and x < MAX_SAFE and (x ~= 0 or 1 / x > 0) then return x end
  return format('%.17g', x)
end

local function px(ttl)
  local ms = ceil(ttl)
  if not (ms >= 1) then ms = 1 end
  if ms > MAX_PX then ms = MAX_PX end
  return ms
end

local now
if ARGV[1] == '' then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + floor(tonumber(time[2]) / 1000)
else
  now = tonumber(ARGV[1])
end
local cost = tonumber(ARGV[2])
local commit = ARGV[3] == '1'
`;

/** SINGLE_BODY decides one policy; STEP is replaced by the algorithm's function. */
const SINGLE_BODY = `
local ok, remaining, retry, reset, ttl, state = STEP(redis.call('GET', KEYS[1]), now, cost, tonumber(ARGV[4]), tonumber(ARGV[5]))
if ok and commit then redis.call('SET', KEYS[1], state, 'PX', px(ttl)) end
if ok then ok = 1 else ok = 0 end
return { ok, num(remaining), num(retry), num(reset) }
`;

/**
 * COMPOSITE_BODY evaluates every policy first and writes only when all admit, so a denial by one costs
 * the others nothing. Members that admitted inside a denied composite report the units they still
 * hold (remaining + cost), as MemoryStore's decideAll does.
 */
const COMPOSITE_BODY = `
local steps = { t = tb, s = sw, f = fw }
local n = #KEYS
local oks, rems, retries, resets, ttls, states = {}, {}, {}, {}, {}, {}
local all = true
for i = 1, n do
  local j = 3 * i + 1
  oks[i], rems[i], retries[i], resets[i], ttls[i], states[i] =
    steps[ARGV[j]](redis.call('GET', KEYS[i]), now, cost, tonumber(ARGV[j + 1]), tonumber(ARGV[j + 2]))
  if not oks[i] then all = false end
end
if all and commit then
  for i = 1, n do redis.call('SET', KEYS[i], states[i], 'PX', px(ttls[i])) end
end
local out = {}
for i = 1, n do
  local rem = rems[i]
  local ok = 0
  if oks[i] then
    ok = 1
    if not all then rem = rem + cost end
  end
  out[4 * i - 3], out[4 * i - 2], out[4 * i - 1], out[4 * i] = ok, num(rem), num(retries[i]), num(resets[i])
end
return out
`;

function script(steps: string, body: string): Script {
  const source = `${PRELUDE}${steps}${body}`;
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

export const SCRIPTS = {
  'token-bucket': script(TOKEN_BUCKET_LUA, SINGLE_BODY.replace('STEP', 'tb')),
  'sliding-window': script(SLIDING_WINDOW_LUA, SINGLE_BODY.replace('STEP', 'sw')),
  'fixed-window': script(FIXED_WINDOW_LUA, SINGLE_BODY.replace('STEP', 'fw')),
  composite: script(`${TOKEN_BUCKET_LUA}${SLIDING_WINDOW_LUA}${FIXED_WINDOW_LUA}`, COMPOSITE_BODY),
} as const;

/** ALGORITHM_CODES are the composite's per-member algorithm codes (ARGV[4i]). */
export const ALGORITHM_CODES = { 'token-bucket': 't', 'sliding-window': 's', 'fixed-window': 'f' } as const;
