/**
 * Reservation scripts (core's reserve.ts contract on Redis): one script books a request for one policy
 * or for a composite's members, another cancels a booking; each is one atomic call, generated per
 * sequence of member algorithms and cached.
 *
 * Keys: the members' state keys, then their booking keys (`<state key>:r`, the same hash tag): a
 * booking key holds the latest instant booked on the member's key (%.17g text), with the TTL of the
 * state it was booked with (never shorter than the time until the instant, which is all it is read for).
 *
 * RESERVE. ARGV follows lua/scripts.ts (`now` in client time only, the cost, two parameters per member)
 * then `maxWaitMs` (-1: no bound) and the deadline. In one call it reads every member's state and
 * booking, decides at `now` (the step, writing nothing), takes the instant
 * `at = max(now + the largest retryAfterMs, the latest booking)` and refuses, writing nothing, when a
 * member can never grant the cost or `at - now` exceeds maxWaitMs. Otherwise it runs every step at
 * `at` (each admits: once admitted, a core algorithm admits at every later instant), writes each state
 * with the TTL `at - now + ttlMs`, and, when `at > now`, the booking with the same TTL. Reply: refused, { 0, delay, then
 * four values per member (allowed, remaining, retryAfterMs, resetAfterMs at now) } with delay 'inf'
 * when it never fits; booked, { 1, delay, at, four values per member at `at`, then per member its
 * cancel token: the state before (hex, '' for none), the state after (hex), the server-clock instant
 * the state before would have expired (-1: none), the booking before ('' for none) }.
 *
 * CANCEL. ARGV: `now` (client time only), a placeholder cost, `at`, the four token values per member,
 * the deadline. When `now < at` and every member's state is still the one the booking wrote (nothing
 * recorded since), it puts back each state before with the rest of its TTL (or deletes the key) and
 * each booking before, and answers 2; otherwise it changes nothing and answers 1.
 */
import { STEPS, type Script, type StepName, script } from './scripts.js';

const HEX = `
local function hex(s)
  if not s then return '' end
  return (string.gsub(s, '.', function(c) return format('%02x', string.byte(c)) end))
end

local function unhex(h)
  return (string.gsub(h, '..', function(x) return string.char(tonumber(x, 16)) end))
end
`;

const RESERVE_BODY = `
local n = #STEPS
local wait = tonumber(ARGV[first + 2 * n])
local raws, latest, retry, peeks = {}, -INF, 0, {}
local function refuse(delay)
  local out = { 0, delay }
  for _, v in ipairs(peeks) do out[#out + 1] = v end
  return out
end
for i = 1, n do
  raws[i] = redis.call('GET', KEYS[i])
  local b = redis.call('GET', KEYS[n + i])
  if b then
    local x = tonumber(b)
    if x and x > now and x > latest then latest = x end
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
local out, tokens = { 1, num(at - now), num(at) }, {}
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
for i = 1, n do
  local expiry = -1
  if raws[i] then
    local left = redis.call('PTTL', KEYS[i])
    if left > 0 then expiry = server + left end
  end
  local previous = redis.call('GET', KEYS[n + i]) or ''
  local ttl = px(at - now + ttls[i])
  redis.call('SET', KEYS[i], states[i], 'PX', ttl)
  if at > now then redis.call('SET', KEYS[n + i], format('%.17g', at), 'PX', ttl) end
  tokens[#tokens + 1] = hex(raws[i])
  tokens[#tokens + 1] = hex(states[i])
  tokens[#tokens + 1] = expiry
  tokens[#tokens + 1] = previous
end
for _, v in ipairs(tokens) do out[#out + 1] = v end
return out
`;

const CANCEL_BODY = `
local n = #STEPS
local at = tonumber(ARGV[first])
if not (now < at) then return 1 end
for i = 1, n do
  local base = first + 4 * i - 3
  if redis.call('GET', KEYS[i]) ~= unhex(ARGV[base + 1]) then return 1 end
end
for i = 1, n do
  local base = first + 4 * i - 3
  local before, expiry, previous = ARGV[base], tonumber(ARGV[base + 2]), ARGV[base + 3]
  local left = 0
  if before ~= '' then left = expiry - server end
  if left < 1 then
    redis.call('DEL', KEYS[i])
  else
    redis.call('SET', KEYS[i], unhex(before), 'PX', left)
  end
  local x = tonumber(previous)
  if x and x > now then
    local keep = px(x - now)
    if left > keep then keep = left end
    redis.call('SET', KEYS[n + i], previous, 'PX', keep)
  else
    redis.call('DEL', KEYS[n + i])
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
    found = script(clientTime, `${steps}${HEX}${table}`, body);
    cache.set(id, found);
  }
  return found;
}
