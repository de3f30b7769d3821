/**
 * refused: the rejected promise a LeasedLimiter answers for a call it refuses (a key that is not a
 * string, a cost that is not a positive integer, a clock reading that is not finite), with the same
 * message core's limiters give. A refusal is a programming error, never a Decision.
 */
import { describeValue } from '@ratekeeper/core/store';

export function refused<T>(owner: string, key: unknown, cost: unknown, now: unknown): Promise<T> {
  if (typeof key !== 'string') return Promise.reject(new TypeError(`${owner}: key must be a string, got ${describeValue(key)}`));
  const isNumber = typeof cost === 'number';
  if (!(isNumber && Number.isSafeInteger(cost) && (cost as number) >= 1)) {
    const message = `${owner}: cost must be a positive integer, got ${describeValue(cost)}`;
    return Promise.reject(isNumber ? new RangeError(message) : new TypeError(message));
  }
  const message = `${owner}: clock.now() must return a finite number of epoch milliseconds, got ${describeValue(now)}`;
  return Promise.reject(typeof now === 'number' ? new RangeError(message) : new TypeError(message));
}
