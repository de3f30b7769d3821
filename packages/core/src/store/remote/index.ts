/**
 * The remote store kit: what every store that decides on a server (Redis, PostgreSQL, MySQL, a Durable
 * Object) shares, so that the failure policy and its guarantees are one implementation: the Remote that
 * bounds every call and judges the server by its silence while this process listens (./remote.ts), the
 * server clock behind the deadlines that keep a call from being decided twice (./server-clock.ts), the
 * failures and their event payload (./failure.ts), the failure policy's decisions (./decisions.ts), the
 * fallback's share of a limit (./fallback.ts) and the peer count it divides by (./peers.ts), the
 * refunds owed across an outage (./owed.ts), the
 * failure options with their defaults and messages (./options.ts), and the one-time warning of a store
 * deciding without its server, with the causes a remote store names (./failure-warning.ts,
 * ./failure-causes.ts); a store that is not remote (SQLite, Durable Objects) names its own causes.
 */
export { type Interpret, type Request, type RemoteOptions, MAX_WAIT_FACTOR, Remote } from './remote.js';
export { ServerClock } from './server-clock.js';
export { Failure, type FailureInfo, type FailureReason, TIMEOUT, UNAVAILABLE, failureInfo, unreachable } from './failure.js';
export { CLOSED_RETRY_AFTER_MS, type FailurePolicy, closedDecision, decideByPolicy, fallbackDecision, openDecision } from './decisions.js';
export { Fallback, fallbackPolicy } from './fallback.js';
export { MAX_OWED, Owed } from './owed.js';
export { type FailureCause, type FailureWarningSource, failureWarner, forgetFailureWarnings, warnFailureOnce } from './failure-warning.js';
export { type RemoteServer, remoteFailureCause } from './failure-causes.js';
export { BEAT_MS, MEMBER_TTL_MS, Peers, peerId } from './peers.js';
export {
  DEFAULT_PROBE_INTERVAL_MS,
  DEFAULT_TIMEOUT_MS,
  FAILURE_OPTIONS,
  type FailureOptions,
  type FallbackStore,
  type ResolvedFailureOptions,
  failureWarningOption,
  optionFail,
  resolveFailureOptions,
} from './options.js';
