/**
 * expectThrow and expectReject check an error's class and its exact message: `expectThrow` for a
 * synchronous call, `expectReject` for a promise-returning one, which must return a promise that
 * rejects and never throw synchronously.
 */
import { expect } from 'vitest';

type ErrorClass = typeof RangeError | typeof TypeError;

export function expectThrow(f: () => unknown, error: ErrorClass, message: string): void {
  let thrown: unknown;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  expect(thrown, message).toBeInstanceOf(Error);
  expect([(thrown as Error).constructor.name, (thrown as Error).message]).toEqual([error.name, message]);
}

export async function expectReject(f: () => unknown, error: ErrorClass, message: string): Promise<void> {
  let result: unknown;
  expect(() => (result = f()), `${message} (thrown synchronously)`).not.toThrow();
  expect(result, message).toBeInstanceOf(Promise);
  const reason = await (result as Promise<unknown>).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(reason, message).toBeInstanceOf(Error);
  expect([(reason as Error).constructor.name, (reason as Error).message]).toEqual([error.name, message]);
}
