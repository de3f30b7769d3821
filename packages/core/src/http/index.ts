export { DEFAULT_IPV6_SUBNET, checkIpv6Subnet, ipKey } from './client/ip.js';
export { clientKey } from './client/client-key.js';
export { IpList } from './client/ip-list.js';
export { type RouteTemplate, routeKeyOf } from './client/route-key.js';
export { type HeaderSource, PLATFORM_HEADERS, type Platform, type ProxyHops, ipFrom } from './client/platform.js';
// policyField: 0.1.0 exported it from the root, whose deprecation sends its users here.
export { type HeaderSetter, type HeaderStyle, limitField, policyField, retryAfterSeconds, seconds, writeHeaders } from './respond/headers.js';
export { type LimitedResponse, PROBLEM_CONTENT_TYPE, limitedResponse } from './respond/problem.js';
export {
  type AlgorithmShorthand,
  type ConcurrencyShorthand,
  type FirstRequestWindowShorthand,
  type FixedWindowShorthand,
  type GcraShorthand,
  type LimiterChoice,
  type ReadyLimiter,
  type ShorthandCommon,
  type SlidingLogShorthand,
  type SlidingWindowShorthand,
  type TokenBucketShorthand,
  type WindowSizes,
  chooseLimiter,
} from './options/shorthand.js';
export { LIMITER_OPTIONS, OPTIONS, SHORTHAND } from './options/options.js';
export {
  type RateLimitAdapter,
  type LimiterSource,
  type RateLimitBaseOptions,
  type RateLimitOptions,
  type PreparedRateLimit,
  type RateLimitPlan,
  type RateLimitPlans,
  prepareRateLimit,
} from './prepare.js';
export type { Decide, Decided } from './decide/decide.js';
export { MissingIpError, RateLimiterError } from './decide/errors.js';
export { PROXY_WARNING_CODES, type ProxyFinding, type ProxySetting, ProxyWarning } from './client/proxy-check.js';
// MAX_LIMITED_BODIES: 0.1.0 exported it from the root, whose deprecation sends its users here.
export { type LimitedBody, LimitedBodies, MAX_LIMITED_BODIES } from './respond/limited-bodies.js';
export { CLIENT_CLOSED, type Claim, type Finished, type Settle } from './settle/settle.js';
export { type NodeResponse, type Watch, type Work, abandon } from './settle/work.js';
export { type ClientSocket, DEFAULT_MAX_DELAY_MS, type DelayOptions } from './decide/delay.js';
export { type NodeHeaders, bySocket, replaceNodeHeader, sendLimited, setNodeHeader } from './respond/node.js';
export { type NodeAnswer, answerNode } from './respond/node-answer.js';
export { optionError, optionalFunction, optionsOf, typeError, wholeNumber } from './options/option-checks.js';
