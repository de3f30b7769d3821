/**
 * The token bucket step in Lua: a port of packages/core/src/algorithms/token-bucket.ts, operation for
 * operation, so that Redis (whose Lua numbers are IEEE doubles too) reaches bit-identical decisions.
 * Keep the two in lockstep: every comparison keeps the TypeScript's operand order and its ternaries,
 * because `a > b ? a : b` and math.max differ on ties between 0 and -0.
 *
 * `tb(raw, now, cost, capacity, interval)` takes the stored state (a string, or false for a missing
 * key) and returns allowed, remaining, retryAfterMs, resetAfterMs, ttlMs and the next state (a string,
 * only when allowed). State is one number, the theoretical arrival time on the token clock
 * (now / interval), stored as 8 bytes (a little-endian double, struct.pack '<d'): exact, and cheaper
 * than formatting text. `instant_of` is core's instantOf.
 *
 * `tb_refund`(raw, now, cost, …) is the port of the step's refund: changed, ttlMs and the next state, or
 * false when there is nothing to give back.
 */
export const TOKEN_BUCKET_LUA = `
local function slack_of(base, capacity)
  local magnitude = base
  if base < 0 then magnitude = -base end
  return (magnitude + capacity) * 2.220446049250313e-16
end

local function instant_of(at, interval, slack)
  local m = ceil(at * interval)
  local i = 0
  while i < 4 and at - m / interval > slack do
    m = m + 1
    i = i + 1
  end
  i = 0
  while i < 4 and at - (m - 1) / interval <= slack do
    m = m - 1
    i = i + 1
  end
  return m
end

local function tb_deny(retry, remaining, reset)
  if not (remaining > 0) then remaining = 0 end
  if not (reset > 0) then reset = 0 end
  return false, remaining, retry, reset, 0, nil
end

local function tb(raw, now, cost, capacity, interval)
  local u = now / interval
  local tat = u
  if raw then
    if #raw ~= 8 then error({ err = CORRUPT }) end
    tat = unpack('<d', raw)
    if tat ~= tat then error({ err = CORRUPT }) end
  end
  local earliest = tat - capacity
  local t
  if u > earliest then t = u else t = earliest end
  local base
  if tat > t then base = tat else base = t end
  local slack = slack_of(base, capacity)
  local tokens = floor(capacity - (base - t) + slack)
  if cost > capacity then return tb_deny(INF, tokens, instant_of(base, interval, 0) - now) end
  local allowAt = base + (cost - capacity)
  if allowAt - t <= slack then
    local nxt = base + cost
    local remaining
    if tokens > cost then remaining = tokens - cost else remaining = 0 end
    local reset = instant_of(nxt, interval, 0) - now
    return true, remaining, 0, reset, reset, pack('<d', nxt)
  end
  return tb_deny(instant_of(allowAt, interval, slack) - now, tokens, instant_of(base, interval, 0) - now)
end

local function tb_refund(raw, now, cost, capacity, interval)
  if not raw then return false end
  if #raw ~= 8 then error({ err = CORRUPT }) end
  local tat = unpack('<d', raw)
  if tat ~= tat then error({ err = CORRUPT }) end
  local u = now / interval
  local earliest = tat - capacity
  local t
  if u > earliest then t = u else t = earliest end
  if not (tat > t) then return false end
  local back = tat - cost
  local nxt
  if back > t then nxt = back else nxt = t end
  return true, instant_of(nxt, interval, 0) - now, pack('<d', nxt)
end
`;
