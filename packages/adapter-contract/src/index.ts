/**
 * @ratekeeper/adapter-contract: the behaviour every HTTP adapter must show, as vitest suites run
 * through a per-framework Driver, plus the support the adapters' own tests share. Private and
 * test-only: imported as TypeScript source, never built.
 */
export type { Answer, ContractOptions, Driver, Mounts, RequestView, Served, Setup } from './driver.js';
export { type Counted, type Listening, type Sent, asyncLimiter, counting, expectPrintableHeaders, gated, listen, oneSocket, refusal } from './support.js';
export { abortSuite, abortedClientsAreQuiet } from './abort.js';
export { countingSuite } from './counting.js';
export { errorsSuite } from './errors.js';
export { handlerStatusSuite } from './handler-status.js';
export { type DecisionErrorMutant, ERROR_CASES, type ErrorCase, MODES, answersEveryError, decisionErrorsSuite, limiterFor } from './decision-errors.js';
export { withoutEscapes } from './escapes.js';
export { type Published, exportsSuite } from './exports.js';
export { type FaultMutants, type Mutant, SECRET, closedFailureIs503, faultsSuite, nothingAfterHeadersSent, secretNeverLeaks } from './faults.js';
export { type Resolves, ipSuite } from './ip.js';
export { abortedLeasesReturn, closeOnFinish, leasesSuite } from './leases.js';
export { listsSuite } from './lists.js';
export { optionsSuite } from './options.js';
export { outcomeSuite } from './outcome.js';
export { goneClientUncounted, perCaller, perCallerSuite } from './per-caller.js';
export { proxyWarningSuite } from './proxy-warning.js';
export { sharedNamesSuite } from './shared-names.js';
export { retrySuite } from './retry.js';
export { validationSuite } from './validation.js';
export { clientLeavesNoTrace, delaySuite } from './delay.js';
export { abortedBurstSuite, abortedUnitsComeBack } from './aborted-burst.js';
export { loginSuite, successfulLoginsNotBanned } from './login.js';
export { STORES, type StoreName, runsOn, stopRedis, storeOn } from './redis.js';
export { abortedOutcomeSuite, loginRecipeCountsAborts } from './aborted-outcome.js';
export { endsAtDisconnect, statusAtDisconnect } from './disconnect.js';
export { type Sent as WorkSent, type Tracked, type WorkApp, eventually, serveWork, tracked } from './serve-work.js';
export { type StoreCase, hasRedis, storeCases } from './stores.js';
export { leasesOutliveTheirClients, stormStaysWithin, workSuite } from './work.js';
export { admittedAfterPause, pauseSuite } from './pause.js';
