/**
 * @ratekeeper/store-contract: the behaviour every Store must show, as one vitest suite a store's tests
 * call with a factory, the capabilities it claims, its differential and its burst (storeContractSuite,
 * the public API: README.md). Also exported, for the stores of this repository and with no promise
 * beyond it: the cross-process checks of bookings and leases, the one source of random histories, and
 * the mutant builds (which need ratekeeper's source tree).
 */
export { type Check, type CheckContext, contextFor } from './check.js';
export { CAPABILITIES, type Capability, type Skip, type StoreContractOptions } from './options.js';
export {
  ALGORITHMS,
  type AnySpec,
  type BookingStep,
  type GcraSpec,
  type HistoriesOptions,
  Instants,
  type LeaseSpec,
  MAX_LEASE_SPAN_MS,
  RATE_ALGORITHMS,
  RATE_OPS,
  type RateAlgorithm,
  type Spec,
  type Step,
  banHistories,
  bookingSteps,
  composites,
  historiesWith,
  leaseHistories,
  limitOf,
  makeLimiter,
  specs,
  startInstant,
  steps,
} from './differential/histories.js';
export { type Run, replayBans, replayBookings, replayLeases, replayRates } from './differential/replay.js';
export { DIFFERENTIAL_KEYS, type DifferentialMutant, type DifferentialOptions, type HistoryKind, MUTANT_RUNS } from './differential/differential-checks.js';
export { HOSTILE } from './clauses/rate-checks.js';
export { type BookingCheckOptions, bookingQueueChecks } from './processes/booking-checks.js';
export { BURST_MEMBERS, type Burst, type BurstMember, type BurstOptions, type BurstReport, LIMIT as BURST_LIMIT } from './processes/burst-checks.js';
export { type LeaseCheckOptions, type LeaseMutant, leaseChecks } from './processes/lease-checks.js';
export { type Made, storeChecks, storeContractSuite } from './suite.js';
export { failuresOf } from './processes/worker-reports.js';
export { WorkerPool, totalAdmitted } from './processes/worker-pool.js';
export { type Edit, KIT_MUTANTS, SQL_KIT_MUTANTS, buildRoot, mutantBuilder } from './mutant-builds.js';
export { transpileTree } from './transpile.js';
export { type CollectedWarning, type ProcessWarnings, warningsOnProcess } from './warnings.js';
export { closedPort, type Listener, listening, relay } from './faults/tcp.js';
export { type FaultProxy, faultProxy } from './faults/fault-proxy.js';
export { type RedisServer, startRedis } from './servers/redis-server.js';
export {
  type FaultRun,
  type FaultSample,
  type Measured,
  type NetworkFaultCheckOptions,
  type NetworkFaultOptions,
  type ScenarioOptions,
  measure,
  networkFaultChecks,
  networkFaults,
} from './faults/network-run.js';
export { type Forgotten, type ForgottenOptions, closeForgotten, forgottenConnection } from './faults/forgotten.js';
export { type Fired, OUTAGE_TIMEOUT_MS, type OutageCheckOptions, type OutageKind, refusedOutageChecks, requests } from './faults/outage-checks.js';
