/**
 * MUTANT of batching: a batch that decides each call (single or composite) from the keys as they were
 * before the batch, the classic way to "optimise" a batch (one pass of GETs, then the math). Two
 * calls on one key in one batch both see the state before either, so a burst on one key is
 * over-admitted. Made by rewriting the batch script on its way to Redis (EVALSHA or FCALL → EVAL of the
 * rewritten source): its read of a key skips what the batch's calls so far left in it and GETs the key
 * from Redis, which holds the state from before the batch until the batch's writes go out at its end.
 * The exactness harness must catch it. Plain JavaScript, for the worker processes.
 */
import { scriptByFunction } from '../../dist/esm/lua/library.js';
import { scriptBySha } from '../../dist/esm/lua/scripts.js';

/** rewrite replaces `from` by `to`, and throws when the script no longer holds `from` (a mutant that changes nothing proves nothing). */
function rewrite(source, from, to) {
  if (!source.includes(from)) throw new Error(`snapshot-batch mutant: the batch script no longer holds ${from}`);
  return source.replace(from, to);
}

// Single decisions and composite members both read through read(): every read is a GET of the snapshot.
const snapshot = (source) =>
  [
    ['  local raw = HELD[key]\n', '  local raw = nil\n'],
    ['    HELD[key] = raw\n', ''],
  ].reduce((text, [from, to]) => rewrite(text, from, to), source);

export function snapshotBatchClient(client) {
  return {
    call(command, ...args) {
      const script = command === 'EVALSHA' ? scriptBySha(args[0]) : command === 'FCALL' ? scriptByFunction(args[0]) : undefined;
      if (script === undefined || !script.source.includes('local HELD, TTL, EXPIRY, DIRTY')) return client.call(command, ...args);
      return client.call('EVAL', snapshot(script.source), ...args.slice(1));
    },
  };
}
