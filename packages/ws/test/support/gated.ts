/**
 * GatedLimiter: a limiter whose answers are promises (as a remote store's are) held until the test
 * opens the gate, so that a test can close a connection while its messages' charges are in flight.
 * It decides on a real TokenBucketLimiter on the memory store; only the timing is the test's.
 */
import { type Decision, ManualClock, type Policy, type RateLimiter, TokenBucketLimiter } from '@ratekeeper/core';

export class GatedLimiter implements RateLimiter<'async'> {
  readonly mode = 'async';
  readonly inner: TokenBucketLimiter<'sync'>;
  readonly policies: readonly Policy[];
  #open = false;
  #waiting: (() => void)[] = [];
  pending = 0;

  constructor(capacity: number) {
    this.inner = new TokenBucketLimiter({ capacity, refillPerSecond: 1, clock: new ManualClock(0) });
    this.policies = this.inner.policies;
  }

  open(): void {
    this.#open = true;
    for (const go of this.#waiting.splice(0)) go();
  }

  #gate<R>(decide: () => R): Promise<R> {
    if (this.#open) return Promise.resolve(decide());
    this.pending++;
    return new Promise((resolve) => this.#waiting.push(() => resolve(decide())));
  }

  consume(key: string, cost = 1): Promise<Decision> {
    return this.#gate(() => this.inner.consume(key, cost));
  }
  allow(key: string, cost = 1): Promise<boolean> {
    return this.#gate(() => this.inner.allow(key, cost));
  }
  peek(key: string, cost = 1): Promise<Decision> {
    return Promise.resolve(this.inner.peek(key, cost));
  }
  reset(key: string): Promise<void> {
    return Promise.resolve(this.inner.reset(key));
  }
  refund(key: string, cost = 1): Promise<void> {
    return Promise.resolve(this.inner.refund(key, cost));
  }
}
