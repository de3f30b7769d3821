/**
 * IpList: a set of IP addresses and CIDR ranges (IPv4 and IPv6) that answers "is this client in it?"
 * in time proportional to the prefix lengths it holds (at most 32 steps for IPv4, 128 for IPv6),
 * whatever the list's size: the entries are a binary trie over the address bits, one trie per family,
 * kept in two typed arrays, built once at construction.
 *
 * Addresses are read as `ipKey` reads them: an IPv4-mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96) or
 * IPv4-compatible (::/96 but ::1) address is the IPv4 address it carries, in every notation, both in
 * the list and in a lookup. So `10.0.0.0/8` matches `::ffff:10.1.2.3` and `::10.1.2.3`, and
 * `::ffff:10.0.0.0/104` is the same entry as `10.0.0.0/8`. An IPv6 range that contains one of those
 * /96 ranges (`::/0`, `::/80`, `::/96`) also holds the IPv4 addresses they carry (an entry of `::1`
 * lists 0.0.0.1 too, which no client has). A looked-up address with a port (`1.2.3.4:443`,
 * `[2001:db8::1]:443`) is the address without it, as its key is. A range written with host bits set (`10.1.2.3/8`) means its network
 * (`10.0.0.0/8`), as routers read it. Anything else (a bad address, a prefix out of range, a zone id)
 * is refused at construction with the entry's index and text.
 *
 * A lookup of something that is not an IP address (undefined, "", "unknown") is never in the list.
 */
import { describeValue } from '../../validate.js';
import { carriesIpv4, hostOf, ipv4, ipv6Groups } from './ip.js';

/** Bits of an address, most significant first: 32 for IPv4, 128 for IPv6. */
type Bits = (i: number) => number;

class Trie {
  /** children[2n + b] is the node reached from n by bit b, or 0 (the root is node 0, never a child). */
  #children = new Int32Array(64);
  /** terminal[n] is 1 when the path to n is a whole listed prefix. */
  #terminal = new Uint8Array(32);
  #nodes = 1;

  add(bits: Bits, length: number): void {
    let node = 0;
    for (let i = 0; i < length && this.#terminal[node] === 0; i++) {
      const slot = 2 * node + bits(i);
      let next = this.#children[slot] as number;
      if (next === 0) {
        next = this.#grow();
        this.#children[slot] = next;
      }
      node = next;
    }
    this.#terminal[node] = 1;
  }

  has(bits: Bits, width: number): boolean {
    let node = 0;
    for (let i = 0; i < width; i++) {
      if (this.#terminal[node] === 1) return true;
      node = this.#children[2 * node + bits(i)] as number;
      if (node === 0) return false;
    }
    return this.#terminal[node] === 1;
  }

  #grow(): number {
    const node = this.#nodes++;
    if (node >= this.#terminal.length) {
      const terminal = new Uint8Array(this.#terminal.length * 2);
      terminal.set(this.#terminal);
      this.#terminal = terminal;
      const children = new Int32Array(this.#children.length * 2);
      children.set(this.#children);
      this.#children = children;
    }
    return node;
  }
}

/** A parsed address: 4 bytes (IPv4, mapped and NAT64 included) or 16 bytes (other IPv6). */
type Address = { readonly v4: boolean; readonly bytes: Uint8Array };

const bitsOf =
  (bytes: Uint8Array): Bits =>
  (i) =>
    ((bytes[i >> 3] as number) >> (7 - (i & 7))) & 1;

/** parseAddress reads an address without a prefix, or undefined when it is not one (zone ids refused). */
function parseAddress(text: string, keepV6: boolean): Address | undefined {
  if (text.length === 0 || text.length > 64 || text.includes('%')) return undefined;
  if (!text.includes(':')) {
    const quad = ipv4(text);
    return quad === undefined ? undefined : { v4: true, bytes: Uint8Array.from(quad.split('.').map(Number)) };
  }
  const groups = ipv6Groups(text);
  if (groups === undefined) return undefined;
  if (!keepV6 && carriesIpv4(groups)) return { v4: true, bytes: Uint8Array.from([groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255]) };
  return { v4: false, bytes: Uint8Array.from(groups.flatMap((g) => [g >> 8, g & 255])) };
}

/** The /96 ranges whose last 32 bits are an IPv4 address (see ip.ts carriesIpv4). */
const IPV4_CARRIERS = [parseAddress('::ffff:0:0', true), parseAddress('64:ff9b::', true), parseAddress('::', true)] as Address[];

function samePrefix(a: Uint8Array, b: Uint8Array, length: number): boolean {
  const bitsA = bitsOf(a);
  const bitsB = bitsOf(b);
  for (let i = 0; i < length; i++) if (bitsA(i) !== bitsB(i)) return false;
  return true;
}

export class IpList {
  readonly #v4 = new Trie();
  readonly #v6 = new Trie();
  #lastIp: string | undefined;
  #lastHas = false;
  /** size is the number of entries the list was built from. */
  readonly size: number;

  /** `owner` and `option` name the list in error messages (`rateLimit: allowList[2] must be …`). */
  constructor(entries: readonly string[], owner = 'IpList', option = 'entries') {
    if (!Array.isArray(entries)) throw new TypeError(`${owner}: ${option} must be an array of IP addresses or CIDR ranges, got ${describeValue(entries)}`);
    entries.forEach((entry, index) => this.#add(entry, `${owner}: ${option}[${index}]`));
    this.size = entries.length;
  }

  /** has tells whether `ip` (as a framework resolved it) is in the list; a non-address never is. */
  has(ip: string | undefined | null): boolean {
    if (typeof ip !== 'string') return false;
    // A keep-alive connection asks about the same address request after request: answer it again
    // without parsing (the answer for a string never changes).
    if (ip === this.#lastIp) return this.#lastHas;
    const host = hostOf(ip);
    const address = host === undefined ? undefined : parseAddress(host.includes('%') ? host.slice(0, host.indexOf('%')) : host, false);
    const has = address !== undefined && (address.v4 ? this.#v4.has(bitsOf(address.bytes), 32) : this.#v6.has(bitsOf(address.bytes), 128));
    this.#lastIp = ip;
    this.#lastHas = has;
    return has;
  }

  #add(entry: unknown, where: string): void {
    const refuse = (): never => {
      throw new TypeError(`${where} must be an IP address or a CIDR range (1.2.3.0/24, 2001:db8::/32), got ${describeValue(entry)}`);
    };
    if (typeof entry !== 'string') return refuse();
    const slash = entry.indexOf('/');
    const text = slash === -1 ? entry : entry.slice(0, slash);
    const address = parseAddress(text, true);
    if (address === undefined) return refuse();
    const width = address.v4 ? 32 : 128;
    let length = width;
    if (slash !== -1) {
      const prefix = entry.slice(slash + 1);
      if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > width) return refuse();
      length = Number(prefix);
    }
    if (address.v4) return this.#v4.add(bitsOf(address.bytes), length);
    this.#v6.add(bitsOf(address.bytes), length);
    // The IPv4 addresses this IPv6 range holds through a carrier /96 are listed as IPv4.
    for (const carrier of IPV4_CARRIERS) {
      if (length <= 96 ? samePrefix(address.bytes, carrier.bytes, length) : samePrefix(address.bytes, carrier.bytes, 96)) {
        this.#v4.add(bitsOf(address.bytes.subarray(12)), Math.max(0, length - 96));
      }
    }
  }
}
