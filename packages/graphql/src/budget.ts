/**
 * Budget: the per-client cost budget and the per-operation ceiling, shared by the envelop and the
 * Apollo plugin. For each operation, once its document is validated and before anything runs:
 *
 * 1. `charge` prices it (the model's estimate); refuses it with MAX_COST_EXCEEDED above `maxCost`;
 *    then takes the whole estimate from the client's budget with one `limiter.consume(key, estimate)`.
 *    A denial changes nothing (core's contract) and the operation is refused whole with THROTTLED:
 *    no resolver runs.
 * 2. `settle`, once it ran, reads the actual cost from the response (capped at the estimate) and gives
 *    the difference back with one `limiter.refund(key, estimate − actual)`, awaited before the
 *    response goes out.
 *
 * Both steps are single atomic calls of core's public limiter API, so the client's budget ends exactly
 * at what its operations actually cost, on every store that refunds (memory, Redis, PostgreSQL, MySQL,
 * SQLite, Durable Objects) and across any number of processes: the estimate is held while the
 * operation runs, and no refund is ever lost or given twice. A limiter whose store cannot refund is
 * refused at construction.
 */
import type { Decision, RateLimiter } from '@ratekeeper/core';
import type { DocumentNode, GraphQLError, GraphQLSchema } from 'graphql';
import { optionError, optionalFunction, optionsOf, typeError, wholeNumber } from '@ratekeeper/core/adapter';
import { type Headers, throttled, tooCostly } from './errors.js';
import { CostModel } from './cost/model.js';
import type { CostModelOptions } from './cost/rules.js';
import { type CostExtension, costExtension } from './status.js';

/** CostBudgetOptions: what both plugins take. At least one of `limiter` and `maxCost`. */
export interface CostBudgetOptions<Context> {
  /** The per-client budget: any core limiter whose store refunds (a token bucket like Shopify's, a window, a composite). */
  readonly limiter?: RateLimiter;
  /** The client an operation is charged to, from the server's context (a user, an API key); required with `limiter`. */
  readonly key?: (context: Context) => string | Promise<string>;
  /** The cost model, or its options (default: `new CostModel()`). */
  readonly model?: CostModel | CostModelOptions;
  /** The per-operation ceiling: an operation estimated above it is refused before it runs. */
  readonly maxCost?: number;
  /** Put the budget's state in each response's `extensions.cost` (default true). */
  readonly extensions?: boolean;
}

const KNOWN = ['limiter', 'key', 'model', 'maxCost', 'extensions'] as const;

/** Operation: what the plugins know of one operation once its document is validated. */
export interface Operation {
  readonly schema: GraphQLSchema;
  readonly document: DocumentNode;
  readonly operationName: string | null | undefined;
  readonly variables: Readonly<Record<string, unknown>> | null | undefined;
}

/** Charge: the outcome of charging one operation. */
export type Charge =
  | { readonly admitted: false; readonly error: GraphQLError; readonly cost: CostExtension | undefined }
  | { readonly admitted: true; readonly estimate: number; readonly key: string | undefined; readonly decision: Decision | undefined };

export class Budget<Context> {
  readonly model: CostModel;
  readonly extensions: boolean;
  readonly #limiter: RateLimiter | undefined;
  readonly #key: ((context: Context) => string | Promise<string>) | undefined;
  readonly #maxCost: number | undefined;
  readonly #headers: Headers;

  constructor(owner: string, options: CostBudgetOptions<Context> | undefined, headers: Headers) {
    const o = optionsOf(owner, options, KNOWN);
    this.#limiter = o.limiter === undefined ? undefined : checkLimiter(owner, o.limiter);
    this.#key = optionalFunction(owner, 'key', o.key);
    if (this.#limiter !== undefined && this.#key === undefined) optionError(owner, 'key', 'a function (context) => string naming the client, with limiter', o.key, 'function');
    this.#maxCost = o.maxCost === undefined ? undefined : wholeNumber(owner, 'maxCost', o.maxCost, 1);
    if (this.#limiter === undefined && this.#maxCost === undefined)
      throw new TypeError(`${owner}: options must set limiter (a budget per client), maxCost (a ceiling per operation) or both`);
    this.model = o.model instanceof CostModel ? o.model : new CostModel(o.model);
    if (o.extensions !== undefined && typeof o.extensions !== 'boolean') optionError(owner, 'extensions', 'a boolean', o.extensions, 'boolean');
    this.extensions = o.extensions ?? true;
    this.#headers = headers;
  }

  /** charge prices `operation` and takes its estimate from the client's budget (see the file comment). */
  charge(operation: Operation, context: Context): Charge | Promise<Charge> {
    const estimate = this.model.estimate(operation.schema, operation.document, operation.operationName, operation.variables);
    if (this.#maxCost !== undefined && estimate > this.#maxCost) {
      return { admitted: false, error: tooCostly(estimate, this.#maxCost, this.#headers), cost: this.#extension(estimate, null, undefined, 0) };
    }
    const limiter = this.#limiter;
    if (limiter === undefined || estimate === 0) return { admitted: true, estimate, key: undefined, decision: undefined };
    const key = (this.#key as (context: Context) => string | Promise<string>)(context);
    return typeof key === 'string' ? this.#consume(limiter, key, estimate) : key.then((k) => this.#consume(limiter, k, estimate));
  }

  #consume(limiter: RateLimiter, key: string, estimate: number): Charge | Promise<Charge> {
    if (typeof key !== 'string') throw new TypeError(`CostBudget: key must answer a string, got ${typeof key}`);
    // An absurd estimate (nested lists) beyond a safe integer is beyond any budget: refused as never satisfiable.
    const cost = Math.min(estimate, Number.MAX_SAFE_INTEGER);
    const decided = limiter.consume(key, cost);
    return decided instanceof Promise ? decided.then((d) => this.#decided(key, estimate, d)) : this.#decided(key, estimate, decided);
  }

  #decided(key: string, estimate: number, decision: Decision): Charge {
    if (decision.allowed) return { admitted: true, estimate, key, decision };
    return { admitted: false, error: throttled(estimate, decision, this.#headers), cost: this.#extension(estimate, null, decision, 0) };
  }

  /**
   * settle gives back what the admitted operation did not cost, given its response's `data`, and
   * answers its `extensions.cost` (undefined with `extensions: false`).
   */
  settle(charge: Charge & { admitted: true }, operation: Operation, data: unknown): CostExtension | undefined | Promise<CostExtension | undefined> {
    const { estimate, key, decision } = charge;
    if (estimate === 0) return this.#extension(0, 0, undefined, 0);
    const actual = Math.min(estimate, this.model.actual(operation.schema, operation.document, operation.operationName, operation.variables, data));
    const refund = estimate - actual;
    const limiter = this.#limiter;
    if (refund === 0 || key === undefined || limiter === undefined) return this.#extension(estimate, actual, decision, 0);
    const refunded = (limiter.refund as NonNullable<RateLimiter['refund']>).call(limiter, key, refund);
    if (refunded instanceof Promise) return refunded.then(() => this.#extension(estimate, actual, decision, refund));
    return this.#extension(estimate, actual, decision, refund);
  }

  #extension(requested: number, actual: number | null, decision: Decision | undefined, refunded: number): CostExtension | undefined {
    return this.extensions ? costExtension(requested, actual, decision, refunded) : undefined;
  }
}

function checkLimiter(owner: string, limiter: unknown): RateLimiter {
  const l = limiter as RateLimiter;
  if (typeof l !== 'object' || l === null || typeof l.consume !== 'function') typeError(owner, 'limiter', 'a RateLimiter (from @ratekeeper/core)', limiter);
  if (typeof l.refund !== 'function' || l.refundable === false) {
    throw new TypeError(`${owner}: limiter must refund (its store and algorithm support refund), to give back the difference between the estimate and the actual cost`);
  }
  return l;
}
