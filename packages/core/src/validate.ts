/**
 * Option checks shared by every constructor. Each throws at construction, naming the class, the option
 * and the value it got: a TypeError for a wrong type, a RangeError for a value out of range. Nothing is
 * ever coerced into a default.
 */

/** describeValue renders a received value for an error message without echoing long user text. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'function') return 'a function';
  return Array.isArray(value) ? 'an array' : `an ${typeof value}`;
}

/**
 * fail throws `owner: option must be want, got value`: a RangeError when the value has the expected
 * type (`type`) but is out of range, a TypeError when it has another type.
 */
export function fail(owner: string, option: string, want: string, value: unknown, type: 'number' | 'string'): never {
  const message = `${owner}: ${option} must be ${want}, got ${describeValue(value)}`;
  throw typeof value === type ? new RangeError(message) : new TypeError(message);
}

/**
 * MAX_QUOTA is the largest capacity or limit: 15 digits, the most a Structured Field Integer holds, so
 * that the `q` and `r` of the RateLimit headers always parse.
 */
export const MAX_QUOTA = 999_999_999_999_999;

/** quota accepts a capacity or limit: an integer from 1 to MAX_QUOTA. */
export function quota(owner: string, option: string, value: unknown): number {
  const n = positiveInteger(owner, option, value);
  if (n > MAX_QUOTA) fail(owner, option, `a positive integer of at most 15 digits (a header's Integer)`, value, 'number');
  return n;
}

/** positiveInteger accepts a safe integer ≥ 1. */
export function positiveInteger(owner: string, option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) fail(owner, option, 'a positive integer', value, 'number');
  return value;
}

/** positiveNumber accepts a finite number > 0 and at most `max`. */
export function positiveNumber(owner: string, option: string, value: unknown, max = Number.MAX_VALUE): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > max) {
    fail(owner, option, max === Number.MAX_VALUE ? 'a finite number > 0' : `a number > 0 and at most ${max}`, value, 'number');
  }
  return value;
}

/** policyName accepts a short token that is safe in a header, a Redis key and a log line. */
export function policyName(owner: string, value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9_.:-]{1,64}$/.test(value)) {
    fail(owner, 'name', '1 to 64 characters of A-Z a-z 0-9 _ . : -', value, 'string');
  }
  return value;
}

/** options accepts a plain options object (or undefined, read as {}). */
export function optionsObject<T extends object>(owner: string, value: T | undefined): T | Record<string, never> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${owner}: options must be an object, got ${describeValue(value)}`);
  }
  return value;
}

/**
 * refuseUnknown throws `owner: unknown option "name"` (a TypeError) for the first own key of `options`
 * that is neither in `known` nor in `extra`: a misspelt option (`stor`, `maxkeys`) must never be
 * silently ignored while its default runs. A key counts even when its value is undefined.
 */
export function refuseUnknown(owner: string, options: object, known: ReadonlySet<string>, extra: readonly string[] = []): void {
  for (const k of Object.keys(options)) {
    if (!known.has(k) && !extra.includes(k)) throw new TypeError(`${owner}: unknown option ${describeValue(k)}`);
  }
}

/** isCost tells whether a per-call cost is valid: a positive safe integer. */
export function isCost(cost: unknown): cost is number {
  return typeof cost === 'number' && Number.isSafeInteger(cost) && cost >= 1;
}

/**
 * callError is the error for a call refused at call time: a key that is not a string, a cost that is
 * not a positive integer (checked in that order), else a clock reading that is not a finite number (a
 * clock that forgot its `return` answers undefined; NaN would admit everything in one algorithm and
 * deny everything with a NaN wait in the others). Never a silent admit, never a NaN figure.
 */
export function callError(owner: string, key: unknown, cost: unknown, now: unknown): TypeError | RangeError {
  if (typeof key !== 'string') return new TypeError(`${owner}: key must be a string, got ${describeValue(key)}`);
  if (!isCost(cost)) return wrongValue(`${owner}: cost must be a positive integer, got ${describeValue(cost)}`, cost);
  return wrongValue(`${owner}: clock.now() must return a finite number of epoch milliseconds, got ${describeValue(now)}`, now);
}

/**
 * refuseCall answers a refused call the way the limiter's mode answers: a synchronous limiter throws, a
 * promise-returning one returns a rejected promise (it never throws synchronously, so `.catch` and
 * `await` see every failure). A refusal is a programming error, not a limit: never a Decision.
 */
export function refuseCall<R>(owner: string, mode: 'sync' | 'async', key: unknown, cost: unknown, now: unknown): R {
  const error = callError(owner, key, cost, now);
  if (mode === 'sync') throw error;
  return Promise.reject(error) as R;
}

function wrongValue(message: string, value: unknown): TypeError | RangeError {
  return typeof value === 'number' ? new RangeError(message) : new TypeError(message);
}
