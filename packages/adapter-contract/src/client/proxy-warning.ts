/**
 * The trust-proxy warning (core's proxy-check.ts) through the real framework: each misconfiguration
 * is reported exactly once per process as a process warning (type 'RatekeeperWarning') whose message
 * names the framework's own setting, whatever the number of requests and limiters; a sound setup never
 * warns; `proxyWarning: false` and a `key` function silence it; and no decision changes because of it
 * (the same requests give the same statuses and keys with the warning off).
 *
 * The once-per-process record is cleared before each test (it lives on a global symbol, shared by
 * every copy of core). A public peer is simulated by redefining the socket's remoteAddress in a
 * `before` hook, which every framework reads to resolve the client address: loopback is all a test
 * can connect from.
 */
import { ManualClock, TokenBucketLimiter } from '@ratekeeper/core';
import type { IncomingMessage } from 'node:http';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ContractBehaviour, Driver } from '../driver.js';
import { counting } from '../support.js';

const PUBLIC_PEER = '203.0.113.7';
const RECORD = Symbol.for('ratekeeper.proxyWarnings');

const fromPublicPeer = (req: IncomingMessage): void => void Object.defineProperty(req.socket, 'remoteAddress', { value: PUBLIC_PEER, configurable: true });

interface Row {
  readonly proxy: boolean;
  readonly peer: 'loopback' | 'public';
  readonly xff: string | undefined;
}

export function proxyWarningSuite<F>(drivers: readonly Driver<F>[], { setting }: { setting: RegExp }): void {
  for (const driver of drivers) {
    describe(driver.name, () => {
      beforeEach(() => {
        delete (globalThis as Record<symbol, unknown>)[RECORD];
      });

      /** run sends `count` requests as `row` describes and reports statuses, keys and the warnings emitted. */
      async function run(row: Row, count: number, options: ContractBehaviour = {}) {
        const warnings: Error[] = [];
        const listener = (warning: Error) => void (warning.name === 'RatekeeperWarning' && warnings.push(warning));
        process.on('warning', listener);
        try {
          const counted = counting(new TokenBucketLimiter({ capacity: 3, refillPerSecond: 1, clock: new ManualClock(0) }));
          const before = row.peer === 'public' ? fromPublicPeer : undefined;
          const { http } = driver.serve({ limiter: counted.limiter, ...options }, { proxy: row.proxy, ...(before === undefined ? {} : { before }) });
          const statuses: number[] = [];
          for (let i = 0; i < count; i++) {
            const req = http.get('/');
            statuses.push((await (row.xff === undefined ? req : req.set('X-Forwarded-For', row.xff))).status);
          }
          await new Promise((resolve) => setImmediate(resolve)); // process warnings are emitted on the next tick
          return { statuses, keys: counted.keys, warnings: warnings.map((w) => ({ code: (w as Error & { code?: string }).code, message: w.message })) };
        } finally {
          process.off('warning', listener);
        }
      }

      const untrusted: Row = { proxy: false, peer: 'loopback', xff: '198.51.100.4' };
      const openToAll: Row = { proxy: true, peer: 'public', xff: '198.51.100.4' };

      it('warns exactly once, naming the setting, when a forwarding header arrives from a private peer the framework does not trust', async () => {
        const first = await run(untrusted, 5);
        const second = await run(untrusted, 5); // another limiter, same process: no second warning
        expect(first.warnings.map((w) => w.code)).toEqual(['RATEKEEPER_TRUST_PROXY_OFF']);
        expect(first.warnings[0]?.message).toMatch(setting);
        expect(first.warnings[0]?.message).toContain('proxyWarning: false');
        expect(second.warnings).toEqual([]);
        const quiet = await run(untrusted, 5, { proxyWarning: false });
        expect([first.statuses, first.keys]).toEqual([quiet.statuses, quiet.keys]);
        expect(first.statuses).toEqual([200, 200, 200, 429, 429]);
      });

      it('warns exactly once, naming the setting, when the framework takes the client address from a header sent by a public peer', async () => {
        const first = await run(openToAll, 5);
        const second = await run(openToAll, 5);
        expect(first.warnings.map((w) => w.code)).toEqual(['RATEKEEPER_TRUST_PROXY_OPEN']);
        expect(first.warnings[0]?.message).toMatch(setting);
        expect(second.warnings).toEqual([]);
        const quiet = await run(openToAll, 5, { proxyWarning: false });
        expect([first.statuses, first.keys]).toEqual([quiet.statuses, quiet.keys]);
        expect(new Set(first.keys)).toEqual(new Set(['198.51.100.4']));
      });

      it('warns once for each finding in one process, and never again', async () => {
        const codes = [];
        for (const row of [untrusted, openToAll, untrusted, openToAll]) codes.push(...(await run(row, 2)).warnings.map((w) => w.code));
        expect(codes).toEqual(['RATEKEEPER_TRUST_PROXY_OFF', 'RATEKEEPER_TRUST_PROXY_OPEN']);
      });

      it.each([
        ['no proxy and no forwarding header', { proxy: false, peer: 'loopback', xff: undefined }],
        ['a trusted private proxy', { proxy: true, peer: 'loopback', xff: '198.51.100.4' }],
        ['no proxy trusted, a public client sending its own header', { proxy: false, peer: 'public', xff: '198.51.100.4' }],
        ['proxies trusted, a public client without a header', { proxy: true, peer: 'public', xff: undefined }],
      ] as const)('never warns for a sound setup: %s', async (_, row) => {
        expect((await run(row, 3)).warnings).toEqual([]);
      });

      it('stays silent with proxyWarning: false or a key function, and refuses a non-boolean proxyWarning', async () => {
        for (const row of [untrusted, openToAll]) {
          expect((await run(row, 2, { proxyWarning: false })).warnings).toEqual([]);
          expect((await run(row, 2, { key: () => 'k' })).warnings).toEqual([]);
        }
        await expect(driver.construct({ proxyWarning: 'no' as never })).rejects.toThrow(new TypeError('rateLimit: proxyWarning must be a boolean, got "no"'));
      });
    });
  }
}
