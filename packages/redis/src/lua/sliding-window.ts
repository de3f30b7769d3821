/**
 * The sliding-window counter step in Lua: a port of packages/core/src/algorithms/sliding-window.ts,
 * operation for operation (same operand order, same parenthesisation), so that Redis reaches
 * bit-identical decisions. Keep the two in lockstep.
 *
 * `sw(raw, now, cost, windowMs, limit)` returns allowed, remaining, retryAfterMs, resetAfterMs, ttlMs
 * and the next state. State is [start, previous, current] as three little-endian doubles (24 bytes);
 * anything else under the key is foreign data and aborts the script (the store's failure policy then
 * decides that key).
 *
 * `sw_refund`(raw, now, cost, …) is the port of the step's refund: changed, ttlMs and the next state, or
 * false when there is nothing to give back.
 */
export const SLIDING_WINDOW_LUA = `
local function sw(raw, now, cost, W, L)
  local start = floor(now / W) * W
  local t = now
  local previous, current = 0, 0
  if raw then
    if #raw ~= 24 then error({ err = CORRUPT }) end
    local stored, p, q = unpack('<ddd', raw)
    if stored ~= stored then error({ err = CORRUPT }) end
    if start < stored then
      start = stored
      t = stored
    end
    if start == stored then
      previous = p
      current = q
    elseif start == stored + W then
      previous = q
    end
  end
  local held = previous * (W - (t - start))
  local heldUnits = ceil(held / W)
  if cost <= L and held + (current + cost) * W <= L * W then
    local reset = start + 2 * W - now
    return true, L - current - cost - heldUnits, 0, reset, reset, pack('<ddd', start, previous, current + cost)
  end
  local fitsAt = INF
  if cost <= L then
    if current + cost > L then
      fitsAt = start + 2 * W - floor(((L - cost) * W) / current)
    else
      fitsAt = start + W - floor(((L - current - cost) * W) / previous)
    end
  end
  local emptyAt
  if current > 0 then emptyAt = start + 2 * W elseif previous > 0 then emptyAt = start + W else emptyAt = t end
  local retry
  if fitsAt == INF then retry = INF else retry = ceil(fitsAt - now) end
  local remaining = L - current - heldUnits
  if not (remaining > 0) then remaining = 0 end
  local reset = ceil(emptyAt - now)
  if not (reset > 0) then reset = 0 end
  return false, remaining, retry, reset, 0, nil
end

local function sw_refund(raw, now, cost, W, L)
  if not raw then return false end
  if #raw ~= 24 then error({ err = CORRUPT }) end
  local stored, p, q = unpack('<ddd', raw)
  if stored ~= stored then error({ err = CORRUPT }) end
  local start = floor(now / W) * W
  local previous, current = 0, 0
  if start < stored then start = stored end
  if start == stored then
    previous = p
    current = q
  elseif start == stored + W then
    previous = q
  end
  if not (previous > 0) and not (current > 0) then return false end
  local fromPrevious
  if previous < cost then fromPrevious = previous else fromPrevious = cost end
  previous = previous - fromPrevious
  local rest = cost - fromPrevious
  if current > rest then current = current - rest else current = 0 end
  local emptyAt
  if current > 0 then emptyAt = start + 2 * W else emptyAt = start + W end
  return true, emptyAt - now, pack('<ddd', start, previous, current)
end
`;
