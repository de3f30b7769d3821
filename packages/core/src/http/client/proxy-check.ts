/**
 * The trust-proxy check: says, once per process, when the framework's proxy setting looks wrong for
 * where the server runs. It never changes a decision and never throws; it only emits a warning.
 *
 * Two findings, from what every adapter can see on a request: the client IP the framework resolved,
 * the socket's peer address, and whether the request carries a forwarding header (X-Forwarded-For,
 * Forwarded or X-Real-IP):
 * - 'proxy-not-trusted' (code RATEKEEPER_TRUST_PROXY_OFF): a forwarding header arrives from a private
 *   or loopback peer, yet the framework resolved the peer itself. A load balancer is in front and is
 *   not trusted: every client shares the balancer's address, so one bucket limits the whole world.
 * - 'public-peer-trusted' (code RATEKEEPER_TRUST_PROXY_OPEN): the framework took the client IP from a
 *   header sent by a public peer. Trusting any peer (`trust proxy` true, a hop count) on a server that
 *   clients reach directly lets each client pick its own key with X-Forwarded-For. A proxy at a public
 *   address trusted on purpose (a CDN's address list) looks the same: `proxyWarning: false` silences it.
 *
 * The channel is Node's process warnings (`process.emitWarning`, type 'RatekeeperWarning', printed to
 * stderr by default, observable with `process.on('warning')`), or console.warn where there is no
 * `process`. Each finding is emitted at most once per process, whatever the number of limiters; the
 * record lives on `globalThis[Symbol.for('ratekeeper.proxyWarnings')]` so that an ESM and a CommonJS
 * copy of core share it. Cost: once both findings were emitted (or with proxyWarning: false) one
 * boolean test per request. Before, `pending` asks for every one of the first SAMPLE_FROM requests a
 * limiter sees, then for one in SAMPLE_EVERY: a misconfigured proxy is there for every request it
 * forwards, so sampling finds it all the same, and most requests skip the inputs (on Node, reading
 * `req.headers` builds the headers object). An observed request costs a string comparison and up to
 * three header lookups, and an address classification only for a request that carries a forwarding
 * header or came through a trusted proxy (the last peer's class is remembered, so a keep-alive
 * balancer is classified once).
 */
import { ipKey } from './ip.js';
import { emitWarning } from '../settle/warning.js';

export type ProxyFinding = 'proxy-not-trusted' | 'public-peer-trusted';

/** ProxySetting names a framework's proxy setting, as the warnings tell the user to change it. */
export interface ProxySetting {
  readonly framework: string;
  /** How to trust the proxy in front (the fix for 'proxy-not-trusted'). */
  readonly trust: string;
  /** How to stop trusting every peer (the fix for 'public-peer-trusted'). */
  readonly restrict: string;
}

export const PROXY_WARNING_CODES: Readonly<Record<ProxyFinding, string>> = {
  'proxy-not-trusted': 'RATEKEEPER_TRUST_PROXY_OFF',
  'public-peer-trusted': 'RATEKEEPER_TRUST_PROXY_OPEN',
};

/** proxyFinding is the pure check: what the request says about the proxy setup, if anything is wrong. */
export function proxyFinding(resolvedIp: string | undefined, peerIp: string | undefined, forwarded: boolean): ProxyFinding | undefined {
  if (typeof resolvedIp !== 'string' || typeof peerIp !== 'string') return undefined;
  if (resolvedIp === peerIp) return forwarded && isInternalAddress(peerIp) ? 'proxy-not-trusted' : undefined;
  return isInternalAddress(peerIp) || ipKey(peerIp) === undefined ? undefined : 'public-peer-trusted';
}

/** hasForwardingHeader tells whether Node-style lower-case headers carry a forwarding header. */
export function hasForwardingHeader(headers: Readonly<Record<string, unknown>>): boolean {
  return headers['x-forwarded-for'] !== undefined || headers['forwarded'] !== undefined || headers['x-real-ip'] !== undefined;
}

/**
 * isInternalAddress: loopback, private (10/8, 172.16/12, 192.168/16, fc00::/7), link-local
 * (169.254/16, fe80::/10) or shared (100.64/10, carrier-grade NAT and cloud balancers), IPv4-mapped
 * spellings included. Where a balancer lives, never a client on the internet.
 */
export function isInternalAddress(ip: string): boolean {
  const key = ipKey(ip, 128);
  if (key === undefined) return false;
  if (key.indexOf(':') === -1) {
    const [a, b] = key.split('.').map(Number) as [number, number];
    return a === 10 || a === 127 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254) || (a === 100 && b >= 64 && b <= 127);
  }
  if (key === '0:0:0:0:0:0:0:1::/128') return true;
  const first = parseInt(key, 16);
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80;
}

interface Emitted {
  off: boolean;
  open: boolean;
}

const RECORD = Symbol.for('ratekeeper.proxyWarnings');
/** Every request is looked at until a limiter has seen this many; then one in SAMPLE_EVERY. */
export const SAMPLE_FROM = 1024;
/** One request in this many (a power of two) is looked at after the first SAMPLE_FROM. */
export const SAMPLE_EVERY = 64;

function emitted(): Emitted {
  const holder = globalThis as unknown as Record<symbol, Emitted | undefined>;
  return (holder[RECORD] ??= { off: false, open: false });
}

/** ProxyWarning is one prepared middleware's view of the per-process check (see the file comment). */
export class ProxyWarning {
  readonly #owner: string;
  readonly #setting: ProxySetting;
  readonly #enabled: boolean;
  readonly #emitted = emitted();
  #lastPeer: string | undefined;
  #lastInternal = false;
  #asked = 0;

  constructor(owner: string, setting: ProxySetting, enabled: boolean) {
    this.#owner = owner;
    this.#setting = setting;
    this.#enabled = enabled;
  }

  /**
   * pending is true when this request is to be observed: a finding is still to be looked for, and the
   * request is one of the first SAMPLE_FROM or one of the SAMPLE_EVERY after. Read it once per
   * request, before gathering the inputs.
   */
  get pending(): boolean {
    if (!this.#enabled || (this.#emitted.off && this.#emitted.open)) return false;
    const asked = this.#asked++;
    return asked < SAMPLE_FROM || (asked & (SAMPLE_EVERY - 1)) === 0;
  }

  /** observe looks at one request and emits a finding not yet emitted in this process. */
  observe(resolvedIp: string | undefined, peerIp: string | undefined, headers: Readonly<Record<string, unknown>>): void {
    if (typeof resolvedIp !== 'string' || typeof peerIp !== 'string') return;
    const done = this.#emitted;
    if (resolvedIp === peerIp) {
      if (!done.off && hasForwardingHeader(headers) && this.#internal(peerIp)) this.#emit('proxy-not-trusted', peerIp);
    } else if (!done.open && !this.#internal(peerIp) && ipKey(peerIp) !== undefined) {
      this.#emit('public-peer-trusted', peerIp);
    }
  }

  #internal(peer: string): boolean {
    if (peer !== this.#lastPeer) {
      this.#lastInternal = isInternalAddress(peer);
      this.#lastPeer = peer;
    }
    return this.#lastInternal;
  }

  #emit(finding: ProxyFinding, peer: string): void {
    const done = this.#emitted;
    if (finding === 'proxy-not-trusted') done.off = true;
    else done.open = true;
    const { framework, trust, restrict } = this.#setting;
    const message =
      finding === 'proxy-not-trusted'
        ? `${this.#owner}: requests arrive from ${peer}, a private or loopback address, with a forwarding header (X-Forwarded-For, Forwarded or X-Real-IP), but ${framework} does not trust that proxy, so every client behind it shares one address and one rate-limit bucket. To fix: ${trust}. Decisions are unchanged; to turn this warning off, pass proxyWarning: false.`
        : `${this.#owner}: ${framework} took the client address from a forwarding header sent by ${peer}, a public address, so a client that reaches the server directly can pick its own rate-limit key with X-Forwarded-For. To fix: ${restrict}. If ${peer} is your own proxy or CDN, pass proxyWarning: false. Decisions are unchanged.`;
    emitWarning(message, PROXY_WARNING_CODES[finding]);
  }
}
