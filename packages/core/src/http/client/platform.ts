/**
 * Client addresses on the platforms that hand a Web Request to the application (Cloudflare Workers,
 * Fly.io, Vercel, Netlify), for the adapters whose address is the caller's to pass (fetch, Hono).
 *
 * `X-Forwarded-For` is a list every proxy *appends* to, so its leftmost entry is whatever the client
 * sent: keyed on it, every request with a fresh made-up value gets a fresh bucket, and a victim's
 * address in it spends the victim's (brendanlong/lion-reader#983 on Fly, authup/authup#3249). So
 * `ipFrom` never reads the leftmost hop:
 * - `'cloudflare'`: `CF-Connecting-IP`, the one address Cloudflare's edge accepted the connection
 *   from, which it sets on every request, overwriting a client's own.
 * - `'fly'`: `Fly-Client-IP`, the address Fly's proxy accepted the connection from, which it sets.
 * - `'vercel'`: `x-vercel-forwarded-for` (Vercel's own, kept when a proxy in front of Vercel rewrites
 *   `x-forwarded-for`), else `x-real-ip`; Vercel sets both and overwrites client values.
 * - `'netlify'`: `x-nf-client-connection-ip`, the connecting address Netlify sets for its Functions.
 *   (Netlify Edge Functions get no such header: pass their `context.ip`.)
 * - `{ hops: n }`: behind n proxies of your own that each append the address they saw to
 *   `X-Forwarded-For`, the n-th entry from the right: the rightmost hop no proxy of yours wrote,
 *   which is the client's. A list shorter than n did not come through your proxies: no address.
 * A platform header read where that platform's edge did not set it (the app reached another way,
 * a local run) gives no address, never a fallback to a header the client wrote: the adapters then
 * apply `missingIp` (a MissingIpError by default), which makes the wrong setting loud. A list in a
 * platform header is read by its rightmost entry, the one the platform wrote.
 */
import { describeValue } from '../../validate.js';

const OWNER = 'ipFrom';
// More proxies of one's own than this in front of an app is a mistake, not a topology.
const MAX_HOPS = 32;

/** The platforms whose client-address header ipFrom knows. */
export type Platform = 'cloudflare' | 'fly' | 'netlify' | 'vercel';

/** The request headers ipFrom reads, lower case, in the order it reads them, per platform. */
export const PLATFORM_HEADERS: Readonly<Record<Platform, readonly string[]>> = Object.freeze({
  cloudflare: Object.freeze(['cf-connecting-ip']),
  fly: Object.freeze(['fly-client-ip']),
  netlify: Object.freeze(['x-nf-client-connection-ip']),
  vercel: Object.freeze(['x-vercel-forwarded-for', 'x-real-ip']),
});

/** HeaderSource is the little of a Request ipFrom reads. */
export interface HeaderSource {
  readonly headers: { get(name: string): string | null };
}

/** ProxyHops names how many proxies of your own append to X-Forwarded-For in front of the app. */
export interface ProxyHops {
  readonly hops: number;
}

/** ipFrom returns the reader of a request's client address on `from` (see above); undefined when there is none. */
export function ipFrom(from: Platform | ProxyHops): (request: HeaderSource) => string | undefined {
  if (typeof from === 'string' && Object.hasOwn(PLATFORM_HEADERS, from)) {
    const [first, second] = PLATFORM_HEADERS[from];
    if (second === undefined) return (request) => lastEntry(request.headers.get(first as string));
    return (request) => lastEntry(request.headers.get(first as string)) ?? lastEntry(request.headers.get(second));
  }
  if (typeof from !== 'object' || from === null || Array.isArray(from)) {
    throw new TypeError(`${OWNER}: from must be 'cloudflare', 'fly', 'netlify', 'vercel' or { hops: n }, got ${describeValue(from)}`);
  }
  const hops: unknown = (from as Partial<ProxyHops>).hops;
  if (typeof hops !== 'number' || !Number.isInteger(hops) || hops < 1 || hops > MAX_HOPS) {
    const message = `${OWNER}: hops must be an integer from 1 to ${MAX_HOPS}, got ${describeValue(hops)}`;
    throw typeof hops === 'number' ? new RangeError(message) : new TypeError(message);
  }
  return (request) => forwardedHop(request.headers.get('x-forwarded-for'), hops);
}

/** lastEntry is the rightmost comma-separated entry of a header value, trimmed; undefined when empty or absent. */
function lastEntry(value: string | null): string | undefined {
  if (value === null) return undefined;
  const entry = value.slice(value.lastIndexOf(',') + 1).trim();
  return entry === '' ? undefined : entry;
}

/** forwardedHop is the `hops`-th entry of an X-Forwarded-For value from the right; undefined when the list is shorter. */
function forwardedHop(value: string | null, hops: number): string | undefined {
  if (value === null) return undefined;
  const entries = value.split(',');
  if (entries.length < hops) return undefined;
  const entry = (entries[entries.length - hops] as string).trim();
  return entry === '' ? undefined : entry;
}
