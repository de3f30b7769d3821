/**
 * The options of RateLimitModule and `@RateLimit`: core's adapter options (a `limiter`, one
 * algorithm's shorthand, or `plans`; key, cost, skip, headers, countOutcome …), their hooks called
 * with the request and Nest's ExecutionContext, plus @nestjs/throttler's names where they mean the same
 * (throttler-names.ts). A module configures one limit (named 'default'), or several named ones,
 * each counted on every guarded call: as throttler's array (`[{ name: 'short', ttl: 1000, limit: 3 },
 * …]`) or as `{ limits: [...], …options every limit shares }`.
 */
import type { ExecutionContext } from '@nestjs/common';
import type { Decision, Finished, LimiterChoice, RateLimitBaseOptions, RateLimiter } from '@ratekeeper/core';
import type { NestRequest } from './invocation.js';
import type { ThrottlerNames } from './throttler-names.js';

/** The hooks, each called with the request (see invocation.ts) and the ExecutionContext. */
export interface NestHooks {
  /** The key to count the call under (default: the client IP the platform resolved); may be async. */
  readonly key?: (req: NestRequest, context: ExecutionContext) => string | PromiseLike<string>;
  /** The call's cost in units, a positive integer (default 1); may be async. */
  readonly cost?: (req: NestRequest, context: ExecutionContext) => number | PromiseLike<number>;
  /** True lets the call through uncounted and without headers; may be async. */
  readonly skip?: (req: NestRequest, context: ExecutionContext) => boolean | PromiseLike<boolean>;
  /** Called with every decision before the answer is chosen; a promise it returns is waited for. */
  readonly onDecision?: (decision: Decision, req: NestRequest, context: ExecutionContext) => void;
  /** After the response: false gives the call's charge back (core's settle.ts). */
  readonly countOutcome?: (outcome: Finished, req: NestRequest, context: ExecutionContext) => boolean | PromiseLike<boolean>;
  /** After the response: the call's real cost; the difference is refunded or charged. */
  readonly settle?: (outcome: Finished, req: NestRequest, context: ExecutionContext) => number | PromiseLike<number>;
}

/** Plans: limiters per caller, one chosen per call by `plan(req, context)`. */
export interface NestPlans {
  readonly plans: Readonly<Record<string, RateLimiter>>;
  readonly plan: (req: NestRequest, context: ExecutionContext) => string | PromiseLike<string>;
}

/** The behaviour options: core's, with Nest's hooks. */
export type NestBehaviour = Omit<RateLimitBaseOptions<NestRequest>, keyof NestHooks> & NestHooks & ThrottlerNames;

/** RateLimitOptions are one limit's options: what decides it and how calls are counted. */
export type RateLimitOptions = NestBehaviour &
  (LimiterChoice | NestPlans) & {
    /** The limit's name, which the decorators use (default 'default'); on a shorthand limit, also its policy name. */
    readonly name?: string;
  };

/** RateLimitModuleOptions: one limit, an array of named limits, or `limits` with options they share. */
export type RateLimitModuleOptions = RateLimitOptions | readonly RateLimitOptions[] | NamedModuleOptions;

/** Several named limits with the behaviour (and store, clock) they share; each limit's own options win. */
export type NamedModuleOptions = NestBehaviour & {
  readonly limits: readonly RateLimitOptions[];
  /** Where shorthand limits keep their counts (default: a MemoryStore each). */
  readonly store?: LimiterChoice['store'];
  /** Where shorthand limits read time (default: the system clock). */
  readonly clock?: LimiterChoice['clock'];
};
