/**
 * MUTANT — the store as it was before issue 7: each call timed out `timeoutMs` after it was issued,
 * however busy Redis was, and the script carried no deadline, so a call decided by the fallback still
 * ran in Redis. Built as a client wrapper around ioredis: it gives up on a command timeoutMs after it
 * was issued (the store then decides by its failure policy) and sends every script with a deadline
 * that never passes. Under the 8-process burst on a healthy Redis, the exactness harness must see it
 * admit more than the limit. Never use it.
 */
export function issueTimeClient(client, timeoutMs) {
  return {
    call(command, ...args) {
      if (command === 'EVALSHA' || command === 'EVAL' || command === 'FCALL') args[args.length - 1] = String(Number.MAX_SAFE_INTEGER);
      const sent = client.call(command, ...args);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('issue-time timeout')), timeoutMs);
        sent.then(
          (reply) => (clearTimeout(timer), resolve(reply)),
          (error) => (clearTimeout(timer), reject(error)),
        );
      });
    },
  };
}
