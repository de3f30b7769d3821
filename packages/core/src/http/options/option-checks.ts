/**
 * Option checks for the constructors of packages beyond plain middleware (@ratekeeper/graphql,
 * @ratekeeper/ws): each throws at construction, naming the class, the option and the value it got
 * (`CostModel: maxListSize must be a positive integer, got 0`), a TypeError for a wrong type and a
 * RangeError for a number out of range. Nothing is coerced into a default.
 */
import { describeValue } from '../../validate.js';

/** optionError throws `owner: option must be want, got value` (RangeError when the type was right). */
export function optionError(owner: string, option: string, want: string, value: unknown, type: string): never {
  const message = `${owner}: ${option} must be ${want}, got ${describeValue(value)}`;
  throw typeof value === type ? new RangeError(message) : new TypeError(message);
}

/** typeError throws `owner: option must be want, got value` as a TypeError (the value is not of the kind wanted at all). */
export function typeError(owner: string, option: string, want: string, value: unknown): never {
  throw new TypeError(`${owner}: ${option} must be ${want}, got ${describeValue(value)}`);
}

/** wholeNumber accepts a safe integer ≥ 0 (or ≥ 1 with `least`). */
export function wholeNumber(owner: string, option: string, value: unknown, least = 0): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least) {
    optionError(owner, option, least === 0 ? 'a non-negative integer' : 'a positive integer', value, 'number');
  }
  return value;
}

/** optionalFunction accepts a function or undefined. */
export function optionalFunction<F>(owner: string, option: string, value: unknown): F | undefined {
  if (value !== undefined && typeof value !== 'function') optionError(owner, option, 'a function', value, 'function');
  return value as F | undefined;
}

/** optionsOf accepts a plain object (undefined reads as {}) and refuses option names it does not know. */
export function optionsOf<T extends object>(owner: string, value: T | undefined, known: readonly string[]): Partial<T> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) optionError(owner, 'options', 'an object', value, 'object');
  for (const name of Object.keys(value)) {
    if (!known.includes(name)) throw new TypeError(`${owner}: unknown option "${name}" (known: ${known.join(', ')})`);
  }
  return value;
}
