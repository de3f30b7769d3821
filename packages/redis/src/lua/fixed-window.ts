/**
 * The fixed-window step in Lua: a port of packages/core/src/algorithms/fixed-window.ts, operation for
 * operation, so that Redis reaches bit-identical decisions. Keep the two in lockstep.
 *
 * `fw(raw, now, cost, windowMs, limit)` returns allowed, remaining, retryAfterMs, resetAfterMs, ttlMs
 * and the next state. State is [windowStart, count] as two little-endian doubles (16 bytes).
 *
 * `fw_refund`(raw, now, cost, …) is the port of the step's refund: changed, ttlMs and the next state, or
 * false when there is nothing to give back.
 */
export const FIXED_WINDOW_LUA = `
local function fw(raw, now, cost, W, limit)
  local start = floor(now / W) * W
  local count = 0
  if raw then
    if #raw ~= 16 then error({ err = CORRUPT }) end
    local stored, c = unpack('<dd', raw)
    if stored ~= stored then error({ err = CORRUPT }) end
    if start < stored then start = stored end
    if start == stored then count = c end
  end
  local e = ceil(start + W - now)
  if count + cost <= limit then
    return true, limit - count - cost, 0, e, e, pack('<dd', start, count + cost)
  end
  local retry
  if cost > limit then retry = INF else retry = e end
  local remaining = 0
  if count < limit then remaining = limit - count end -- a charge may have gone past it
  return false, remaining, retry, e, 0, nil
end

local function fw_refund(raw, now, cost, W, limit)
  if not raw then return false end
  if #raw ~= 16 then error({ err = CORRUPT }) end
  local stored, count = unpack('<dd', raw)
  if stored ~= stored then error({ err = CORRUPT }) end
  local start = floor(now / W) * W
  if start < stored then start = stored end
  if start ~= stored or not (count > 0) then return false end
  local c
  if count > cost then c = count - cost else c = 0 end
  return true, ceil(stored + W - now), pack('<dd', stored, c)
end
`;
