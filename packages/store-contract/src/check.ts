/**
 * A check is one contract clause, runnable on its own against a store: `run` resolves when the store
 * keeps the clause and rejects with an Error whose message starts `store contract broken: <title>`
 * otherwise. Every check uses fresh policy names (a name is a key namespace on every store), so checks
 * never see each other's state nor a previous run's on a persistent server, and keys can be literal.
 */
import type { Clock, Decision, Store } from '@ratekeeper/core';
import { expect } from 'vitest';

export interface CheckContext {
  readonly store: Store;
  readonly clock: Clock;
  /** fresh answers a policy name no check has used, in this run or any other. */
  fresh(): string;
}

export interface Check {
  /** The contract clause, e.g. `token-bucket: peek records nothing`. */
  readonly title: string;
  run(context: CheckContext): Promise<void>;
  /** How long the clause may take, in milliseconds (default: the suite's timeoutMs). */
  readonly timeoutMs?: number;
  /** Set when the store said it cannot run the clause: why (the suite reports it skipped; run passes). */
  readonly skipped?: string;
}

const RUN = `sc${Date.now().toString(36)}${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
let names = 0;

export function contextFor(store: Store, clock: Clock): CheckContext {
  return { store, clock, fresh: () => `${RUN}-${names++}` };
}

/** check names a clause; its body's first failure is reported as that clause broken. */
export function check(title: string, body: (context: CheckContext) => Promise<void>): Check {
  return {
    title,
    async run(context) {
      try {
        await body(context);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const broken = new Error(`store contract broken: ${title}\n${message}`, { cause: error });
        throw broken;
      }
    },
  };
}

/** skipped is a clause the store cannot run, with its reason. */
export function skipped(title: string, reason: string): Check {
  return { title, skipped: reason, run: async () => {} };
}

/** answered awaits a limiter's answer whatever the store's mode; a synchronous throw becomes a rejection. */
export async function answered<T>(call: () => T | Promise<T>): Promise<T> {
  return await call();
}

/** decided asserts a store's own decision: the store answered (no failure policy decided it). */
export function decided(d: Decision, what: string): Decision {
  expect(d.failure, `${what}: decided by the failure policy ('${d.failure}'), not by the store`).toBeUndefined();
  return d;
}

/** refused expects `call` to throw or reject a TypeError whose message matches `words`. */
export async function refused(call: () => unknown, words: RegExp, what: string): Promise<void> {
  let caught: unknown;
  try {
    await call();
  } catch (error) {
    caught = error;
  }
  expect(caught, `${what}: must be refused with a TypeError, but was accepted`).toBeInstanceOf(TypeError);
  expect((caught as Error).message, `${what}: the refusal must name the capability`).toMatch(words);
}
