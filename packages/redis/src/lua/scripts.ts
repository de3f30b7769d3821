/**
 * The scripts RedisStore runs: one per algorithm, and composites (./composite-script.ts) that decide
 * several policies for one request all or nothing. Each is assembled from the algorithm steps
 * (./token-bucket.ts …) and the shared prelude below, and addressed by its SHA-1 for EVALSHA.
 *
 * Calling convention (every script):
 *   KEYS       one key per policy; a composite's keys share one hash tag, hence one cluster slot.
 *   ARGV[1]    `now` in epoch ms as JavaScript's String(number), or '' to read the server's TIME.
 *   ARGV[2]    the cost; ARGV[3] '1' to record an admitted request, '0' to only decide (peek).
 *   ARGV[4…]   each policy's two parameters (String(number)), in key order: capacity and refill
 *              interval (ms) for a token bucket, window (ms) and limit for the windows.
 * Reply: four values per policy: allowed (1/0), remaining, retryAfterMs, resetAfterMs. Each number is
 * an integer reply when it is a safe integer other than -0, else a %.17g string ('inf' for Infinity),
 * because Redis truncates a Lua number to an integer on the way out. An admission with the usual
 * figures answers one compact integer per policy instead (see `compact` below).
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
 *
 * `compact` is the short reply of an admitted request: one integer, reset·2^21 + remaining·2 + 1,
 * when remaining < 2^20 and resetAfterMs < 2^31 are whole and retryAfterMs is 0 (an admission's
 * usual figures). Returning one integer instead of a four-element array saves Redis the table
 * conversion and the client an array; anything else goes out in the four-value form.
 */
export const PRELUDE = `
local floor, ceil, format, tonumber = math.floor, math.ceil, string.format, tonumber
local pack, unpack = struct.pack, struct.unpack
local INF = math.huge
local MAX_SAFE = 9007199254740992
local MAX_PX = 99999999999999
local CORRUPT = 'RKCORRUPT the key holds a value ratekeeper did not write'

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

local function compact(remaining, retry, reset)
  if retry == 0 and remaining >= 0 and remaining < 1048576 and remaining == floor(remaining)
    and reset >= 0 and reset < 2147483648 and reset == floor(reset)
    and (remaining ~= 0 or 1 / remaining > 0) and (reset ~= 0 or 1 / reset > 0) and 1 / retry > 0 then
    return reset * 2097152 + remaining * 2 + 1
  end
  return nil
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
if ok then
  if commit then redis.call('SET', KEYS[1], state, 'PX', px(ttl)) end
  local short = compact(remaining, retry, reset)
  if short then return short end
  return { 1, num(remaining), num(retry), num(reset) }
end
return { 0, num(remaining), num(retry), num(reset) }
`;

/** script assembles a script from the prelude, the step functions it calls and its body. */
export function script(steps: string, body: string): Script {
  const source = `${PRELUDE}${steps}${body}`;
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

export const SCRIPTS = {
  'token-bucket': script(TOKEN_BUCKET_LUA, SINGLE_BODY.replace('STEP', 'tb')),
  'sliding-window': script(SLIDING_WINDOW_LUA, SINGLE_BODY.replace('STEP', 'sw')),
  'fixed-window': script(FIXED_WINDOW_LUA, SINGLE_BODY.replace('STEP', 'fw')),
} as const;

/** STEPS maps each algorithm to its Lua step function's name and source. */
export const STEPS = {
  'token-bucket': { name: 'tb', source: TOKEN_BUCKET_LUA },
  'sliding-window': { name: 'sw', source: SLIDING_WINDOW_LUA },
  'fixed-window': { name: 'fw', source: FIXED_WINDOW_LUA },
} as const;
