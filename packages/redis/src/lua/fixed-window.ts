/**
 * The fixed-window step in Lua: a port of packages/core/src/algorithms/fixed-window.ts, operation for
 * operation, so that Redis reaches bit-identical decisions. Keep the two in lockstep.
 *
 * `fw(raw, now, cost, windowMs, limit)` returns allowed, remaining, retryAfterMs, resetAfterMs, ttlMs
 * and the next state. State is "windowStart count", two %.17g numbers.
 */
export const FIXED_WINDOW_LUA = `
local function fw(raw, now, cost, W, limit)
  local start = floor(now / W) * W
  local count = 0
  if raw then
    local a, b = match(raw, '^(%S+) (%S+)$')
    local stored, c = tonumber(a), tonumber(b)
    if not (stored and c) then corrupt() end
    if start < stored then start = stored end
    if start == stored then count = c end
  end
  local e = ceil(start + W - now)
  if count + cost <= limit then
    return true, limit - count - cost, 0, e, e, format('%.17g %.17g', start, count + cost)
  end
  local retry
  if cost > limit then retry = INF else retry = e end
  return false, limit - count, retry, e, 0, nil
end
`;
