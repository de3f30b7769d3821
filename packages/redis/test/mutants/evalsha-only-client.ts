/**
 * MUTANT — a client wrapper that lets EVALSHA through but refuses EVAL, standing in for a store that
 * never reloads its scripts: after a restart or SCRIPT FLUSH every call keeps failing with NOSCRIPT.
 * The restart and flush harnesses must catch it (decisions never come back from Redis, failures
 * reported under load).
 */
import type { Redis } from 'ioredis';

export function evalshaOnly(client: Redis): { call(command: string, ...args: string[]): Promise<unknown> } {
  return {
    call(command, ...args) {
      if (command === 'EVAL') return Promise.reject(new Error('NOSCRIPT No matching script. Please use EVAL.'));
      return client.call(command, ...args);
    },
  };
}
