/**
 * Reservation scripts (core's reserve.ts contract on Redis): one script books a request for one policy
 * or for a composite's members, another cancels a booking; each is one atomic call, generated per
 * sequence of member algorithms and cached.
 *
 * Keys: the members' state keys, then their booking keys (`<state key>:r`, the same hash tag): a
 * booking key holds the member's booking ledger (./ledger.ts, core's memory-ledger.ts), with the TTL of
 * the state it was booked with (never shorter than the time until the latest instant, which is all the
 * ledger is kept for).
 *
 * RESERVE. ARGV follows lua/scripts.ts (`now` in client time only, the cost, two parameters per member)
 * then `maxWaitMs` (-1: no bound) and the deadline. In one call it reads every member's state and
 * ledger, decides at `now` (the step, writing nothing), takes the instant
 * `at = max(now + the largest retryAfterMs, the latest booking)` and refuses, writing nothing, when a
 * member can never grant the cost or `at - now` exceeds maxWaitMs. Otherwise it runs every step at
 * `at` (each admits: once admitted, a core algorithm admits at every later instant), writes each state
 * with the TTL `at - now + ttlMs`, and, when `at > now`, records the booking in each member's ledger
 * (same TTL). Reply: refused, { 0, delay, then four values per member (allowed, remaining,
 * retryAfterMs, resetAfterMs at now) } with delay 'inf' when it never fits; booked, { 1, delay, at,
 * four values per member at `at`, then the booking's id (0 when it goes at once: nothing to cancel) }.
 *
 * CANCEL. ARGV: `now` (client time only), a placeholder cost, two parameters per member (as RESERVE),
 * `at`, the id, the deadline. When
 * `now < at`, every member's ledger holds the booking and every member's state (its value less the
 * expiry tail a consume may add: prelude.ts's untail) is still the ledger's head (nothing but bookings
 * wrote it, or what else wrote it came back to the same state, as core's ledger compares), it replays each member's other bookings from the ledger's base
 * (each must be admitted again at its instant), writes the states (a member left with no booking gets
 * its base back with the rest of its TTL, or loses the key) and the ledgers without the booking, and
 * answers 2; otherwise it changes nothing and answers 1.
 */
import { LEDGER_LUA } from './ledger.js';
import { STEPS, type Script, type StepName, script } from './scripts.js';

const RESERVE_BODY = `
local n = #STEPS
local wait = tonumber(ARGV[first + 2 * n])
local raws, ledgers, latest, retry, peeks = {}, {}, -INF, 0, {}
local function refuse(delay)
  local out = { 0, delay }
  for _, v in ipairs(peeks) do out[#out + 1] = v end
  return out
end
for i = 1, n do
  raws[i] = (untail(redis.call('GET', KEYS[i])))
  ledgers[i] = ledger_of(redis.call('GET', KEYS[n + i]))
  if ledgers[i] then
    local x = latest_of(ledgers[i])
    if x > now and x > latest then latest = x end
  end
  local a, r, w, e = STEPS[i](raws[i], now, cost, tonumber(ARGV[first + 2 * i - 2]), tonumber(ARGV[first + 2 * i - 1]))
  if w > retry then retry = w end
  local allowed = 0
  if a then allowed = 1 end
  peeks[#peeks + 1] = allowed
  peeks[#peeks + 1] = num(r)
  peeks[#peeks + 1] = num(w)
  peeks[#peeks + 1] = num(e)
end
if retry == INF then return refuse('inf') end
local at = now + retry
if latest > at then at = latest end
if wait >= 0 and at - now > wait then return refuse(num(at - now)) end
local out = { 1, num(at - now), num(at) }
local states, ttls = {}, {}
for i = 1, n do
  local a, r, w, e, l, x = STEPS[i](raws[i], at, cost, tonumber(ARGV[first + 2 * i - 2]), tonumber(ARGV[first + 2 * i - 1]))
  if not a then return redis.error_reply('RKRESERVE a member denied at the booked instant') end
  out[#out + 1] = 1
  out[#out + 1] = num(r)
  out[#out + 1] = num(w)
  out[#out + 1] = num(e)
  states[i], ttls[i] = x, l
end
local id = 0
if at > now then id = next_id(ledgers, n) end
for i = 1, n do
  local ttl = px(at - now + ttls[i])
  if at > now then
    local expiry = -1
    if raws[i] then
      local left = redis.call('PTTL', KEYS[i])
      if left > 0 then expiry = server + left end
    end
    redis.call('SET', KEYS[n + i], record(i, ledgers[i], raws[i] or '', expiry, states[i], id, at, cost), 'PX', ttl)
  end
  redis.call('SET', KEYS[i], states[i], 'PX', ttl)
end
out[#out + 1] = id
return out
`;

const CANCEL_BODY = `
local n = #STEPS
local at, id = tonumber(ARGV[first + 2 * n]), tonumber(ARGV[first + 2 * n + 1])
if not (now < at) then return 1 end
local ledgers, found = {}, {}
for i = 1, n do
  local L = ledger_of(redis.call('GET', KEYS[n + i]))
  if not L or ((untail(redis.call('GET', KEYS[i]))) or '') ~= L.head then return 1 end
  for k = 0, L.count - 1 do
    local e_id, e_at = entry_of(L, k)
    if e_id == id and e_at == at then found[i] = k end
  end
  if not found[i] then return 1 end
  ledgers[i] = L
end
local states, lasts, ttls = {}, {}, {}
for i = 1, n do
  local ok, state, last, ttl = replay(i, ledgers[i], ledgers[i].base, 0, found[i])
  if not ok then return 1 end
  states[i], lasts[i], ttls[i] = state, last, ttl
end
for i = 1, n do
  local L = ledgers[i]
  local keep = 0
  if lasts[i] then
    keep = px(lasts[i] - now + ttls[i])
    redis.call('SET', KEYS[i], states[i], 'PX', keep)
  elseif L.base ~= '' and L.expiry - server >= 1 then
    keep = px(L.expiry - server)
    redis.call('SET', KEYS[i], L.base, 'PX', keep)
  else
    redis.call('DEL', KEYS[i])
    states[i] = ''
  end
  L.head = states[i]
  if L.count == 1 and not (L.floor > now) then
    redis.call('DEL', KEYS[n + i])
  else
    if L.floor - now > keep then keep = px(L.floor - now) end
    redis.call('SET', KEYS[n + i], ledger_text(L, found[i], ''), 'PX', keep)
  end
end
return 2
`;

const cache = new Map<string, Script>();

/** reserveScript books a request for members of `algorithms`, in that order (one for a single limiter). */
export function reserveScript(algorithms: readonly StepName[], clientTime: boolean): Script {
  return made('reserve', algorithms, clientTime, RESERVE_BODY);
}

/** cancelScript cancels a booking made by reserveScript for the same members. */
export function cancelScript(algorithms: readonly StepName[], clientTime: boolean): Script {
  return made('cancel', algorithms, clientTime, CANCEL_BODY);
}

function made(kind: string, algorithms: readonly StepName[], clientTime: boolean, body: string): Script {
  const id = `${kind} ${clientTime ? 'client' : 'server'} ${algorithms.join(' ')}`;
  let found = cache.get(id);
  if (found === undefined) {
    const steps = [...new Set(algorithms)].map((a) => STEPS[a].source).join('');
    const table = `local STEPS = { ${algorithms.map((a) => STEPS[a].name).join(', ')} }\n`;
    found = script(clientTime, `${steps}${table}${LEDGER_LUA}`, body);
    cache.set(id, found);
  }
  return found;
}
