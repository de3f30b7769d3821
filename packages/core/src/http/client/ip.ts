/**
 * Client-IP keys. `ipKey` turns the IP a framework resolved for a request into the key the limiter
 * counts under:
 * - IPv4 is kept as its canonical dotted quad.
 * - IPv4-mapped IPv6 (::ffff:0:0/96, in any spelling: `::ffff:1.2.3.4`, `::ffff:102:304`, upper case,
 *   zero-padded, fully expanded, with a zone id) is the IPv4 address it carries, recognised by address
 *   range after parsing, never by string prefix. So is NAT64's well-known prefix 64:ff9b::/96, and so
 *   is the deprecated IPv4-compatible form ::a.b.c.d (::/96, RFC 4291 2.5.5.1) but for the loopback
 *   ::1: one client is one key in whichever form it arrives, and the 2^32 addresses of ::/96 do not
 *   share the one /56 bucket of 0:0:0:0::/56.
 * - Other IPv6 addresses are grouped by prefix (default /56), because one subscriber usually holds a
 *   whole /56 or /64 and could otherwise rotate through billions of keys. The key is the masked prefix
 *   in a canonical form, so every spelling of one network is one key.
 * - A port is not part of the client: `1.2.3.4:443` and `[2001:db8::1]:443` (what some proxies write in
 *   X-Forwarded-For, and the frameworks pass on verbatim as the client IP) are the address without it,
 *   and `[2001:db8::1]` without its brackets. An IPv6 address takes a port only inside brackets (RFC
 *   3986), a port is 0 to 65535 in decimal; anything else is malformed.
 * - The unspecified address (0.0.0.0, ::, and every spelling that carries 0.0.0.0: `::ffff:0.0.0.0`,
 *   `0:0:0:0:0:0:0:0`, ...) names no client: it has no key, or every such request would share one.
 * Anything that is not one client's IP address (undefined, "", "unknown", a forwarded list, a malformed
 * port, the unspecified address) gives undefined: the caller must then apply its missing-IP policy,
 * never fall back to a shared bucket.
 */
import { describeValue } from '../../validate.js';

export const DEFAULT_IPV6_SUBNET = 56;

/** checkIpv6Subnet validates a prefix length for IPv6 grouping: an integer from 32 to 64. */
export function checkIpv6Subnet(owner: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 32 || value > 64) {
    const message = `${owner}: ipv6Subnet must be an integer from 32 to 64, got ${describeValue(value)}`;
    throw typeof value === 'number' ? new RangeError(message) : new TypeError(message);
  }
  return value;
}

const UNSPECIFIED = '0.0.0.0';
// The longest text read as an address (IPv6 with a dotted quad and a zone id), then with brackets and a port.
const MAX_ADDRESS = 64;
const MAX_WRITTEN = MAX_ADDRESS + '[]:65535'.length;

// A dotted quad already in canonical form (no leading zeros): the key is the string itself.
const CANONICAL_IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** ipKey is the limiter key for a client IP, or undefined when `ip` is not an IP address. */
export function ipKey(ip: string | undefined | null, ipv6Subnet = DEFAULT_IPV6_SUBNET): string | undefined {
  if (typeof ip !== 'string' || ip.length === 0 || ip.length > MAX_WRITTEN) return undefined;
  // Fast paths for what frameworks hand over on almost every request ("1.2.3.4", and "::ffff:1.2.3.4"
  // from a dual-stack socket); they answer exactly what the general parser below answers.
  if (CANONICAL_IPV4.test(ip)) return ip === UNSPECIFIED ? undefined : ip;
  if (ip.startsWith('::ffff:')) {
    const tail = ip.slice(7);
    if (CANONICAL_IPV4.test(tail)) return tail === UNSPECIFIED ? undefined : tail;
  }
  const host = hostOf(ip);
  if (host === undefined || host.length > MAX_ADDRESS) return undefined;
  if (host.indexOf(':') === -1) return client(ipv4(host));
  const groups = ipv6Groups(host);
  if (groups === undefined) return undefined;
  if (carriesIpv4(groups)) {
    const hi = groups[6] as number;
    const lo = groups[7] as number;
    return client(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  return maskedPrefix(groups, ipv6Subnet);
}

/** client drops the unspecified address (:: carries it too), which names no client. */
const client = (quad: string | undefined): string | undefined => (quad === UNSPECIFIED ? undefined : quad);

/**
 * hostOf is the address part of `text`: without the port of `a.b.c.d:port` or `[v6]:port`, without
 * the brackets of `[v6]`; `text` itself when it has neither; undefined when the port or the brackets
 * are malformed (an empty or non-decimal port, one above 65535, `[1.2.3.4]`, a lone bracket).
 */
export function hostOf(text: string): string | undefined {
  if (text.charCodeAt(0) === 0x5b) {
    const close = text.indexOf(']');
    const inside = text.slice(1, close);
    return close !== -1 && inside.includes(':') && isPort(text.slice(close + 1), true) ? inside : undefined;
  }
  const colon = text.indexOf(':');
  // Two colons or more: IPv6, whose port would have needed brackets; none: no port at all.
  if (colon === -1 || text.indexOf(':', colon + 1) !== -1) return text;
  return isPort(text.slice(colon), false) ? text.slice(0, colon) : undefined;
}

/** isPort accepts `:` and 1 to 5 decimal digits up to 65535 (or nothing, when `optional`). */
function isPort(text: string, optional: boolean): boolean {
  if (text === '') return optional;
  return /^:\d{1,5}$/.test(text) && Number(text.slice(1)) <= 65535;
}

/**
 * carriesIpv4 recognises the ranges whose last 32 bits are a client's IPv4 address: IPv4-mapped
 * ::ffff:0:0/96; the NAT64 well-known prefix 64:ff9b::/96 (RFC 6052), behind which every IPv4 client
 * of a NAT64 gateway would otherwise share one /56 bucket; and IPv4-compatible ::/96 but for the
 * loopback ::1, which is IPv6's own (:: carries 0.0.0.0, the unspecified address of either family).
 */
export function carriesIpv4(g: readonly number[]): boolean {
  if (g[2] !== 0 || g[3] !== 0 || g[4] !== 0) return false;
  if (g[0] === 0 && g[1] === 0) return g[5] === 0xffff || (g[5] === 0 && (g[6] !== 0 || g[7] !== 1));
  return g[0] === 0x64 && g[1] === 0xff9b && g[5] === 0;
}

/** ipv4 returns the canonical dotted quad, or undefined when `text` is not one. */
export function ipv4(text: string): string | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  for (const part of parts) if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
  return parts.map(Number).join('.');
}

/** ipv6Groups parses an IPv6 address (zone id and dotted-quad tail allowed) into eight 16-bit groups. */
export function ipv6Groups(text: string): number[] | undefined {
  const zone = text.indexOf('%');
  const address = (zone === -1 ? text : text.slice(0, zone)).toLowerCase();
  const halves = address.split('::');
  if (halves.length > 2) return undefined;
  // A dotted quad may only end the address: `1.2.3.4::` is not an address.
  const head = parseGroups(halves[0] as string, halves.length === 1);
  const tail = halves.length === 2 ? parseGroups(halves[1] as string, true) : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

function parseGroups(text: string, quadLast: boolean): number[] | undefined {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: number[] = [];
  for (const [i, part] of parts.entries()) {
    if (quadLast && i === parts.length - 1 && part.includes('.')) {
      const quad = ipv4(part);
      if (quad === undefined) return undefined;
      const [a, b, c, d] = quad.split('.').map(Number) as [number, number, number, number];
      groups.push((a << 8) | b, (c << 8) | d);
    } else if (/^[0-9a-f]{1,4}$/.test(part)) {
      groups.push(parseInt(part, 16));
    } else {
      return undefined;
    }
  }
  return groups;
}

/** maskedPrefix renders the first `bits` bits of the address as `g:g:g:g::/bits` (hex, no zero padding). */
function maskedPrefix(groups: number[], bits: number): string {
  const kept: string[] = [];
  for (let i = 0; i * 16 < bits; i++) {
    const keep = Math.min(16, bits - i * 16);
    const mask = (0xffff << (16 - keep)) & 0xffff;
    kept.push(((groups[i] as number) & mask).toString(16));
  }
  return `${kept.join(':')}::/${bits}`;
}
