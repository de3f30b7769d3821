/**
 * MUTANT. A composite that consumes from every member in turn and only then looks at the verdicts (the
 * "parallel union" of rate-limiter-flexible's RateLimiterUnion): a request denied by the per-second
 * member has already been charged to the per-minute one.
 */
import { type Decision, type Limiter, type Policy, type RateLimiter, mostRestrictive } from '../../src/index.js';

export class ConsumeFirstComposite implements RateLimiter<'sync'> {
  readonly mode = 'sync';
  readonly policies: readonly Policy[];
  readonly #members: readonly Limiter<Policy, 'sync'>[];

  constructor(members: readonly Limiter<Policy, 'sync'>[]) {
    this.#members = members;
    this.policies = members.map((m) => m.policy);
  }

  consume(key: string, cost = 1): Decision {
    return mostRestrictive(this.#members.map((m) => m.consume(key, cost)));
  }

  peek(key: string, cost = 1): Decision {
    return mostRestrictive(this.#members.map((m) => m.peek(key, cost)));
  }

  allow(key: string, cost = 1): boolean {
    return this.consume(key, cost).allowed;
  }

  reset(key: string): void {
    for (const m of this.#members) m.reset(key);
  }
}
