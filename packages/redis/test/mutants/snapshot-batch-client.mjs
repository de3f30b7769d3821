/**
 * MUTANT of batching: a batch that reads every key first and then decides each call (single or
 * composite) from that snapshot, the classic way to "optimise" a batch (one pass of GETs, then the math). Two calls on one
 * key in one batch both see the state before either, so a burst on one key is over-admitted. It is
 * made by rewriting the batch script on its way to Redis (EVALSHA → EVAL of the rewritten source);
 * the exactness harness must catch it. Plain JavaScript, for the worker processes.
 */
import { scriptBySha } from '../../dist/esm/lua/scripts.js';

/** rewrite replaces `from` by `to`, and throws when the script no longer holds `from` (a mutant that changes nothing proves nothing). */
function rewrite(source, from, to) {
  if (!source.includes(from)) throw new Error(`snapshot-batch mutant: the batch script no longer holds ${from}`);
  return source.replace(from, to);
}

// Single decisions (KEYS[k]) and composite members (KEYS[k + j]) both read the snapshot.
const snapshot = (source) =>
  [
    ['local out = {}', "local out = {}\nlocal snap = {}\nfor j = 1, #KEYS do snap[j] = redis.call('GET', KEYS[j]) end"],
    ["local raw = redis.pcall('GET', KEYS[k])", 'local raw = snap[k]'],
    ["local raw = redis.pcall('GET', KEYS[k + j])", 'local raw = snap[k + j]'],
  ].reduce((text, [from, to]) => rewrite(text, from, to), source);

export function snapshotBatchClient(client) {
  return {
    call(command, ...args) {
      const script = command === 'EVALSHA' ? scriptBySha(args[0]) : undefined;
      if (script === undefined || !script.source.includes('local out = {}')) return client.call(command, ...args);
      return client.call('EVAL', snapshot(script.source), ...args.slice(1));
    },
  };
}
