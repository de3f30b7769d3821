/**
 * The batch script: many decisions in one call, decided one after another in the order given, exactly
 * as if each had been its own EVALSHA back to back (a script runs atomically, so no other client's
 * command can come between them). Used by ../transport/batcher.ts for calls that are pending at the same moment
 * on the same node. A call is a group of one or more policies deciding one request all or nothing:
 * a single decision is a group of one, a composite (see ./composite-script.ts) a group of several.
 *
 * KEYS       the calls' keys, in call order, one per member of the call's group.
 * ARGV       the number of groups G, negated when a key comes more than once in the batch; then per group its member count m and, per member, the
 *            algorithm's code (1-based index in BATCHED) and the policy's two parameters, as in
 *            lua/scripts.ts (each parsed once per batch, not once per call); then per call: `now`
 *            (client time only) and v = ±((cost - 1)·G + g), the signed cost and the call's group g
 *            in one integer (the Batcher sends a cost whose v would pass 2^53 alone); last, the
 *            batch's deadline (a batch that starts after it decides nothing, see prelude.ts).
 * Reply      a flat array, per call in order: for each member, one compact integer (an odd positive
 *            number, see `compact` in prelude.ts) when every member of the call admitted with
 *            compact figures, else four values per member: 2 (admitted) or 0 (denied), remaining,
 *            retryAfterMs, resetAfterMs; or the one string 'RKCORRUPT' when a key of the call holds
 *            foreign data, a string ratekeeper did not write or another type (its GET goes through
 *            redis.pcall, so WRONGTYPE too), which fails that call only, never the batch. A flat array of integers
 *            costs Redis far less to send than nested tables.
 * A group is all or nothing as composite-script.ts decides it: every member is evaluated first and
 * written only when all admit; members that admitted inside a denied call report what they hold (their
 * step at a cost no policy can grant, which writes nothing).
 * With server time, TIME is read once per batch: every call in it decides at the same instant.
 * Each key is read with one GET and written with one SET per batch, whatever the number of calls
 * on it (the hot key an attack brings): a call decides on what the calls before it left in the key,
 * kept in the script, and the key's last state goes out at the end with its last TTL (kept when the
 * key's recorded expiry still covers it: `put` in prelude.ts). A script runs
 * atomically, so no other client can tell the difference from a GET and a SET per call. A batch whose
 * keys all differ (the Batcher says so) GETs and SETs each call's key in place, which costs Redis less
 * than keeping them (no table of keys to grow).
 */
import { STEPS, type Script, script, type StepName } from './scripts.js';

/** BATCHED lists the algorithms the batch script decides; their 1-based index is their code. */
export const BATCHED: readonly StepName[] = Object.keys(STEPS) as StepName[];

/** batchBody is the batch script's body (after the prelude and the steps). */
export const batchBody = (clientTime: boolean) => `
local STEP = { ${BATCHED.map((a) => STEPS[a].name).join(', ')} }
local fmod = math.fmod
local HELD_COST = 9007199254740991
local G = tonumber(ARGV[1])
-- A negative count says that a key comes more than once in the batch (the Batcher knows).
local repeats = G < 0
if repeats then G = -G end
local size, gstep, gfirst, gsecond = {}, {}, {}, {}
local at = 2
for g = 1, G do
  local m = tonumber(ARGV[at])
  at = at + 1
  local s, f, t = {}, {}, {}
  for j = 1, m do
    s[j], f[j], t[j] = STEP[tonumber(ARGV[at])], tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
    at = at + 3
  end
  size[g], gstep[g], gfirst[g], gsecond[g] = m, s, f, t
end
local out = {}
local o, k = 0, 0
-- When a key repeats, each key is read once and written once per batch: HELD is what the batch's
-- calls so far leave in a key (false: missing; a table: the GET's error), TTL the TTL of its last
-- write, EXPIRY the key's recorded expiry as the GET found it (see untail and put in prelude.ts),
-- DIRTY the keys written, in the order first written. A call reads HELD, exactly what a GET would
-- answer after the writes before it. Otherwise (every key once) a call GETs and SETs its key, and
-- read answers the expiry with the state.
-- PX texts made in this batch, by milliseconds: calls of one policy often share a TTL.
local PX_TEXT = {}
local function px_cached(ms)
  local text = PX_TEXT[ms]
  if not text then
    text = format('%d', ms)
    PX_TEXT[ms] = text
  end
  return text
end
local HELD, TTL, EXPIRY, DIRTY
if repeats then HELD, TTL, EXPIRY, DIRTY = {}, {}, {}, {} end
local function read(key)
  if not repeats then return untail(redis.pcall('GET', key)) end
  local raw = HELD[key]
  if raw == nil then
    raw, EXPIRY[key] = untail(redis.pcall('GET', key))
    HELD[key] = raw
  end
  return raw, nil
end
local function write(key, state, ttl, expiry)
  if not repeats then
    put(key, state, ttl, expiry, server, px_cached)
    return
  end
  if not TTL[key] then DIRTY[#DIRTY + 1] = key end
  HELD[key], TTL[key] = state, ttl
end
-- Scratch for composite calls, reused by every call of the batch (entries 1..m are always written first).
local raws, oks, rs, ws, es, ls, xs, ps, shorts = {}, {}, {}, {}, {}, {}, {}, {}, {}
local last = #ARGV
while at < last do
${clientTime ? '  local now = tonumber(ARGV[at])\n  at = at + 1\n' : ''}  local v = tonumber(ARGV[at])
  at = at + 1
  local commit = v > 0
  if not commit then v = -v end
  local g, cost = 1, v
  if G > 1 then
    local r = fmod(v - 1, G)
    g, cost = r + 1, (v - 1 - r) / G + 1
  end
  local m = size[g]
  if m == 1 then
    k = k + 1
    local step = gstep[g][1]
    local raw, expiry = read(KEYS[k])
    local fine, ok, remaining, retry, reset, ttl, state = false
    if type(raw) ~= 'table' then fine, ok, remaining, retry, reset, ttl, state = pcall(step, raw, now, cost, gfirst[g][1], gsecond[g][1]) end
    if not fine then
      o = o + 1
      out[o] = 'RKCORRUPT'
    else
      if ok and commit then write(KEYS[k], state, ttl, expiry) end
      local short = ok and compact(remaining, retry, reset)
      if short then
        o = o + 1
        out[o] = short
      else
        local a = 0
        if ok then a = 2 end
        out[o + 1], out[o + 2], out[o + 3], out[o + 4] = a, num(remaining), num(retry), num(reset)
        o = o + 4
      end
    end
  else
    local s, f, t = gstep[g], gfirst[g], gsecond[g]
    local all, broken = true, false
    for j = 1, m do
      local raw, expiry = read(KEYS[k + j])
      if type(raw) == 'table' then broken = true break end
      local fine, ok, r, w, e, l, x = pcall(s[j], raw, now, cost, f[j], t[j])
      if not fine then broken = true break end
      raws[j], oks[j], rs[j], ws[j], es[j], ls[j], xs[j], ps[j] = raw, ok, r, w, e, l, x, expiry
      all = all and ok
    end
    if broken then
      o = o + 1
      out[o] = 'RKCORRUPT'
    elseif all then
      if commit then
        for j = 1, m do write(KEYS[k + j], xs[j], ls[j], ps[j]) end
      end
      local short = true
      for j = 1, m do
        shorts[j] = compact(rs[j], ws[j], es[j])
        short = short and shorts[j]
      end
      if short then
        for j = 1, m do out[o + j] = shorts[j] end
        o = o + m
      else
        for j = 1, m do
          out[o + 1], out[o + 2], out[o + 3], out[o + 4] = 2, num(rs[j]), num(ws[j]), num(es[j])
          o = o + 4
        end
      end
    else
      for j = 1, m do
        local a, r, e = 0, num(rs[j]), num(es[j])
        if oks[j] then
          local _, hr, _, he = s[j](raws[j], now, HELD_COST, f[j], t[j])
          a, r, e = 2, num(hr), num(he)
        end
        out[o + 1], out[o + 2], out[o + 3], out[o + 4] = a, r, num(ws[j]), e
        o = o + 4
      end
    end
    k = k + m
  end
end
if repeats then
  for _, key in ipairs(DIRTY) do put(key, HELD[key], TTL[key], EXPIRY[key], server, px_cached) end
end
return out
`;

/** batchScript is the batch script for the time source. */
export function batchScript(clientTime: boolean): Script {
  const steps = BATCHED.map((a) => STEPS[a].source).join('');
  return script(clientTime, steps, batchBody(clientTime));
}
