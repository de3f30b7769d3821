/**
 * MUTANT — a client wrapper that lets EVALSHA and FCALL through but refuses EVAL and FUNCTION LOAD,
 * standing in for a store that never reloads its scripts: after a restart, SCRIPT FLUSH or FUNCTION
 * FLUSH every call keeps failing with NOSCRIPT or a missing function.
 * The restart and flush harnesses must catch it (decisions never come back from Redis, failures
 * reported under load).
 */
import type { Redis } from 'ioredis';

export function evalshaOnly(client: Redis): { call(command: string, ...args: string[]): Promise<unknown> } {
  return {
    call(command, ...args) {
      if (command === 'EVAL') return Promise.reject(new Error('NOSCRIPT No matching script. Please use EVAL.'));
      if (command === 'FUNCTION' && args[0] === 'LOAD') return Promise.reject(new Error('ERR Function not found'));
      return client.call(command, ...args);
    },
  };
}
