/**
 * Limits per caller: one middleware, several limiters, one chosen per request.
 *
 *   plans: { free: freeLimiter, pro: proLimiter }, plan: async (req) => (await accounts.get(req)).plan
 *
 * The limiters are built, and so validated, when the middleware is created; `plan(req)` only names
 * one of them (synchronously or with a promise). Each limiter keeps what was precomputed for it: its
 * `RateLimit-Policy` field and its problem+json bodies, so a free caller sees the free policy and a pro
 * caller the pro one, with nothing built per request. A name that is not a plan is a TypeError on the
 * framework's error path (never a silent default plan, which would hand an unknown caller some limit
 * nobody chose).
 *
 * A decision is traced back to its plan by its policy object: every policy of every plan's limiter
 * (each member of a composite) must belong to one plan only, which creation checks. A decision whose
 * policy belongs to no plan (a hand-written limiter reporting foreign policies) gets fields built from
 * the decision itself.
 */
import type { Decision } from '../../decision.js';
import type { RateLimiter } from '../../limiter/limiter.js';
import type { Policy } from '../../policy.js';
import { describeValue } from '../../validate.js';
import { policyField } from '../respond/headers.js';
import { type LimitedBody, LimitedBodies } from '../respond/limited-bodies.js';
import { SHORTHAND } from './options.js';
import { checkLimiter } from './shorthand.js';

/** Limited is what one limiter's answers need: the limiter, its RateLimit-Policy field, its 429 bodies. */
export interface Limited {
  readonly limiter: RateLimiter;
  readonly field: string;
  readonly bodies: LimitedBodies;
}

export function limited(limiter: RateLimiter): Limited {
  return { limiter, field: policyField(limiter.policies), bodies: new LimitedBodies(limiter.policies) };
}

export interface Plans {
  readonly names: readonly string[];
  readonly limiters: readonly RateLimiter[];
  /** pick returns the limiter of the plan named `name`, or throws a TypeError. */
  pick(name: unknown): RateLimiter;
  /** fieldOf is the RateLimit-Policy field for a decision of one of the plans. */
  fieldOf(decision: Decision): string;
  /** bodyOf is the default limited response for a denial of one of the plans. */
  bodyOf(decision: Decision): LimitedBody;
}

/** preparePlans validates `plans` and `plan`; neither the limiter nor shorthand options may be given too. */
export function preparePlans(owner: string, options: object): Plans {
  const o = options as Readonly<Record<string, unknown>>;
  if (typeof o.plans !== 'object' || o.plans === null || Array.isArray(o.plans)) {
    throw new TypeError(`${owner}: plans must be an object of limiters by plan name, got ${describeValue(o.plans)}`);
  }
  if (typeof o.plan !== 'function') throw new TypeError(`${owner}: plan must be a function naming one of the plans, got ${describeValue(o.plan)}`);
  const clash = ['limiter', ...SHORTHAND].filter((k) => o[k] !== undefined);
  if (clash.length > 0) throw new TypeError(`${owner}: give either plans or limiter/algorithm options, not both (got plans and ${clash.join(', ')})`);
  const entries = Object.entries(o.plans as Record<string, unknown>);
  if (entries.length === 0) throw new TypeError(`${owner}: plans must name at least one plan`);
  const byName = new Map<string, RateLimiter>();
  const byPolicy = new Map<Policy, Limited>();
  for (const [name, value] of entries) {
    const limiter = checkLimiter(`${owner}: plans.${name}`, value);
    byName.set(name, limiter);
    const entry = limited(limiter);
    for (const policy of limiter.policies) {
      if (byPolicy.has(policy)) throw new TypeError(`${owner}: plans.${name} shares a limiter with another plan; give each plan its own limiters`);
      byPolicy.set(policy, entry);
    }
  }
  const names = [...byName.keys()];
  const wanted = names.map((n) => JSON.stringify(n)).join(', ');
  const foreign = (decision: Decision): Limited => limited({ policies: decision.parts?.map((p) => p.policy) ?? [decision.policy] } as unknown as RateLimiter);
  return {
    names,
    limiters: [...byName.values()],
    pick(name) {
      const limiter = typeof name === 'string' ? byName.get(name) : undefined;
      if (limiter === undefined) throw new TypeError(`${owner}: plan(req) must return one of ${wanted}, got ${describeValue(name)}`);
      return limiter;
    },
    fieldOf: (decision) => (byPolicy.get(decision.policy) ?? foreign(decision)).field,
    bodyOf: (decision) => (byPolicy.get(decision.policy) ?? foreign(decision)).bodies.get(decision),
  };
}
