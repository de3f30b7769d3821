/**
 * The batch script: many single-policy decisions in one call, decided one after another in the order
 * given, exactly as if each had been its own EVALSHA back to back (a script runs atomically, so no
 * other client's command can come between them). Used by ../batcher.ts for calls that are pending at
 * the same moment on the same node.
 *
 * KEYS       one key per call.
 * ARGV       per call, `stride` values: [now (client time only),] the algorithm's code (1-based index
 *            in BATCHED), the signed cost, and the policy's two parameters, as in lua/scripts.ts;
 *            last, the batch's deadline (a batch that starts after it decides nothing, see prelude.ts).
 * Reply      one element per call: what the single script would answer (a compact integer or the
 *            four values), or the string 'RKCORRUPT' when that call's key holds foreign data; a
 *            corrupt key fails its own call only, never the batch.
 * With server time, TIME is read once per batch: every call in it decides at the same instant.
 */
import { STEPS, type Script, script, type StepName } from './scripts.js';

/** BATCHED lists the algorithms the batch script decides; their 1-based index is their code. */
export const BATCHED: readonly StepName[] = Object.keys(STEPS) as StepName[];

/** The ARGV values per call. */
export const stride = (clientTime: boolean): number => (clientTime ? 5 : 4);

const BODY = (clientTime: boolean) => `
local STEP = { ${BATCHED.map((a) => STEPS[a].name).join(', ')} }
local out = {}
local n = #KEYS
local s = ${stride(clientTime)}
for i = 1, n do
  local at = (i - 1) * s
${clientTime ? '  local now = tonumber(ARGV[at + 1])\n  at = at + 1' : ''}
  local step = STEP[tonumber(ARGV[at + 1])]
  local signed = tonumber(ARGV[at + 2])
  local commit = signed > 0
  local cost = signed
  if not commit then cost = -signed end
  local fine, ok, remaining, retry, reset, ttl, state = pcall(step, redis.call('GET', KEYS[i]), now, cost, tonumber(ARGV[at + 3]), tonumber(ARGV[at + 4]))
  if not fine then
    out[i] = 'RKCORRUPT'
  elseif ok then
    if commit then redis.call('SET', KEYS[i], state, 'PX', px(ttl)) end
    local short = compact(remaining, retry, reset)
    if short then out[i] = short else out[i] = { 1, num(remaining), num(retry), num(reset) } end
  else
    out[i] = { 0, num(remaining), num(retry), num(reset) }
  end
end
return out
`;

/** batchScript is the batch script for the time source. */
export function batchScript(clientTime: boolean): Script {
  const steps = BATCHED.map((a) => STEPS[a].source).join('');
  return script(clientTime, steps, BODY(clientTime));
}
