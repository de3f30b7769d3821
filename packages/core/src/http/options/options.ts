/**
 * The option registry: every option `rateLimit()` takes, named once, in its group, and each
 * algorithm's size options with their defaults. The shorthand (./shorthand.ts: which sizes an
 * algorithm takes, the defaults it builds with, the hint for a size it does not take), prepareRateLimit's
 * unknown-option check (../prepare.ts), `plans` (./plans.ts) and Fastify's per-route config (which
 * options choose the limiter) all read their lists here, so an option added here is known to each.
 * A size is checked by its limiter's constructor; every other option's default and validator are in
 * ./checks.ts, the registry's other half; what users see on hover is the JSDoc of the option types.
 */

export type AlgorithmShorthand = 'token-bucket' | 'sliding-window' | 'fixed-window' | 'first-request-window' | 'sliding-log' | 'gcra' | 'concurrency';

/** Every algorithm's size options and their defaults (concurrency's retryAfterMs is its limiter's own default). */
export const SIZES = {
  'token-bucket': { capacity: 60, refillPerSecond: 1 },
  'sliding-window': { limit: 60, windowMs: 60_000 },
  'fixed-window': { limit: 60, windowMs: 60_000 },
  'first-request-window': { limit: 60, windowMs: 60_000 },
  'sliding-log': { limit: 60, windowMs: 60_000 },
  gcra: { emissionIntervalMs: 1000, burst: 60 },
  concurrency: { limit: 10, retryAfterMs: 1000 },
} as const satisfies Record<AlgorithmShorthand, Readonly<Record<string, number>>>;

/** The algorithm names the shorthand takes, in the order errors list them. */
export const ALGORITHMS = Object.keys(SIZES) as readonly AlgorithmShorthand[];

/** Every size option of any algorithm, each named once. */
export const SIZE_OPTIONS = ['capacity', 'refillPerSecond', 'limit', 'windowMs', 'emissionIntervalMs', 'burst', 'retryAfterMs'] as const;

/** A size option's name. */
export type SizeOption = (typeof SIZE_OPTIONS)[number];

/** The shorthand options: the algorithm, its sizes, and the policy name, store and clock of the limiter built. */
export const SHORTHAND = ['algorithm', ...SIZE_OPTIONS, 'name', 'store', 'clock'] as const;

/** The options that choose the limiter: a ready one, the shorthand, or plans. */
export const LIMITER_OPTIONS = ['limiter', ...SHORTHAND, 'plans', 'plan'] as const;

/** The options about the request: whose it is, what it costs, and which requests are counted at all. */
export const REQUEST_OPTIONS = ['key', 'cost', 'skip', 'ipv6Subnet', 'missingIp', 'allowList', 'denyList'] as const;

/** The options about the answer and what follows it: headers, shadow mode, hooks, settling, delay mode. */
export const ANSWER_OPTIONS = ['headers', 'shadow', 'onDecision', 'telemetry', 'proxyWarning', 'countOutcome', 'settle', 'abandonedMs', 'mode', 'maxDelayMs'] as const;

/** Every option core's prepareRateLimit takes (an adapter adds its own, such as `handler`). */
export const OPTIONS: readonly string[] = [...LIMITER_OPTIONS, ...REQUEST_OPTIONS, ...ANSWER_OPTIONS];

/** sizesOf lists the size options `algorithm` takes. */
export function sizesOf(algorithm: AlgorithmShorthand): readonly SizeOption[] {
  return Object.keys(SIZES[algorithm]) as SizeOption[];
}
