/**
 * The function library: the scripts a decision runs most (the one-call decision of each algorithm and
 * the batch script) as Redis Functions, for servers that have them (Redis ≥ 7, Valkey). A script's
 * `local function`s (the helpers, the steps) are closures Redis builds again on every call; a library
 * builds them once, when it is loaded, so FCALL runs only the call's own part: the deadline check and
 * the body. Same Redis, same decision: the one-call token bucket costs Redis 60 k instructions by
 * FCALL against 74 k by EVALSHA (callgrind; benchmarks/NOTEBOOK.md).
 *
 * A function is its script, word for word: the same helpers, steps and body, called with the same
 * KEYS and ARGV (FCALL's layout is EVALSHA's), so the two answer alike and every caller builds one
 * command for both. Which of the two goes is the wire's choice (../transport/remote.ts): FCALL where
 * the server has functions, the script otherwise and on a Redis Cluster.
 *
 * The library is named `ratekeeper_<h>` and its functions `rk_<h>_<what>`, h the first 12 hex digits
 * of the SHA-1 of its source: processes of different ratekeeper versions sharing one Redis each load
 * and call their own (function names are global on a server).
 *
 * The code that loads a library runs without Lua's standard library, so the aliases every helper uses
 * are set by the first call (prelude.ts, LIBRARY_GLOBALS).
 */
import { createHash } from 'node:crypto';
import { BATCHED, batchBody, batchScript } from './batch-script.js';
import { HELPERS, LIBRARY_GLOBALS, callPrelude } from './prelude.js';
import { STEPS, type Script, type StepName, singleBody, singleScript } from './scripts.js';

export interface Library {
  readonly name: string;
  /** The FUNCTION LOAD payload. */
  readonly source: string;
}

/** Callable: the function a script is also loaded as, and its library. */
export interface Callable {
  readonly name: string;
  readonly library: Library;
}

const PLACEHOLDER = '@';

/** made: every library built in this process, by time source, with its functions by script SHA-1 and by name. */
const made = new Map<boolean, { readonly bySha: Map<string, Callable>; readonly byName: Map<string, Script> }>();

function build(clientTime: boolean) {
  const parts: [what: string, script: Script, body: string][] = [
    ...BATCHED.map((a: StepName) => [STEPS[a].name, singleScript(a, clientTime), singleBody(a)] as [string, Script, string]),
    ['batch', batchScript(clientTime), batchBody(clientTime)],
  ];
  const functions = parts.map(
    ([what, , body]) => `redis.register_function('rk_${PLACEHOLDER}_${what}', function(KEYS, ARGV)\nif not INF then init() end\n${callPrelude(clientTime)}${body}\nend)\n`,
  );
  const steps = BATCHED.map((a) => STEPS[a].source).join('');
  const text = `${LIBRARY_GLOBALS}${HELPERS}${steps}${functions.join('')}`;
  const h = createHash('sha1').update(text).digest('hex').slice(0, 12);
  const library: Library = { name: `ratekeeper_${h}`, source: `#!lua name=ratekeeper_${h}\n${text.replaceAll(`rk_${PLACEHOLDER}_`, `rk_${h}_`)}` };
  const bySha = new Map<string, Callable>();
  const byName = new Map<string, Script>();
  for (const [what, script] of parts) {
    const name = `rk_${h}_${what}`;
    bySha.set(script.sha, { name, library });
    byName.set(name, script);
  }
  return { bySha, byName };
}

function libraryFor(clientTime: boolean) {
  let found = made.get(clientTime);
  if (found === undefined) {
    found = build(clientTime);
    made.set(clientTime, found);
  }
  return found;
}

/** callableOf is the function `script` is also loaded as, or undefined for a script only EVALSHA runs. */
export function callableOf(script: Script): Callable | undefined {
  return libraryFor(false).bySha.get(script.sha) ?? libraryFor(true).bySha.get(script.sha);
}

/** scriptByFunction finds the script a function of a library made in this process runs (for tools and tests that rewrite scripts). */
export function scriptByFunction(name: string): Script | undefined {
  for (const { byName } of made.values()) {
    const found = byName.get(name);
    if (found !== undefined) return found;
  }
  return undefined;
}
