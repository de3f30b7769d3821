// @ratekeeper/graphql: GraphQL cost budgets per client over @ratekeeper/core, as an envelop (GraphQL
// Yoga) plugin and an Apollo Server plugin. Limiters, stores and clocks come from @ratekeeper/core.
export { type ApolloCostListener, type ApolloCostPlugin, type ApolloResolvedContext, type ApolloResponseContext, apolloCostBudget } from './apollo.js';
export type { CostBudgetOptions } from './budget.js';
export { CostModel, type OperationVariables } from './cost/model.js';
export type { CostModelOptions } from './cost/rules.js';
export { type EnvelopCostPlugin, type EnvelopExecuteDone, type EnvelopExecutionArgs, useCostBudget } from './envelop.js';
export type { CostExtension, ThrottleStatus } from './status.js';
