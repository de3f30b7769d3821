/**
 * The scripts RedisStore runs: one per algorithm, and composites (./composite-script.ts) that decide
 * several policies for one request all or nothing. Each is assembled from the algorithm steps
 * (./token-bucket.ts …) and the shared prelude below, and addressed by its SHA-1 for EVALSHA.
 *
 * Each comes in two variants, reading time from the server (TIME) or from the call. Every argument
 * costs Redis about half a microsecond, so a call sends only what it must:
 *   KEYS       one key per policy; a composite's keys share one hash tag, hence one cluster slot.
 *   ARGV       client time only: `now` in epoch ms as JavaScript's String(number); then the cost,
 *              negative for a peek (decide, record nothing); then each policy's two parameters
 *              (String(number)), in key order: capacity and refill interval (ms) for a token
 *              bucket, window (ms) and limit for the windows (aligned or first-request) and the sliding log; last, the deadline in server epoch
 *              ms, set by Remote on each send: a script that starts at or after it changes nothing
 *              and answers -TIME in ms, an 'expired' reply (see ./prelude.ts).
 * Reply: four values per policy: allowed (1/0), remaining, retryAfterMs, resetAfterMs. Each number is
 * an integer reply when it is a safe integer other than -0, else a %.17g string ('inf' for Infinity),
 * because Redis truncates a Lua number to an integer on the way out. An admission with the usual
 * figures answers one compact integer per policy instead (see `compact` in ./prelude.ts).
 *
 * A denied request writes nothing. An admitted one writes each state with a TTL that lasts at least
 * until its state is empty and at most max(0.9 s, 20 %) longer, kept (SET … KEEPTTL) while the expiry
 * recorded in the value's tail still covers it (`untail` and `put` in ./prelude.ts): no key is ever
 * left without one. Refunds, bookings and leases write plain SET … PX ttl, no tail. State is binary,
 * little-endian doubles packed with struct.pack (exact, and far cheaper than %.17g text and parsing
 * it back); a value of the wrong length is foreign data (RKCORRUPT). Parameters are parsed with
 * tonumber, which reads JavaScript's shortest round-trip digits back to the same double.
 */
import { createHash } from 'node:crypto';
import { FIRST_REQUEST_WINDOW_LUA } from './first-request-window.js';
import { FIXED_WINDOW_LUA } from './fixed-window.js';
import { SLIDING_LOG_LUA } from './sliding-log.js';
import { SLIDING_WINDOW_LUA } from './sliding-window.js';
import { prelude } from './prelude.js';
import { TOKEN_BUCKET_LUA } from './token-bucket.js';

export interface Script {
  readonly source: string;
  readonly sha: string;
}

/** SINGLE_BODY decides one policy; STEP is replaced by the algorithm's function. */
const SINGLE_BODY = `
local raw, expiry = untail(redis.call('GET', KEYS[1]))
local ok, remaining, retry, reset, ttl, state = STEP(raw, now, cost, tonumber(ARGV[first]), tonumber(ARGV[first + 1]))
if ok then
  if commit then put(KEYS[1], state, ttl, expiry, server, px_text) end
  local short = compact(remaining, retry, reset)
  if short then return short end
  return { 1, num(remaining), num(retry), num(reset) }
end
return { 0, num(remaining), num(retry), num(reset) }
`;

/**
 * REFUND_BODY gives `cost` back to one policy's key (the algorithm's refund port, STEP_refund): the
 * next state is written with the TTL until it is empty, or the key deleted when it is empty already.
 * A key with nothing to give back is left alone. Replies 2 when it changed the key, else 1: never 0
 * or less, which Remote reads as a script that expired before running (../transport/remote.ts).
 */
const REFUND_BODY = `
local changed, ttl, state = STEP_refund((untail(redis.call('GET', KEYS[1]))), now, cost, tonumber(ARGV[first]), tonumber(ARGV[first + 1]))
if not changed then return 1 end
if ttl > 0 then redis.call('SET', KEYS[1], state, 'PX', px_text(ttl)) else redis.call('DEL', KEYS[1]) end
return 2
`;

/**
 * BAN_BODY decides one policy with a ban in front (core's ban.ts contract, in the same single call):
 * KEYS[2] is the ban: the instant it ends and the cost of the denial that started it (two packed
 * doubles, BAN_OF), kept with a TTL of the ban's length (so it is gone once over). While `now` is
 * before that instant the request is denied with the time left and nothing is written (the instant,
 * not the TTL, decides, so client time works as server time does). Otherwise the step decides; an
 * admission is written as in SINGLE_BODY; a denial that waiting could cure starts the ban (SET … PX
 * banMs, ARGV after the parameters) and is answered as its first denial; a cost no policy can grant is
 * denied without a ban.
 */
export const BAN_OF = `
local function ban_of(raw)
  if #raw ~= 16 then error({ err = CORRUPT }) end
  return unpack('<dd', raw)
end
`;

const BAN_BODY = `
local banMs = tonumber(ARGV[first + 2])
local banned = redis.call('GET', KEYS[2])
if banned then
  local left = ban_of(banned) - now
  if left > 0 then return { 0, 0, num(left), num(left) } end
end
local raw, expiry = untail(redis.call('GET', KEYS[1]))
local ok, remaining, retry, reset, ttl, state = STEP(raw, now, cost, tonumber(ARGV[first]), tonumber(ARGV[first + 1]))
if ok then
  if commit then put(KEYS[1], state, ttl, expiry, server, px_text) end
  local short = compact(remaining, retry, reset)
  if short then return short end
  return { 1, num(remaining), num(retry), num(reset) }
end
if retry == INF then return { 0, num(remaining), num(retry), num(reset) } end
if commit then redis.call('SET', KEYS[2], pack('<dd', now + banMs, cost), 'PX', banMs) end
return { 0, 0, banMs, banMs }
`;

/**
 * BAN_REFUND_BODY is REFUND_BODY with the ban's lift (core's ban.ts): after giving `cost` back, a ban
 * still running (KEYS[2]) is deleted when the step, on the state now held, admits the cost whose
 * denial started it (a block's cost is 0: no refund lifts it). Replies 3 when it lifted the ban, else as REFUND_BODY (2 changed, 1 not).
 */
const BAN_REFUND_BODY = `
local p1, p2 = tonumber(ARGV[first]), tonumber(ARGV[first + 1])
local held = (untail(redis.call('GET', KEYS[1])))
local changed, ttl, state = STEP_refund(held, now, cost, p1, p2)
if changed then
  if ttl > 0 then redis.call('SET', KEYS[1], state, 'PX', px_text(ttl)) else redis.call('DEL', KEYS[1]) end
  held = ttl > 0 and state
end
local banned = redis.call('GET', KEYS[2])
if banned then
  local ends, need = ban_of(banned)
  if need > 0 and now < ends and STEP(held, now, need, p1, p2) then
    redis.call('DEL', KEYS[2])
    return 3
  end
end
if changed then return 2 end
return 1
`;

/** Every script made so far, by SHA-1: scripts are made on demand and kept for the process. */
const bySha = new Map<string, Script>();

/** script assembles a script from the prelude for `clientTime`, the step functions it calls and its body. */
export function script(clientTime: boolean, steps: string, body: string): Script {
  const source = `${prelude(clientTime)}${steps}${body}`;
  const sha = createHash('sha1').update(source).digest('hex');
  const made = bySha.get(sha) ?? { source, sha };
  bySha.set(sha, made);
  return made;
}

/** scriptBySha finds a script made in this process (for tools and tests that rewrite scripts). */
export function scriptBySha(sha: string): Script | undefined {
  return bySha.get(sha);
}

/**
 * stepOf keeps an algorithm's Lua source up to its refund function apart: a decision's script carries
 * only the functions it calls, since every `local function` is a closure Redis builds on each call.
 */
function stepOf(name: string, source: string): { readonly name: string; readonly source: string; readonly withRefund: string } {
  const refund = source.indexOf(`local function ${name}_refund`);
  return { name, source: refund === -1 ? source : source.slice(0, refund), withRefund: source };
}

/** STEPS maps each algorithm to its Lua step function's name, its source and its source with the refund. */
export const STEPS = {
  'token-bucket': stepOf('tb', TOKEN_BUCKET_LUA),
  'sliding-window': stepOf('sw', SLIDING_WINDOW_LUA),
  'fixed-window': stepOf('fw', FIXED_WINDOW_LUA),
  'sliding-log': stepOf('sl', SLIDING_LOG_LUA),
  // Last, so that the batch script's codes of the others (their index in BATCHED) stay what they were.
  'first-request-window': stepOf('frw', FIRST_REQUEST_WINDOW_LUA),
} as const;

/** StepName is an algorithm with a Lua step: every one but the concurrency limit, whose leases have their own scripts (./concurrency.ts). */
export type StepName = keyof typeof STEPS;

/** singleBody is the body of the script deciding one policy of `algorithm` (after the prelude and the step). */
export function singleBody(algorithm: StepName): string {
  return SINGLE_BODY.replace('STEP', STEPS[algorithm].name);
}

/** singleScript is the script deciding one policy of `algorithm`. */
export function singleScript(algorithm: StepName, clientTime: boolean): Script {
  return script(clientTime, STEPS[algorithm].source, singleBody(algorithm));
}

/** refundScript is the script giving cost back to one policy of `algorithm`. */
export function refundScript(algorithm: StepName, clientTime: boolean): Script {
  const step = STEPS[algorithm];
  return script(clientTime, step.withRefund, REFUND_BODY.replace('STEP', step.name));
}

/** banScript is the script deciding one policy of `algorithm` behind a ban. */
export function banScript(algorithm: StepName, clientTime: boolean): Script {
  const step = STEPS[algorithm];
  return script(clientTime, `${step.source}${BAN_OF}`, BAN_BODY.replace('STEP', step.name));
}

/** banRefundScript is the script giving cost back to one policy of `algorithm` behind a ban, lifting the ban when it no longer holds. */
export function banRefundScript(algorithm: StepName, clientTime: boolean): Script {
  const step = STEPS[algorithm];
  return script(clientTime, `${step.withRefund}${BAN_OF}`, BAN_REFUND_BODY.replaceAll('STEP', step.name));
}
