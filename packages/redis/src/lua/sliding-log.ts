/**
 * The sliding-log step in Lua: a port of packages/core/src/algorithms/sliding-log.ts that reaches the
 * same decisions, figure for figure. Keep the two in lockstep.
 *
 * `sl(raw, now, cost, windowMs, limit)` returns allowed, remaining, retryAfterMs, resetAfterMs, ttlMs
 * and the next state. The state is the log itself, oldest first: n little-endian doubles (8·n bytes),
 * one per admitted unit, n ≤ L: the memory store's ring of L slots without the slots never written,
 * so a key costs at most 8·L bytes. `entry(i)` is the i-th oldest of the last L units, −∞ where the
 * log is shorter: the ring slot the TypeScript reads. A log of more than L units (a policy renamed onto
 * an old key with a larger limit) is read by its last L.
 *
 * An admission writes the last L − cost units followed by `cost` copies of the decision instant: one
 * GET, one SET … PX (time until the newest unit leaves), like the other steps, so the composite
 * scripts take it unchanged. Units that have left the window at the decision instant are kept too: a
 * booking decides at an instant ahead of now, and a refund that then takes its units back returns the
 * clock to now, where units older than the booked instant's window may be inside again (dropping them
 * let a refund after a booking admit up to L more within one window).
 *
 * `sl_refund` drops the newest `cost` units still inside the window (the TypeScript's refund, which
 * turns them into −∞ slots at the ring's oldest end): the log loses its last entries.
 */
export const SLIDING_LOG_LUA = `
local function sl_entry(raw, n, L, i)
  local q = i + n - L
  if q < 0 then return -INF end
  return (unpack('<d', raw, 8 * q + 1))
end

local function sl_deny(retry, remaining, reset)
  if not (remaining > 0) then remaining = 0 end
  if not (reset > 0) then reset = 0 end
  return false, remaining, retry, reset, 0, nil
end

-- sl_read checks the stored log and reads it at \`now\`: its length n, its newest unit, the instant
-- the step decides at (held at the newest unit: time going back counts as none passing), and how many
-- of the last L units are still inside the window (a binary search: the log is sorted).
local function sl_read(raw, now, W, L)
  local n = 0
  if raw then
    n = #raw / 8
    if n < 1 or n ~= floor(n) then error({ err = CORRUPT }) end
  end
  local newest = sl_entry(raw, n, L, L - 1)
  if newest ~= newest then error({ err = CORRUPT }) end
  local at = now
  if now < newest then at = newest end
  local lo, hi = 0, L
  while lo < hi do
    local mid = floor((lo + hi) / 2)
    if sl_entry(raw, n, L, mid) + W <= at then lo = mid + 1 else hi = mid end
  end
  return n, newest, at, L - lo
end

local function sl(raw, now, cost, W, L)
  local n, newest, at, inside = sl_read(raw, now, W, L)
  if cost > L then return sl_deny(INF, L - inside, ceil(newest + W - now)) end
  local nth = sl_entry(raw, n, L, cost - 1)
  if nth + W > at then return sl_deny(ceil(nth + W - now), L - inside, ceil(newest + W - now)) end
  local keep = L - cost
  if keep > n then keep = n end
  local kept = ''
  if keep > 0 then kept = string.sub(raw, 8 * (n - keep) + 1) end
  local reset = ceil(at + W - now)
  return true, L - inside - cost, 0, reset, reset, kept .. string.rep(pack('<d', at), cost)
end

local function sl_refund(raw, now, cost, W, L)
  if not raw then return false end
  local n, _, _, inside = sl_read(raw, now, W, L)
  if inside == 0 then return false end
  local k = cost
  if inside < k then k = inside end
  local m = n - k
  if m < 1 then return true, 0, '' end
  local kept = string.sub(raw, 1, 8 * m)
  return true, (unpack('<d', kept, 8 * (m - 1) + 1)) + W - now, kept
end
`;
