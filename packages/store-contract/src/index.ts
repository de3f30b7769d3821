/**
 * @ratekeeper/store-contract: the behaviour every Store must show, as one vitest suite a store's tests
 * call with a factory and the capabilities it claims. Private and test-only: imported as TypeScript
 * source, never built.
 */
export { type Check, type CheckContext, contextFor } from './check.js';
export { CAPABILITIES, type Capability, type StoreContractOptions } from './options.js';
export {
  ALGORITHMS,
  type BookingStep,
  Instants,
  type Spec,
  type Step,
  banHistories,
  bookingSteps,
  composites,
  limitOf,
  makeLimiter,
  specs,
  startInstant,
  steps,
} from './histories.js';
export { HOSTILE } from './rate-checks.js';
export { type BookingCheckOptions, bookingQueueChecks } from './booking-checks.js';
export { type LeaseCheckOptions, type LeaseMutant, leaseChecks } from './lease-checks.js';
export { type Made, storeChecks, storeContractSuite } from './suite.js';
export { failuresOf } from './worker-reports.js';
export { WorkerPool, totalAdmitted } from './worker-pool.js';
export { type Edit, mutantBuilder } from './mutant-builds.js';
