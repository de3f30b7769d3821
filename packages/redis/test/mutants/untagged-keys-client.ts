/**
 * MUTANT — a client wrapper that strips the hash-tag braces from every script key, standing in for a
 * key layout without a shared hash tag: a composite's keys then scatter over the cluster's slots and
 * Redis Cluster refuses the script (CROSSSLOT). The cluster harness must catch it.
 */
interface CallClient {
  call(command: string, ...args: string[]): Promise<unknown>;
}

export function untaggedKeys(client: CallClient): CallClient {
  return {
    call(command, ...args) {
      if (command === 'EVALSHA' || command === 'EVAL' || command === 'FCALL') {
        const keys = Number(args[1]);
        for (let i = 2; i < 2 + keys; i++) args[i] = (args[i] as string).replace(/[{}]/g, '');
      }
      return client.call(command, ...args);
    },
  };
}
