/**
 * The prelude every script starts with: local aliases, the reply helpers, the deadline check, and
 * `now`, `cost`, `commit` and `first` (the ARGV index of the first policy parameter) read from the
 * call. The time source is part of the script, not of the call, so a server-time call sends no `now`.
 */

/**
 * `px` is a TTL in whole milliseconds, at least 1, capped by MAX_PX just below 10^14 ms (about 3,170
 * years); `px_text` is the same as PX text, written with %d (exact for every such integer): passing
 * the Lua number to SET instead makes Redis print it with %.17g, which costs it several times more.
 *
 * `compact` is the short reply of an admission: one positive integer instead of the four values, when
 * retryAfterMs is 0 and remaining and resetAfterMs are whole, not -0, and fit together in 50 bits:
 * remaining takes the low b bits of rest = reset·2^b + remaining (b = 20, 32 or 50, the first that
 * holds it), rest < 2^50, and the reply is rest·8 + t with t = 1, 3 or 5 naming b (below 2^53, so
 * exact as a double and as a Redis integer; odd and positive, so never read as 'expired'). A limit of
 * 100 with a reset of twelve days fits, and so does a billion-unit bucket or window with a reset of
 * four minutes. One integer instead of a table saves Redis the table conversion (an eighth of a
 * single decision's script time) and the client an array; anything else goes out in four values.
 */
/** GLOBALS: the local aliases of the standard library every helper and step uses. */
const GLOBALS = `
local floor, ceil, format, tonumber = math.floor, math.ceil, string.format, tonumber
local pack, unpack = struct.pack, struct.unpack
local sub, byte = string.sub, string.byte
local INF = math.huge
`;

/**
 * LIBRARY_GLOBALS: the same aliases in a function library (./library.ts), where the code that loads
 * runs without the standard library: they are declared at load and set by `init()`, which every
 * function calls first (`if not INF then init() end`, one comparison per call once set).
 */
export const LIBRARY_GLOBALS = `
local floor, ceil, format, tonumber, pack, unpack, sub, byte, INF
local function init()
  floor, ceil, format, tonumber = math.floor, math.ceil, string.format, _G.tonumber
  pack, unpack = struct.pack, struct.unpack
  sub, byte = string.sub, string.byte
  INF = math.huge
end
`;

/** HELPERS: the constants and reply helpers, after the aliases (GLOBALS or LIBRARY_GLOBALS). */
export const HELPERS = `
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

local function px_text(ttl)
  return format('%d', px(ttl))
end

-- A decision's write keeps the key's TTL while it still covers the state (the owner's rule: a TTL is a
-- memory bound, and a key may outlive the moment its state is empty by up to max(1 s, 25 %)). The
-- state is followed by a 9-byte tail: the key's expiry in server ms (a little-endian double) and 'e'.
-- Every state is a whole number of doubles, so a tailed value is 1 byte past a multiple of 8.
-- untail answers the state and that expiry, or the value as it is (nil expiry): a value another
-- script wrote (a refund, a booking, a lease: plain PX, no tail), a missing key (false), foreign data
-- or a GET's error (a table, whose length is 0).
local function untail(raw)
  if raw then
    local n = #raw
    if n > 16 and n % 8 == 1 and byte(raw, n) == 101 then return sub(raw, 1, n - 9), (unpack('<d', raw, n - 8)) end
  end
  return raw, nil
end

-- put writes a decision's state at \`server\` (the script's TIME, ms). When the recorded expiry still
-- covers the state's TTL it writes with KEEPTTL (no expires-table update), else with PX = the TTL +
-- max(900, 20 %), its text made by \`text\` (px_text, or a batch's cache), and the new expiry recorded.
-- The expiry recorded is 1 ms short of what Redis sets: Redis may date a script's SET at the script's
-- start, up to a millisecond before its TIME; so a kept key never expires before its state is empty.
local function put(key, state, ttl, expiry, server, text)
  local ms = px(ttl)
  if expiry and server + ms <= expiry then
    redis.call('SET', key, state .. pack('<dB', expiry, 101), 'KEEPTTL')
    return
  end
  local slack = floor(ms / 5)
  if slack < 900 then slack = 900 end
  ms = ms + slack
  if ms > MAX_PX then ms = MAX_PX end
  redis.call('SET', key, state .. pack('<dB', server + ms - 1, 101), 'PX', text(ms))
end

local function compact(remaining, retry, reset)
  if retry == 0 and 1 / retry > 0 and remaining >= 0 and reset >= 0 and remaining == floor(remaining) and reset == floor(reset)
    and (remaining ~= 0 or 1 / remaining > 0) and (reset ~= 0 or 1 / reset > 0) then
    local rest
    if remaining < 1048576 then
      rest = reset * 1048576 + remaining
      if rest < 1125899906842624 then return rest * 8 + 1 end
    elseif remaining < 4294967296 then
      rest = reset * 4294967296 + remaining
      if rest < 1125899906842624 then return rest * 8 + 3 end
    elseif reset == 0 and remaining < 1125899906842624 then
      return remaining * 8 + 5
    end
  end
  return nil
end

`;

/**
 * DEADLINE: every script reads TIME first (ms = s·1000 + ⌊µs/1000⌋) and, when it starts at or after
 * the deadline its caller sent as the last ARGV, changes nothing and answers the server time, negated
 * (no decision is ever a negative integer): its caller may already have decided locally (see
 * core's packages/core/src/store/remote/server-clock.ts). Reading TIME before writing is safe under effects replication.
 */
const DEADLINE = `
local clock = redis.call('TIME')
local server = tonumber(clock[1]) * 1000 + floor(tonumber(clock[2]) / 1000)
if server >= tonumber(ARGV[#ARGV]) then return -server end
`;

/** SERVER_TIME decides at the server's TIME; ARGV[1] is the signed cost. */
const SERVER_TIME = `
local now = server
local first = 2
local signed = tonumber(ARGV[1])
`;

/** CLIENT_TIME takes `now` from ARGV[1]; ARGV[2] is the signed cost. */
const CLIENT_TIME = `
local now = tonumber(ARGV[1])
local first = 3
local signed = tonumber(ARGV[2])
`;

/** The signed cost: positive to record an admitted request, negative to only decide (peek). */
const COST = `
local commit = signed > 0
local cost = signed
if not commit then cost = -signed end
`;

/** callPrelude is what runs first on every call: the deadline check, then `now`, `cost`, `commit`, `first`. */
export function callPrelude(clientTime: boolean): string {
  return `${DEADLINE}${clientTime ? CLIENT_TIME : SERVER_TIME}${COST}`;
}

/** prelude is the start of a script reading time from the server or from the call. */
export function prelude(clientTime: boolean): string {
  return `${GLOBALS}${HELPERS}${callPrelude(clientTime)}`;
}
