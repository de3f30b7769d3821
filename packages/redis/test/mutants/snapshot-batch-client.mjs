/**
 * MUTANT of batching: a batch that reads every key first and then decides each call from that
 * snapshot, the classic way to "optimise" a batch (one pass of GETs, then the math). Two calls on one
 * key in one batch both see the state before either, so a burst on one key is over-admitted. It is
 * made by rewriting the batch script on its way to Redis (EVALSHA → EVAL of the rewritten source);
 * the exactness harness must catch it. Plain JavaScript, for the worker processes.
 */
import { scriptBySha } from '../../dist/esm/lua/scripts.js';

const snapshot = (source) =>
  source
    .replace('local out = {}', "local out = {}\nlocal snap = {}\nfor j = 1, #KEYS do snap[j] = redis.call('GET', KEYS[j]) end")
    .replace("pcall(step, redis.call('GET', KEYS[i])", 'pcall(step, snap[i]');

export function snapshotBatchClient(client) {
  return {
    call(command, ...args) {
      const script = command === 'EVALSHA' ? scriptBySha(args[0]) : undefined;
      if (script === undefined || !script.source.includes('local out = {}')) return client.call(command, ...args);
      return client.call('EVAL', snapshot(script.source), ...args.slice(1));
    },
  };
}
