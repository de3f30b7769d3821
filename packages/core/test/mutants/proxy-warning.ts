/**
 * Mutants of the trust-proxy check, each caught by test/http/proxy-check.test.ts:
 * - PerPlanProxyWarning keeps its "already warned" flags per plan instead of per process, so an app
 *   with ten limiters warns ten times.
 * - HeaderOnlyProxyWarning reads any forwarding header on an untrusted request as a misconfiguration,
 *   without looking at the peer, so a public client sending its own X-Forwarded-For to a server with
 *   no proxy (a sound setup) is reported.
 */
import { PROXY_WARNING_CODES, type ProxyFinding } from '../../src/index.js';
import { hasForwardingHeader, proxyFinding } from '../../src/http/client/proxy-check.js';

export interface ProxyWatch {
  readonly pending: boolean;
  observe(resolvedIp: string | undefined, peerIp: string | undefined, headers: Readonly<Record<string, unknown>>): void;
}

const emit = (finding: ProxyFinding) => process.emitWarning(`mutant ${finding}`, { type: 'RatekeeperWarning', code: PROXY_WARNING_CODES[finding] });

export class PerPlanProxyWarning implements ProxyWatch {
  readonly #done = new Set<ProxyFinding>();
  get pending(): boolean {
    return this.#done.size < 2;
  }
  observe(resolvedIp: string | undefined, peerIp: string | undefined, headers: Readonly<Record<string, unknown>>): void {
    const finding = proxyFinding(resolvedIp, peerIp, hasForwardingHeader(headers));
    if (finding !== undefined && !this.#done.has(finding)) this.#done.add(finding), emit(finding);
  }
}

export class HeaderOnlyProxyWarning implements ProxyWatch {
  #warned = false;
  get pending(): boolean {
    return !this.#warned;
  }
  observe(resolvedIp: string | undefined, peerIp: string | undefined, headers: Readonly<Record<string, unknown>>): void {
    if (resolvedIp === peerIp && hasForwardingHeader(headers)) (this.#warned = true), emit('proxy-not-trusted');
  }
}
