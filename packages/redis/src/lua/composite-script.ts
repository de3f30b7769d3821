/**
 * Composite scripts: one per sequence of member algorithms (say token bucket then sliding window),
 * generated on first use and cached. Specialising the script to its members lets it hold every
 * member's outcome in plain locals, include only the steps it calls and need no algorithm codes in
 * ARGV: less Redis CPU than a generic loop over tables of outcomes.
 *
 * The script evaluates every member first and writes only when all admit, so a denial by one costs
 * the others nothing. Members that admitted inside a denied composite report what they hold as it
 * stands, read by re-running their step with a cost no policy can grant (which writes nothing), as
 * MemoryStore's decideAll does (MemoryBinding.held). ARGV follows lua/scripts.ts: `now` (client time
 * only), the signed cost, then two parameters per member in key order. The reply is four values per member, or, when
 * all admit with the usual figures, one compact integer per member.
 */
import { STEPS, type Script, script, type StepName } from './scripts.js';

/** MAX_MEMBERS keeps a generated script well inside Lua's 200 locals per function. */
export const MAX_MEMBERS = 16;

const cache = new Map<string, Script>();

/** compositeScript is the script deciding members of `algorithms`, in that order, all or nothing. */
export function compositeScript(algorithms: readonly StepName[], clientTime: boolean): Script {
  const id = `${clientTime ? 'client' : 'server'} ${algorithms.join(' ')}`;
  let found = cache.get(id);
  if (found === undefined) {
    found = generate(algorithms, clientTime);
    cache.set(id, found);
  }
  return found;
}

function generate(algorithms: readonly StepName[], clientTime: boolean): Script {
  const members = algorithms.map((algorithm, index) => ({ i: index + 1, step: STEPS[algorithm] }));
  const steps = [...new Set(algorithms)].map((a) => STEPS[a].source).join('');
  const evaluate = members.map(
    ({ i, step }) =>
      `local g${i}, p${i} = untail(redis.call('GET', KEYS[${i}]))
local a${i}, r${i}, w${i}, e${i}, l${i}, x${i} = ${step.name}(g${i}, now, cost, tonumber(ARGV[first + ${2 * i - 2}]), tonumber(ARGV[first + ${2 * i - 1}]))`,
  );
  const all = members.map(({ i }) => `a${i}`).join(' and ');
  const write = members.map(({ i }) => `put(KEYS[${i}], x${i}, l${i}, p${i}, server, px_text)`).join('\n    ');
  const shorts = members.map(({ i }) => `compact(r${i}, w${i}, e${i})`).join(', ');
  const shortNames = members.map(({ i }) => `c${i}`).join(', ');
  const admitted = members.map(({ i }) => `1, num(r${i}), num(w${i}), num(e${i})`).join(',\n    ');
  // The denied reply is built in an array, block by block, so a member costs no locals past its outcome.
  const held = members.map(
    ({ i, step }) =>
      `if a${i} then
  local _, hr, _, he = ${step.name}(g${i}, now, HELD_COST, tonumber(ARGV[first + ${2 * i - 2}]), tonumber(ARGV[first + ${2 * i - 1}]))
  out[${4 * i - 3}], out[${4 * i - 2}], out[${4 * i - 1}], out[${4 * i}] = 1, num(hr), num(w${i}), num(he)
else
  out[${4 * i - 3}], out[${4 * i - 2}], out[${4 * i - 1}], out[${4 * i}] = 0, num(r${i}), num(w${i}), num(e${i})
end`,
  );
  const body = `
${evaluate.join('\n')}
if ${all} then
  if commit then
    ${write}
  end
  local ${shortNames} = ${shorts}
  if ${members.map(({ i }) => `c${i}`).join(' and ')} then return { ${shortNames} } end
  return {
    ${admitted}
  }
end
local HELD_COST = 9007199254740991
local out = {}
${held.join('\n')}
return out
`;
  return script(clientTime, steps, body);
}
