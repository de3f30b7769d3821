/**
 * MUTANTS of the HTTP half of core, each a known bug class wrapped around the real function, so that
 * the properties and harnesses in this folder show they can fail:
 * - ipKey variants: IPv4-mapped addresses recognised by the `::ffff:` text prefix only (the
 *   express-rate-limit 8.0–8.2 class, CVE-2026-30827: every other spelling masks to one shared /56);
 *   a key cut from the text's first four groups (spelling-dependent); the zone id kept in the key; a
 *   mask one bit too long; IPv4-compatible ::a.b.c.d grouped by prefix like other IPv6 (one /56 for
 *   2^32 addresses, what ipKey did before it read ::/96 as IPv4); the unspecified address refused by
 *   its two usual texts only; a port stripped as whatever digits follow the last colon.
 * - Retry-After rounded to the nearest second instead of up (the redis-cell#56 / open-balena class).
 * - A plan that counts requests without a usable IP under one shared key (express's K26 class), and
 *   one that hands the store's own error to the framework (fastify's "Connection is closed." class).
 */
import { type Decision, ipKey } from '../../src/index.js';
import type { PreparedRateLimit } from '../../src/adapter.js';
import { carriesIpv4, hostOf, ipv4, ipv6Groups } from '../../src/http/client/ip.js';
import { type AfterHooks, type Charge, adjust } from '../../src/http/settle/settle.js';
import { type Watch, finished } from '../../src/http/settle/work.js';

export type KeyOf = (ip: string, bits?: number) => string | undefined;

export const prefixMappedIpKey: KeyOf = (ip, bits = 56) => {
  const key = ipKey(ip, bits);
  if (key === undefined || key.includes(':') || !ip.includes(':') || /^::ffff:/i.test(ip)) return key;
  return `${new Array<string>(Math.ceil(bits / 16)).fill('0').join(':')}::/${bits}`;
};

export const textPrefixIpKey: KeyOf = (ip, bits = 56) => {
  const key = ipKey(ip, bits);
  if (key === undefined || !key.includes(':')) return key;
  return `${ip
    .toLowerCase()
    .split(':')
    .slice(0, Math.ceil(bits / 16))
    .join(':')}::/${bits}`;
};

export const zoneKeptIpKey: KeyOf = (ip, bits = 56) => {
  const key = ipKey(ip, bits);
  const zone = ip.indexOf('%');
  return key === undefined || zone === -1 ? key : `${key}${ip.slice(zone)}`;
};

export const longMaskIpKey: KeyOf = (ip, bits = 56) => ipKey(ip, bits + 1);

/** compatibleGroupedIpKey keys IPv4-compatible ::a.b.c.d as the /bits prefix of ::, all 2^32 in one bucket. */
export const compatibleGroupedIpKey: KeyOf = (ip, bits = 56) => {
  const key = ipKey(ip, bits);
  if (key === undefined || key.includes(':') || !ip.includes(':')) return key;
  const groups = ipv6Groups(ip);
  if (groups === undefined || !groups.slice(0, 6).every((g) => g === 0)) return key;
  return `${new Array<string>(Math.ceil(bits / 16)).fill('0').join(':')}::/${bits}`;
};

/**
 * unspecifiedByTextIpKey refuses the unspecified address by its two usual texts only, "0.0.0.0" and
 * "::": every other spelling (::0, ::ffff:0.0.0.0, [::]:443) shares one key again.
 */
export const unspecifiedByTextIpKey: KeyOf = (ip, bits = 56) => {
  const key = ipKey(ip, bits);
  if (key !== undefined || ip === '0.0.0.0' || ip === '::') return key;
  const host = hostOf(ip);
  if (host === undefined) return undefined;
  const groups = host.includes(':') ? ipv6Groups(host) : undefined;
  const unspecified = groups === undefined ? ipv4(host) === '0.0.0.0' : carriesIpv4(groups) && groups[6] === 0 && groups[7] === 0;
  return unspecified ? '0.0.0.0' : undefined;
};

/** lastColonPortIpKey strips a port as "whatever follows the last colon, if digits": IPv6 loses its last group. */
export const lastColonPortIpKey: KeyOf = (ip, bits = 56) => ipKey(ip.replace(/^\[(.*)\]$|:\d{1,5}$/, '$1'), bits);

/** roundedRetryAfterSeconds rounds the wait to the nearest second (at least 1). */
export function roundedRetryAfterSeconds(decision: Decision): number | undefined {
  return Number.isFinite(decision.retryAfterMs) ? Math.max(1, Math.round(decision.retryAfterMs / 1000)) : undefined;
}

/** sharedBucketPlan counts a request without an IP under one fallback address instead of refusing it. */
export function sharedBucketPlan<Req>(plan: PreparedRateLimit<Req>): PreparedRateLimit<Req> {
  return { ...plan, decide: (req, ip) => plan.decide(req, ipKey(ip) === undefined ? '192.0.2.0' : ip) };
}

/** leakyPlan rejects with the limiter's own error instead of the opaque RateLimiterError. */
export function leakyPlan<Req>(plan: PreparedRateLimit<Req>): PreparedRateLimit<Req> {
  return {
    ...plan,
    decide(req, ip) {
      const outcome = plan.decide(req, ip);
      return outcome instanceof Promise ? outcome.catch((error: unknown) => Promise.reject((error as Error).cause)) : outcome;
    },
  };
}

/**
 * unawaitedKeyOptions is the "async key not awaited" bug: the key function's answer is used as it
 * comes, so every promise becomes the one key "[object Promise]" and all callers share one bucket.
 */
export function unawaitedKeyOptions<O extends { readonly key?: (req: never) => unknown }>(options: O): O {
  const key = options.key as ((req: unknown) => unknown) | undefined;
  return key === undefined ? options : { ...options, key: (req: unknown) => String(key(req)) };
}

/**
 * doubleSettleWatch is the "settles on 'finish' and on 'close'" bug (express-rate-limit's early-close
 * class): both events fire for a completed response, so every request is settled twice.
 */
export function doubleSettleWatch<Req>(owner: string, hooks: AfterHooks<Req>, charges: WeakMap<object, Charge>): Watch<Req> {
  return (req, res, decision) => {
    const charge = charges.get(req as object);
    if (charge === undefined || !decision.allowed) return undefined;
    const settle = () => void adjust(owner, charge, finished(res), req, hooks);
    (res as unknown as { once(e: string, f: () => void): void }).once('finish', settle);
    res.once('close', settle);
    return undefined;
  };
}
