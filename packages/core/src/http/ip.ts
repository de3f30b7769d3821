/**
 * Client-IP keys. `ipKey` turns the IP a framework resolved for a request into the key the limiter
 * counts under:
 * - IPv4 is kept as its canonical dotted quad.
 * - IPv4-mapped IPv6 (::ffff:0:0/96, in any spelling: `::ffff:1.2.3.4`, `::ffff:102:304`, upper case,
 *   zero-padded, fully expanded, with a zone id) is the IPv4 address it carries, recognised by address
 *   range after parsing, never by string prefix. So is NAT64's well-known prefix 64:ff9b::/96.
 * - Other IPv6 addresses are grouped by prefix (default /56), because one subscriber usually holds a
 *   whole /56 or /64 and could otherwise rotate through billions of keys. The key is the masked prefix
 *   in a canonical form, so every spelling of one network is one key.
 * Anything that is not an IP address (undefined, "", "unknown", a forwarded list) gives undefined: the
 * caller must then apply its missing-IP policy, never fall back to a shared bucket.
 */
import { describeValue } from '../validate.js';

export const DEFAULT_IPV6_SUBNET = 56;

/** checkIpv6Subnet validates a prefix length for IPv6 grouping: an integer from 32 to 64. */
export function checkIpv6Subnet(owner: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 32 || value > 64) {
    const message = `${owner}: ipv6Subnet must be an integer from 32 to 64, got ${describeValue(value)}`;
    throw typeof value === 'number' ? new RangeError(message) : new TypeError(message);
  }
  return value;
}

// A dotted quad already in canonical form (no leading zeros): the key is the string itself.
const CANONICAL_IPV4 = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** ipKey is the limiter key for a client IP, or undefined when `ip` is not an IP address. */
export function ipKey(ip: string | undefined | null, ipv6Subnet = DEFAULT_IPV6_SUBNET): string | undefined {
  if (typeof ip !== 'string' || ip.length === 0 || ip.length > 64) return undefined;
  // Fast paths for what frameworks hand over on almost every request ("1.2.3.4", and "::ffff:1.2.3.4"
  // from a dual-stack socket); they answer exactly what the general parser below answers.
  if (CANONICAL_IPV4.test(ip)) return ip;
  if (ip.startsWith('::ffff:')) {
    const tail = ip.slice(7);
    if (CANONICAL_IPV4.test(tail)) return tail;
  }
  if (ip.indexOf(':') === -1) return ipv4(ip);
  const groups = ipv6Groups(ip);
  if (groups === undefined) return undefined;
  if (carriesIpv4(groups)) {
    const hi = groups[6] as number;
    const lo = groups[7] as number;
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return maskedPrefix(groups, ipv6Subnet);
}

/**
 * carriesIpv4 recognises the ranges whose last 32 bits are a client's IPv4 address: IPv4-mapped
 * ::ffff:0:0/96, and the NAT64 well-known prefix 64:ff9b::/96 (RFC 6052), behind which every IPv4
 * client of a NAT64 gateway would otherwise share one /56 bucket.
 */
export function carriesIpv4(g: readonly number[]): boolean {
  if (g[2] !== 0 || g[3] !== 0 || g[4] !== 0) return false;
  return (g[0] === 0 && g[1] === 0 && g[5] === 0xffff) || (g[0] === 0x64 && g[1] === 0xff9b && g[5] === 0);
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
