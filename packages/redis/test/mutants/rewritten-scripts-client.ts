/**
 * MUTANTS of the Lua port, made by rewriting the scripts on their way to Redis: a client wrapper turns
 * every EVALSHA of a script made in this process into an EVAL of its source passed through `rewrite`. The differential test
 * must catch each rewrite below, the traps a port falls into:
 *   - LOSSY_STATE stores the token bucket's state in single precision (4 bytes), the way a port that
 *     keeps state in a lossy format (floats, %.14g text) loses the fraction of its instants;
 *   - TRUNCATED_REPLY returns figures as Lua numbers, which Redis truncates to integers.
 */
import { scriptBySha } from '../../src/lua/scripts.js';

interface CallClient {
  call(command: string, ...args: string[]): Promise<unknown>;
}

export const LOSSY_STATE = (source: string) => source.replaceAll("'<d'", "'<f'").replace('#raw ~= 8', '#raw ~= 4');
export const TRUNCATED_REPLY = (source: string) => source.replace('local function num(x)', 'local function num(x) do return x end');

export function rewrittenScripts(client: CallClient, rewrite: (source: string) => string): CallClient {
  return {
    call(command, ...args) {
      const script = command === 'EVALSHA' ? scriptBySha(args[0] as string) : undefined;
      if (script === undefined) return client.call(command, ...args);
      return client.call('EVAL', rewrite(script.source), ...args.slice(1));
    },
  };
}
