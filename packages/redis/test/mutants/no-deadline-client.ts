/**
 * MUTANT — scripts that ignore their deadline: a client wrapper (ioredis shape) that replaces every
 * script's deadline with one that never passes. A call the store gave up on, and decided locally,
 * then still runs when Redis comes back, so it is decided twice. The stall test's ledger must see
 * Redis count more requests than Redis decided.
 */
interface CallClient {
  call(command: string, ...args: string[]): Promise<unknown>;
}

export function noDeadlineClient(client: CallClient): CallClient {
  return {
    call(command, ...args) {
      if (command === 'EVALSHA' || command === 'EVAL' || command === 'FCALL') args[args.length - 1] = String(Number.MAX_SAFE_INTEGER);
      return client.call(command, ...args);
    },
  };
}
