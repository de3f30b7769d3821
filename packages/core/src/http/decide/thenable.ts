/**
 * isThenable tells a promise (or any object with a `then` method) from a plain value, so that a hook
 * or a limiter answering synchronously is used at once and only an asynchronous answer is awaited.
 * Its own file because both deciding (decide.ts) and settling (settle.ts) need it, and decide.ts
 * already depends on settle.ts's types.
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}
