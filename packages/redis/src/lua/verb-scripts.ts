/**
 * The scripts of rate-limiter-flexible's verbs on Redis (core's StoreBinding `charge`, `usage` and
 * `block`), assembled like the decision scripts (./scripts.ts: the prelude, the algorithm's step
 * functions, then a body) with the verbs' ports (./verbs.ts). ARGV as a decision's: [now], a cost,
 * the policy's two parameters, the deadline.
 *
 * - CHARGE_BODY adds `cost` to KEYS[1] whatever the limit says and writes it with the TTL until it is
 *   empty (plain SET … PX, as a refund writes); it replies the usage after it.
 * - USAGE_BODY reads KEYS[1]'s usage and writes nothing (its cost is ignored).
 * Both take the key's ban as KEYS[2] when the binding has one: its time left is the reply's fourth
 * value (blockedMs), 0 without a ban. Reply: { used, remaining, resetAfterMs, blockedMs }, each as
 * `num` sends it.
 * - BLOCK_BODY sets the ban KEYS[1] to end at now + cost (the block's ms), or keeps a later end, with
 *   a denial cost of 0 so that no refund lifts it (./scripts.ts, BAN_REFUND_BODY), and the TTL until
 *   it ends. Replies 1.
 */
import { BAN_OF, type Script, STEPS, type StepName, script } from './scripts.js';

export type { StepName };
import { VERBS_LUA } from './verbs.js';

const BLOCKED = `
local function blocked_ms(key)
  if not key then return 0 end
  local banned = redis.call('GET', key)
  if not banned then return 0 end
  local left = ban_of(banned) - now
  if left > 0 then return left end
  return 0
end
`;

const CHARGE_BODY = `
local p1, p2 = tonumber(ARGV[first]), tonumber(ARGV[first + 1])
local ttl, state = STEP_charge((untail(redis.call('GET', KEYS[1]))), now, cost, p1, p2)
redis.call('SET', KEYS[1], state, 'PX', px_text(ttl))
local used, remaining, reset = STEP_usage(state, now, p1, p2)
return { num(used), num(remaining), num(reset), num(blocked_ms(KEYS[2])) }
`;

const USAGE_BODY = `
local used, remaining, reset = STEP_usage((untail(redis.call('GET', KEYS[1]))), now, tonumber(ARGV[first]), tonumber(ARGV[first + 1]))
return { num(used), num(remaining), num(reset), num(blocked_ms(KEYS[2])) }
`;

const BLOCK_BODY = `
local ends = now + cost
local banned = redis.call('GET', KEYS[1])
if banned then
  local running = ban_of(banned)
  if running > ends then ends = running end
end
redis.call('SET', KEYS[1], pack('<dd', ends, 0), 'PX', px_text(ends - now))
return 1
`;

function verbScript(algorithm: StepName, clientTime: boolean, body: string): Script {
  const step = STEPS[algorithm];
  return script(clientTime, `${step.source}${VERBS_LUA[algorithm]}${BAN_OF}${BLOCKED}`, body.replaceAll('STEP', step.name));
}

/** chargeScript is the script charging one policy of `algorithm` (KEYS[2]: its ban, when it has one). */
export function chargeScript(algorithm: StepName, clientTime: boolean): Script {
  return verbScript(algorithm, clientTime, CHARGE_BODY);
}

/** usageScript is the script reading one policy's usage (KEYS[2]: its ban, when it has one). */
export function usageScript(algorithm: StepName, clientTime: boolean): Script {
  return verbScript(algorithm, clientTime, USAGE_BODY);
}

/** blockScript is the script setting a ban directly (KEYS[1]: the ban). */
export function blockScript(clientTime: boolean): Script {
  return script(clientTime, BAN_OF, BLOCK_BODY);
}
