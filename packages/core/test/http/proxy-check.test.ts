/**
 * The trust-proxy check: the pure finding as a table over (resolved IP, peer, forwarding header), the
 * address classes, and ProxyWarning's contract: each finding once per process (however many plans),
 * nothing when disabled or with a key function, process warnings as the channel with a stable code,
 * and the plan's proxyWarning option validated. The per-process record is cleared before each test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, type ProxySetting } from '../../src/index.js';
import { prepareRateLimit } from '../../src/adapter.js';
import { HeaderOnlyProxyWarning, PerPlanProxyWarning, type ProxyWatch } from '../mutants/proxy-warning.js';
import { ProxyWarning, hasForwardingHeader, isInternalAddress, proxyFinding } from '../../src/http/client/proxy-check.js';
import { SAMPLE_EVERY, SAMPLE_FROM } from '../../src/http/client/proxy-check.js';

const SETTING: ProxySetting = { framework: 'Testing', trust: 'trust it', restrict: 'restrict it' };
const XFF = { 'x-forwarded-for': '198.51.100.4' };

describe('proxyFinding', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1', true, 'proxy-not-trusted'],
    ['10.1.2.3', '10.1.2.3', true, 'proxy-not-trusted'],
    ['::ffff:192.168.0.9', '::ffff:192.168.0.9', true, 'proxy-not-trusted'],
    ['fd00::5', 'fd00::5', true, 'proxy-not-trusted'],
    ['10.1.2.3', '10.1.2.3', false, undefined],
    ['203.0.113.7', '203.0.113.7', true, undefined],
    ['198.51.100.4', '203.0.113.7', true, 'public-peer-trusted'],
    ['198.51.100.4', '2001:db8::1', true, 'public-peer-trusted'],
    ['198.51.100.4', '10.0.0.5', true, undefined],
    ['198.51.100.4', '::1', true, undefined],
    ['198.51.100.4', 'not-an-ip', true, undefined],
    [undefined, '10.0.0.5', true, undefined],
    ['10.0.0.5', undefined, true, undefined],
  ] as const)('resolved %s, peer %s, forwarding header %s: %s', (resolved, peer, forwarded, want) => {
    expect(proxyFinding(resolved, peer, forwarded)).toBe(want);
  });

  it.each([
    ['10.255.0.1', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['127.8.8.8', true],
    ['169.254.1.1', true],
    ['100.64.0.1', true],
    ['100.128.0.1', false],
    ['8.8.8.8', false],
    ['::1', true],
    ['::', false],
    ['fc00::1', true],
    ['fe80::1%eth0', true],
    ['febf::1', true],
    ['fec0::1', false],
    ['2001:db8::1', false],
    ['::ffff:10.0.0.1', true],
    ['::ffff:8.8.8.8', false],
    ['junk', false],
  ] as const)('isInternalAddress(%s) is %s', (ip, want) => {
    expect(isInternalAddress(ip)).toBe(want);
  });

  it('reads the three forwarding headers only', () => {
    expect([XFF, { forwarded: 'for=1.2.3.4' }, { 'x-real-ip': '1.2.3.4' }, { 'x-forwarded-host': 'a' }, {}].map(hasForwardingHeader)).toEqual([true, true, true, false, false]);
  });
});

describe('ProxyWarning', () => {
  const warnings: { code: string | undefined; message: string }[] = [];
  const listener = (w: Error & { code?: string }) => void (w.name === 'RatekeeperWarning' && warnings.push({ code: w.code, message: w.message }));
  beforeEach(() => {
    delete (globalThis as Record<symbol, unknown>)[Symbol.for('ratekeeper.proxyWarnings')];
    warnings.length = 0;
    process.on('warning', listener);
  });
  afterEach(() => void process.off('warning', listener));
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  /** acrossPlans drives two plans' checks through both findings, 100 requests each, and answers the codes emitted. */
  async function acrossPlans(make: () => ProxyWatch): Promise<(string | undefined)[]> {
    const plans = [make(), make()];
    for (let i = 0; i < 100; i++) for (const w of plans) w.observe('10.0.0.5', '10.0.0.5', XFF);
    for (let i = 0; i < 100; i++) for (const w of plans) w.observe('198.51.100.4', '203.0.113.7', XFF);
    await tick();
    return warnings.map((w) => w.code);
  }

  /** soundSetups drives the setups that must never warn and answers the codes emitted. */
  async function soundSetups(make: () => ProxyWatch): Promise<(string | undefined)[]> {
    const w = make();
    for (const [resolved, peer, headers] of [
      ['203.0.113.7', '203.0.113.7', XFF], // no proxy; a public client sends its own header
      ['198.51.100.4', '10.0.0.5', XFF], // a trusted private proxy
      ['10.0.0.5', '10.0.0.5', {}], // a private client, no header
    ] as const) {
      w.observe(resolved, peer, headers);
    }
    await tick();
    return warnings.map((x) => x.code);
  }

  it('emits each finding once per process, across plans, and the check catches a once-per-plan mutant', async () => {
    expect(await acrossPlans(() => new ProxyWarning('rateLimit', SETTING, true))).toEqual(['RATEKEEPER_TRUST_PROXY_OFF', 'RATEKEEPER_TRUST_PROXY_OPEN']);
    warnings.length = 0;
    expect(await acrossPlans(() => new PerPlanProxyWarning())).toEqual([
      'RATEKEEPER_TRUST_PROXY_OFF',
      'RATEKEEPER_TRUST_PROXY_OFF',
      'RATEKEEPER_TRUST_PROXY_OPEN',
      'RATEKEEPER_TRUST_PROXY_OPEN',
    ]);
  });

  it('never warns for a sound setup, and the check catches a mutant that ignores the peer', async () => {
    expect(await soundSetups(() => new ProxyWarning('rateLimit', SETTING, true))).toEqual([]);
    expect(await soundSetups(() => new HeaderOnlyProxyWarning())).toEqual(['RATEKEEPER_TRUST_PROXY_OFF']);
  });

  it('names the peer, the framework and both fixes, and stops being pending once both were emitted', async () => {
    const a = new ProxyWarning('rateLimit', SETTING, true);
    a.observe('10.0.0.5', '10.0.0.5', XFF);
    expect(a.pending).toBe(true);
    a.observe('198.51.100.4', '203.0.113.7', XFF);
    expect(a.pending).toBe(false);
    await tick();
    expect(warnings.map((w) => w.code)).toEqual(['RATEKEEPER_TRUST_PROXY_OFF', 'RATEKEEPER_TRUST_PROXY_OPEN']);
    expect(warnings[0]?.message).toBe(
      'rateLimit: requests arrive from 10.0.0.5, a private or loopback address, with a forwarding header (X-Forwarded-For, Forwarded or X-Real-IP), but Testing does not trust that proxy, so every client behind it shares one address and one rate-limit bucket. To fix: trust it. Decisions are unchanged; to turn this warning off, pass proxyWarning: false.',
    );
    expect(warnings[1]?.message).toContain('To fix: restrict it.');
  });

  it(`asks about each of the first ${SAMPLE_FROM} requests, then about one in ${SAMPLE_EVERY}`, () => {
    const a = new ProxyWarning('rateLimit', SETTING, true);
    const asked: number[] = [];
    for (let i = 0; i < SAMPLE_FROM + 4 * SAMPLE_EVERY; i++) if (a.pending) asked.push(i);
    expect(asked.slice(0, SAMPLE_FROM)).toEqual(Array.from({ length: SAMPLE_FROM }, (_, i) => i));
    expect(asked.slice(SAMPLE_FROM)).toEqual([0, 1, 2, 3].map((k) => SAMPLE_FROM + k * SAMPLE_EVERY));
  });

  it(`still finds a proxy that appears after ${10 * SAMPLE_FROM} sound requests, within ${SAMPLE_EVERY} of its requests`, async () => {
    const a = new ProxyWarning('rateLimit', SETTING, true);
    const request = (resolved: string, peer: string, headers: Record<string, string>) => {
      if (a.pending) a.observe(resolved, peer, headers);
    };
    for (let i = 0; i < 10 * SAMPLE_FROM; i++) request('203.0.113.7', '203.0.113.7', {});
    await tick();
    expect(warnings).toEqual([]);
    for (let i = 0; i < SAMPLE_EVERY; i++) request('10.0.0.5', '10.0.0.5', XFF);
    await tick();
    expect(warnings.map((w) => w.code)).toEqual(['RATEKEEPER_TRUST_PROXY_OFF']);
  });

  it('is never pending when disabled, and the plan disables it for proxyWarning: false and for a key function', async () => {
    const clock = new ManualClock(0);
    expect(new ProxyWarning('rateLimit', SETTING, false).pending).toBe(false);
    expect(prepareRateLimit('rateLimit', { clock, proxyWarning: false }).watchProxy(SETTING).pending).toBe(false);
    expect(prepareRateLimit('rateLimit', { clock, key: () => 'k' }).watchProxy(SETTING).pending).toBe(false);
    expect(prepareRateLimit('rateLimit', { clock }).watchProxy(SETTING).pending).toBe(true);
    expect(() => prepareRateLimit('rateLimit', { proxyWarning: 0 as never })).toThrowError(new TypeError('rateLimit: proxyWarning must be a boolean, got 0'));
  });

  it('falls back to console.warn where there is no process.emitWarning', () => {
    const emitWarning = process.emitWarning;
    const seen: string[] = [];
    const warn = console.warn;
    try {
      (process as { emitWarning?: unknown }).emitWarning = undefined;
      console.warn = (text: string) => void seen.push(text);
      new ProxyWarning('rateLimit', SETTING, true).observe('10.0.0.5', '10.0.0.5', XFF);
    } finally {
      process.emitWarning = emitWarning;
      console.warn = warn;
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/^RatekeeperWarning \[RATEKEEPER_TRUST_PROXY_OFF\]: rateLimit: requests arrive from 10\.0\.0\.5/);
  });
});
