/**
 * apolloCostBudget: the cost budget as an Apollo Server 4 or 5 plugin. In `didResolveOperation` (once
 * per operation, batched ones each on their own, after parsing and validation and before execution)
 * the operation is charged its estimate; a refusal is thrown there as a GraphQLError, which Apollo
 * answers without executing anything, as HTTP 429 (or 400) with `Retry-After` from its
 * `extensions.http`. In `willSendResponse` the admitted operation is settled (refund to the actual
 * cost) and `extensions.cost` added. An incremental (`@defer`) response is charged its estimate and
 * not refunded.
 */
import type { DocumentNode, GraphQLSchema } from 'graphql';
import { Budget, type Charge, type CostBudgetOptions } from './budget.js';
import type { CostExtension } from './status.js';

/** ApolloResolvedContext: What the plugin reads of Apollo's request context once the operation is resolved. */
export interface ApolloResolvedContext<Context> {
  readonly schema: GraphQLSchema;
  readonly document: DocumentNode;
  readonly operationName: string | null;
  readonly request: { readonly variables?: Record<string, unknown> };
  readonly contextValue: Context;
}

/** ApolloResponseContext: What the plugin reads of Apollo's request context before the response goes out. */
export interface ApolloResponseContext {
  readonly response: { readonly body: { readonly kind: string; readonly singleResult?: { data?: unknown; extensions?: Record<string, unknown> } } };
}

/** ApolloCostListener: the request listener the plugin answers for each request. */
export interface ApolloCostListener<Context> {
  didResolveOperation(context: ApolloResolvedContext<Context>): Promise<void>;
  willSendResponse(context: ApolloResponseContext): Promise<void>;
}

/** ApolloCostPlugin: the Apollo Server plugin this package answers (structurally `ApolloServerPlugin`). */
export interface ApolloCostPlugin<Context> {
  requestDidStart(): Promise<ApolloCostListener<Context>>;
}

/** apolloCostBudget answers the Apollo Server plugin for `options` (validated here, once). */
export function apolloCostBudget<Context = Record<string, unknown>>(options: CostBudgetOptions<Context>): ApolloCostPlugin<Context> {
  const budget = new Budget<Context>('apolloCostBudget', options, mapHeaders);
  return {
    async requestDidStart() {
      let charge: Charge | undefined;
      let operation: Parameters<Budget<Context>['settle']>[1] | undefined;
      return {
        async didResolveOperation(context) {
          operation = { schema: context.schema, document: context.document, operationName: context.operationName, variables: context.request.variables };
          charge = await budget.charge(operation, context.contextValue);
          if (!charge.admitted) throw charge.error;
        },
        async willSendResponse({ response }) {
          const single = response.body.kind === 'single' ? response.body.singleResult : undefined;
          if (charge === undefined || operation === undefined || single === undefined) return;
          const cost: CostExtension | undefined = charge.admitted ? await budget.settle(charge, operation, single.data) : charge.cost;
          if (cost !== undefined) single.extensions = { ...single.extensions, cost };
        },
      };
    },
  };
}

/** Apollo Server reads `extensions.http.headers` as a Map. */
function mapHeaders(entries: readonly (readonly [string, string])[]): Map<string, string> {
  return new Map(entries);
}
