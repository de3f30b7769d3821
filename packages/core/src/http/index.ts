export { DEFAULT_IPV6_SUBNET, checkIpv6Subnet, ipKey } from './ip.js';
export { IpList } from './ip-list.js';
export { type HeaderSetter, type HeaderStyle, limitField, policyField, retryAfterSeconds, seconds, writeHeaders } from './headers.js';
export { type LimitedResponse, PROBLEM_CONTENT_TYPE, limitedResponse } from './problem.js';
export { type AlgorithmShorthand, type LimiterChoice, chooseLimiter } from './shorthand.js';
export { MissingIpError, type RateLimitOptions, type RateLimitPlan, RateLimiterError, prepareRateLimit } from './plan.js';
export { type LimitedBody, LimitedBodies, MAX_ENTRIES as MAX_LIMITED_BODIES } from './limited-bodies.js';
