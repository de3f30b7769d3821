/**
 * The booking ledger in Lua: core's memory-ledger.ts (read its contract first), rule for rule, so that
 * RedisStore answers every cancel as the memory store does. One per member key, in its booking key
 * (`<state key>:r`, the state's hash tag), as one string of packed little-endian numbers:
 *
 *   floor, base expiry, last id (3 doubles) · #base (uint32) · base · #head (uint32) · head ·
 *   then per booking: id, at, cost (3 doubles, 24 bytes), in booking order.
 *
 * `floor` is the latest instant booked before the first entry (-inf: none); `base` the state before
 * the first entry ('' for none) and `base expiry` the server-clock instant it would expire at (-1:
 * never held); `head` the state the entries leave ('' for none), which the key holds while nothing but
 * bookings wrote it. Ids are the server's clock in microseconds, or one more than the last id when
 * that is later: unique per key however often its ledger is replaced or deleted, so a cancel names its
 * booking by id and instant. A booking reads the header and touches only the entries it folds (those
 * whose instant has come, then the oldest while CANCELLABLE are held); a cancel replays the others.
 *
 * Uses the prelude's helpers and `now`, `server` and `clock` (TIME); STEPS[i] is member i's step.
 */

/** CANCELLABLE is core's CANCELLABLE_BOOKINGS (a test holds the two equal). */
export const CANCELLABLE = 64;

export const LEDGER_LUA = `
local CANCELLABLE = ${CANCELLABLE}

local function ledger_of(raw)
  if not raw then return nil end
  if #raw < 28 then error({ err = CORRUPT }) end
  local floor_at, expiry, last, nb, pos = unpack('<dddI4', raw)
  local base = string.sub(raw, pos, pos + nb - 1)
  pos = pos + nb
  local nh
  nh, pos = unpack('<I4', raw, pos)
  local head = string.sub(raw, pos, pos + nh - 1)
  pos = pos + nh
  local count = (#raw - pos + 1) / 24
  if count ~= floor(count) then error({ err = CORRUPT }) end
  return { floor = floor_at, expiry = expiry, last = last, base = base, head = head, raw = raw, first = pos, count = count, skip = 0 }
end

-- entry_of reads the k-th entry (0-based, after the ones folded away): id, at, cost.
local function entry_of(L, k)
  return unpack('<ddd', L.raw, L.first + 24 * (L.skip + k))
end

local function latest_of(L)
  if L.count > 0 then
    local _, at = entry_of(L, L.count - 1)
    return at
  end
  return L.floor
end

local function state_or_false(s)
  if s == '' then return false end
  return s
end

-- ledger_text writes the ledger back: the header, then the entries kept, less the one at \`drop\` (0-based; -1 none), then \`extra\`.
local function ledger_text(L, drop, extra)
  local from = L.first + 24 * L.skip
  local kept
  if drop < 0 then kept = string.sub(L.raw or '', from) else kept = string.sub(L.raw, from, from + 24 * drop - 1) .. string.sub(L.raw, from + 24 * (drop + 1)) end
  return pack('<dddI4', L.floor, L.expiry, L.last, #L.base) .. L.base .. pack('<I4', #L.head) .. L.head .. kept .. extra
end

-- replay runs member i's step from \`state\` through the entries (but \`drop\`) from the k-th on: ok, the state, and the last step's instant and ttl.
local function replay(i, L, state, k, drop)
  local at, ttl = nil, nil
  for j = k, L.count - 1 do
    if j ~= drop then
      local _, e_at, e_cost = entry_of(L, j)
      local a, _, _, _, l, x = STEPS[i](state_or_false(state), e_at, e_cost, tonumber(ARGV[first + 2 * i - 2]), tonumber(ARGV[first + 2 * i - 1]))
      if not a then return false end
      state, at, ttl = x, e_at, l
    end
  end
  return true, state, at, ttl
end

local function fresh_ledger(old, before, expiry)
  local floor_at, last = -INF, 0
  if old then floor_at, last = latest_of(old), old.last end
  return { floor = floor_at, expiry = expiry, last = last, base = before, head = before, raw = '', first = 1, count = 0, skip = 0 }
end

-- record adds a booking to member i's ledger \`L\` (nil: none) for a key that went from \`before\` to \`after\`.
local function record(i, L, before, expiry, after, id, at, cost)
  if not L or L.head ~= before then L = fresh_ledger(L, before, expiry) end
  local folded = 0
  while folded < L.count do
    local _, e_at = entry_of(L, folded)
    if not (e_at <= now or L.count - folded >= CANCELLABLE) then break end
    folded = folded + 1
  end
  if folded > 0 then
    local kept = L.count
    L.count = folded
    local ok, state, e_at, ttl = replay(i, L, L.base, 0, -1)
    L.count = kept
    if not ok then
      L = fresh_ledger(L, before, expiry)
    else
      L.base, L.expiry = state, server + (e_at - now) + ttl
      if e_at > L.floor then L.floor = e_at end
      L.skip, L.count = folded, L.count - folded
    end
  end
  L.head = after
  if id > L.last then L.last = id end
  return ledger_text(L, -1, pack('<ddd', id, at, cost))
end

-- next_id is a booking id above every id of these ledgers, from the server's clock in microseconds.
local function next_id(ledgers, n)
  local id = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
  for i = 1, n do
    local L = ledgers[i]
    if L and L.last >= id then id = L.last + 1 end
  end
  return id
end
`;
