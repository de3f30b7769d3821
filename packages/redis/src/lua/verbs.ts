/**
 * rate-limiter-flexible's verbs in Lua: the ports of core's `charge` and `usage` steps
 * (packages/core/src/algorithms/*.ts), operation for operation, so that Redis answers the same Usage as
 * the memory store; keep them in lockstep. Each uses its algorithm's helpers (./fixed-window.ts …),
 * which a script carries before these.
 *
 * `<step>_charge(raw, now, cost, p1, p2)` returns the next state's TTL and the state; `<step>_usage(raw,
 * now, p1, p2)` returns used, remaining and resetAfterMs. p1, p2 are the policy's two script parameters
 * (../binding.ts, scriptParams).
 */
/**
 * windowVerbs is the charge and usage of a window held as [start, count] (the fixed and the
 * first-request window: core's window-verbs.ts), over the algorithm's own `<prefix>_held`.
 */
function windowVerbs(prefix: string): string {
  return `
local function ${prefix}_charge(raw, now, cost, W, limit)
  local start, count = ${prefix}_held(raw, now, W)
  return ceil(start + W - now), pack('<dd', start, count + cost)
end

local function ${prefix}_usage(raw, now, W, limit)
  local start, count = ${prefix}_held(raw, now, W)
  local remaining, reset = 0, 0
  if count < limit then remaining = limit - count end
  if count > 0 then reset = ceil(start + W - now) end
  return count, remaining, reset
end
`;
}

export const VERBS_LUA = {
  'fixed-window':
    `
local function fw_held(raw, now, W)
  local start = floor(now / W) * W
  local count = 0
  if raw then
    if #raw ~= 16 then error({ err = CORRUPT }) end
    local stored, c = unpack('<dd', raw)
    if stored ~= stored then error({ err = CORRUPT }) end
    if start < stored then start = stored end
    if start == stored then count = c end
  end
  return start, count
end

` + windowVerbs('fw'),
  'token-bucket': `
local function tb_tat(raw, u)
  if not raw then return u end
  if #raw ~= 8 then error({ err = CORRUPT }) end
  local tat = unpack('<d', raw)
  if tat ~= tat then error({ err = CORRUPT }) end
  return tat
end

local function tb_charge(raw, now, cost, capacity, interval)
  local u = now / interval
  local tat = tb_tat(raw, u)
  local earliest = tat - capacity
  local t
  if u > earliest then t = u else t = earliest end
  local nxt
  if tat > t then nxt = tat + cost else nxt = t + cost end
  return instant_of(nxt, interval, 0) - now, pack('<d', nxt)
end

local function tb_usage(raw, now, capacity, interval)
  local u = now / interval
  local tat = tb_tat(raw, u)
  local taken = 0
  if tat > u then taken = ceil(tat - u - slack_of(tat, capacity)) end
  local used, remaining, reset = 0, 0, 0
  if taken > 0 then used = taken end
  if capacity > used then remaining = capacity - used end
  if tat > u then reset = instant_of(tat, interval, 0) - now end
  if not (used > 0 and reset > 0) then reset = 0 end
  return used, remaining, reset
end
`,
  'sliding-window': `
local function sw_held(raw, now, W)
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
  return start, t, previous, current
end

local function sw_charge(raw, now, cost, W, L)
  local start, _, previous, current = sw_held(raw, now, W)
  return start + 2 * W - now, pack('<ddd', start, previous, current + cost)
end

local function sw_usage(raw, now, W, L)
  local start, t, previous, current = sw_held(raw, now, W)
  local used = current + ceil((previous * (W - (t - start))) / W)
  local remaining = 0
  if L > used then remaining = L - used end
  local emptyAt
  if current > 0 then emptyAt = start + 2 * W elseif previous > 0 then emptyAt = start + W else emptyAt = t end
  local reset = ceil(emptyAt - now)
  if not (used > 0 and reset > 0) then reset = 0 end
  return used, remaining, reset
end
`,
  'sliding-log': `
local function sl_charge(raw, now, cost, W, L)
  local n, _, at = sl_read(raw, now, W, L)
  local k = cost
  if k > L then k = L end
  local keep = L - k
  if keep > n then keep = n end
  local kept = ''
  if keep > 0 then kept = string.sub(raw, 8 * (n - keep) + 1) end
  return ceil(at + W - now), kept .. string.rep(pack('<d', at), k)
end

local function sl_usage(raw, now, W, L)
  if not raw then return 0, L, 0 end
  local _, newest, _, inside = sl_read(raw, now, W, L)
  local reset = ceil(newest + W - now)
  if not (inside > 0 and reset > 0) then reset = 0 end
  return inside, L - inside, reset
end
`,
  'first-request-window':
    `
local function frw_held(raw, now, W)
  local start = now
  local count = 0
  if raw then
    if #raw ~= 16 then error({ err = CORRUPT }) end
    local stored, c = unpack('<dd', raw)
    if stored ~= stored then error({ err = CORRUPT }) end
    if now < stored + W then
      start = stored
      count = c
    end
  end
  return start, count
end

` + windowVerbs('frw'),
} as const;
