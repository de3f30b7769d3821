/**
 * @ratekeeper/adapter-contract: the behaviour every HTTP adapter must show, as vitest suites run
 * through a per-framework Driver, plus the support the adapters' own tests share. Private and
 * test-only: imported as TypeScript source, never built.
 */
export type { Answer, ContractOptions, Driver, Mounts, RequestView, Served, Setup } from './driver.js';
export { type Counted, type Listening, type Sent, asyncLimiter, counting, expectPrintableHeaders, gated, listen, oneSocket, refusal } from './support.js';
export { abortSuite, abortedClientsAreQuiet } from './errors/abort.js';
export { countingSuite } from './answer/counting.js';
export { errorsSuite } from './errors/errors.js';
export { handlerStatusSuite } from './answer/handler-status.js';
export { type DecisionErrorMutant, ERROR_CASES, type ErrorCase, MODES, answersEveryError, decisionErrorsSuite, limiterFor } from './errors/decision-errors.js';
export { withoutEscapes } from './errors/escapes.js';
export { type Published, exportsSuite } from './answer/exports.js';
export { type FaultMutants, type Mutant, SECRET, closedFailureIs503, faultsSuite, nothingAfterHeadersSent, secretNeverLeaks } from './errors/faults.js';
export { type Resolves, ipSuite } from './client/ip.js';
export { abortedLeasesReturn, closeOnFinish, leasesSuite } from './work/leases.js';
export { listsSuite } from './client/lists.js';
export { optionsSuite } from './answer/options.js';
export { firstRequestRoutesSuite } from './answer/first-request-routes.js';
export { outcomeSuite } from './work/outcome.js';
export { goneClientUncounted, perCaller, perCallerSuite } from './client/per-caller.js';
export { proxyWarningSuite } from './client/proxy-warning.js';
export { HOSTILE_SPELLINGS, LIMIT, type RouteApp, type RouteServed, parametersLandInOneBucket, routeKeySuite, spellingsLandInOneBucket } from './client/route-keys.js';
export { sharedNamesSuite } from './client/shared-names.js';
export { retrySuite } from './answer/retry.js';
export { validationSuite } from './answer/validation.js';
export { type HandlerWording, refusalSuite } from './answer/refusals.js';
export { clientLeavesNoTrace, delaySuite } from './delay/delay.js';
export { abortedBurstSuite, abortedUnitsComeBack } from './delay/aborted-burst.js';
export { loginSuite, successfulLoginsNotBanned } from './work/login.js';
export { STORES, type StoreName, runsOn, stopRedis, storeOn } from './redis.js';
export { abortedOutcomeSuite, loginRecipeCountsAborts } from './work/aborted-outcome.js';
export { endsAtDisconnect, statusAtDisconnect } from './errors/disconnect.js';
export { type WorkSent, type Tracked, type WorkApp, eventually, serveWork, tracked } from './work/serve-work.js';
export { type StoreCase, hasRedis, storeCases } from './stores.js';
export { leasesOutliveTheirClients, stormStaysWithin, workSuite } from './work/work.js';
export { admittedAfterPause, pauseSuite } from './work/pause.js';
export { type Flooded, rapidReset } from './work/h2-flood.js';
export { type H2App, type H2Options, LEASES, PAIRS, closeWhenSent, rapidResetSuite, withinLeases } from './work/rapid-reset.js';
