/**
 * useCostBudget: the cost budget as an envelop plugin, for GraphQL Yoga and any server built on
 * envelop. It hooks `onExecute`, which runs once per operation after parsing and validation (each
 * operation of a batched request on its own): the operation is charged its estimate there, refused
 * whole with `setResultAndStopExecution` when the budget cannot hold it, and settled in
 * `onExecuteDone` (refund to the actual cost, `extensions.cost` added). Denials carry
 * `extensions.http`, which Yoga answers as HTTP 429 (or 400) with `Retry-After`.
 *
 * An incremental result (`@defer`/`@stream`) is charged its estimate and not refunded; a subscription
 * is charged its estimate once, when it starts (`onSubscribe`), and never refunded.
 */
import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import { Budget, type Charge, type CostBudgetOptions, type Operation } from './budget.js';
import type { CostExtension } from './status.js';

/** EnvelopExecutionArgs: What the plugin reads of envelop's execution arguments. */
export interface EnvelopExecutionArgs<Context> {
  readonly schema: GraphQLSchema;
  readonly document: DocumentNode;
  readonly operationName?: string | null | undefined;
  readonly variableValues?: { readonly [name: string]: unknown } | null | undefined;
  readonly contextValue: Context;
}

/** EnvelopExecuteDone: What the plugin reads of envelop's onExecuteDone payload. */
export interface EnvelopExecuteDone {
  readonly result: unknown;
  setResult(result: ExecutionResult): void;
}

/** EnvelopCostPlugin: the envelop Plugin this package answers (structurally envelop's `Plugin`). */
export interface EnvelopCostPlugin<Context> {
  onExecute(payload: {
    readonly args: EnvelopExecutionArgs<Context>;
    setResultAndStopExecution(result: ExecutionResult): void;
  }): void | { onExecuteDone(payload: EnvelopExecuteDone): void | Promise<void> } | Promise<void | { onExecuteDone(payload: EnvelopExecuteDone): void | Promise<void> }>;
  onSubscribe(payload: { readonly args: EnvelopExecutionArgs<Context>; setResultAndStopExecution(result: ExecutionResult): void }): void | Promise<void>;
}

/** useCostBudget answers the envelop plugin for `options` (validated here, once). */
export function useCostBudget<Context = Record<string, unknown>>(options: CostBudgetOptions<Context>): EnvelopCostPlugin<Context> {
  const budget = new Budget<Context>('useCostBudget', options, objectHeaders);
  return {
    onExecute: function costBudget({ args, setResultAndStopExecution }) {
      const operation = operationOf(args);
      const charged = budget.charge(operation, args.contextValue);
      const then = (charge: Charge) => {
        if (!charge.admitted) return setResultAndStopExecution(denial(charge));
        return { onExecuteDone: ({ result, setResult }: EnvelopExecuteDone) => settle(budget, charge, operation, result, setResult) };
      };
      return charged instanceof Promise ? charged.then(then) : then(charged);
    },
    onSubscribe: function costBudgetSubscription({ args, setResultAndStopExecution }) {
      const charged = budget.charge(operationOf(args), args.contextValue);
      const then = (charge: Charge) => {
        if (!charge.admitted) setResultAndStopExecution(denial(charge));
      };
      return charged instanceof Promise ? charged.then(then) : then(charged);
    },
  };
}

function operationOf<Context>(args: EnvelopExecutionArgs<Context>): Operation {
  return { schema: args.schema, document: args.document, operationName: args.operationName, variables: args.variableValues };
}

function denial(charge: Charge & { admitted: false }): ExecutionResult {
  return charge.cost === undefined ? { errors: [charge.error] } : { errors: [charge.error], extensions: { cost: charge.cost } };
}

function settle<Context>(
  budget: Budget<Context>,
  charge: Charge & { admitted: true },
  operation: Operation,
  result: unknown,
  setResult: (r: ExecutionResult) => void,
): void | Promise<void> {
  if (typeof result !== 'object' || result === null || Symbol.asyncIterator in result) return;
  const single = result as ExecutionResult;
  const write = (cost: CostExtension | undefined) => {
    if (cost !== undefined) setResult({ ...single, extensions: { ...single.extensions, cost } });
  };
  const settled = budget.settle(charge, operation, single.data);
  return settled instanceof Promise ? settled.then(write) : write(settled);
}

/** Yoga reads `extensions.http.headers` as a plain object. */
function objectHeaders(entries: readonly (readonly [string, string])[]): Record<string, string> {
  return Object.fromEntries(entries);
}
