/**
 * CostModel: prices GraphQL operations. `estimate` is what an operation may cost at most, before it
 * runs (estimate.ts); `actual` is what it did cost, read from its response (actual.ts); both from the
 * same weights (rules.ts). An estimate that read no variable (no list argument or `@skip`/`@include`
 * given by one) is cached per parsed document and operation name, in a WeakMap: servers that cache
 * their parsed documents (GraphQL Yoga, Apollo Server) price a repeated operation with one lookup.
 *
 * A model is immutable and may be shared by any number of servers and plugins.
 */
import type { DocumentNode, GraphQLSchema } from 'graphql';
import { actualOf } from './actual.js';
import { read } from './document.js';
import { estimateOf } from './estimate.js';
import { CostRules, type CostModelOptions } from './rules.js';

/** OperationVariables: a request's variables, as servers hand them over. */
export type OperationVariables = Readonly<Record<string, unknown>> | null | undefined;

export class CostModel {
  readonly #rules: CostRules;
  readonly #cache = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, number>>>();

  constructor(options?: CostModelOptions) {
    this.#rules = new CostRules('CostModel', options);
  }

  /** estimate answers the most `operationName` of `document` may cost with these variables (0 when there is no such operation). */
  estimate(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null, variables?: OperationVariables): number {
    let bySchema = this.#cache.get(schema);
    const name = operationName ?? '';
    const cached = bySchema?.get(document)?.get(name);
    if (cached !== undefined) return cached;
    const reading = read(schema, document, operationName, variables);
    if (reading === undefined) return 0;
    const cost = estimateOf(this.#rules, reading);
    if (!reading.usedVariables) {
      if (bySchema === undefined) this.#cache.set(schema, (bySchema = new WeakMap()));
      let byName = bySchema.get(document);
      if (byName === undefined) bySchema.set(document, (byName = new Map()));
      byName.set(name, cost);
    }
    return cost;
  }

  /** actual answers what the operation cost, given the `data` of its response (uncapped: see actual.ts). */
  actual(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, variables: OperationVariables, data: unknown): number {
    const reading = read(schema, document, operationName, variables);
    return reading === undefined ? 0 : actualOf(this.#rules, reading, data);
  }
}
