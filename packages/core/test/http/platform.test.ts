/**
 * ipFrom (platform.ts): on each platform, the header its edge sets, read by its rightmost entry;
 * behind n proxies of one's own, the n-th X-Forwarded-For entry from the right; never the leftmost,
 * which the client writes. A header the edge did not set gives no address, never a fallback.
 */
import { describe, expect, it } from 'vitest';
import { PLATFORM_HEADERS, ipFrom } from '../../src/adapter.js';

const request = (headers: Record<string, string>) => new Request('http://app.test/', { headers });
const SPOOF = { 'x-forwarded-for': '6.6.6.6, 7.7.7.7' };

describe('ipFrom', () => {
  it.each<[string, Parameters<typeof ipFrom>[0], Record<string, string>, string | undefined]>([
    ['Cloudflare: CF-Connecting-IP', 'cloudflare', { ...SPOOF, 'cf-connecting-ip': '203.0.113.7' }, '203.0.113.7'],
    ['Fly: Fly-Client-IP', 'fly', { 'x-forwarded-for': '6.6.6.6, 203.0.113.7, 66.241.124.1', 'fly-client-ip': '203.0.113.7' }, '203.0.113.7'],
    ['Vercel: x-vercel-forwarded-for', 'vercel', { ...SPOOF, 'x-vercel-forwarded-for': '203.0.113.7', 'x-real-ip': '198.51.100.1' }, '203.0.113.7'],
    ['Vercel: x-real-ip without it', 'vercel', { ...SPOOF, 'x-real-ip': '203.0.113.7' }, '203.0.113.7'],
    ['Netlify: x-nf-client-connection-ip', 'netlify', { ...SPOOF, 'x-nf-client-connection-ip': '2001:db8::7' }, '2001:db8::7'],
    ["a platform header's rightmost entry", 'vercel', { 'x-vercel-forwarded-for': '6.6.6.6, 203.0.113.7' }, '203.0.113.7'],
    ['one hop: the rightmost entry', { hops: 1 }, { 'x-forwarded-for': '6.6.6.6, 7.7.7.7,203.0.113.7' }, '203.0.113.7'],
    ['two hops: the second from the right', { hops: 2 }, { 'x-forwarded-for': '6.6.6.6, 203.0.113.7, 10.0.0.2' }, '203.0.113.7'],
  ])('%s', (_what, from, headers, address) => {
    expect(ipFrom(from)(request(headers))).toBe(address);
  });

  it.each<[string, Parameters<typeof ipFrom>[0], Record<string, string>]>([
    ['Cloudflare without its header (no fallback to X-Forwarded-For)', 'cloudflare', SPOOF],
    ['Fly without its header', 'fly', SPOOF],
    ['Vercel without either header', 'vercel', SPOOF],
    ['Netlify without its header', 'netlify', SPOOF],
    ['an empty platform header', 'fly', { 'fly-client-ip': ' ' }],
    ['a list shorter than the hops', { hops: 3 }, { 'x-forwarded-for': '6.6.6.6, 7.7.7.7' }],
    ['no X-Forwarded-For', { hops: 1 }, {}],
    ['an empty hop', { hops: 1 }, { 'x-forwarded-for': '6.6.6.6, ' }],
  ])('no address: %s', (_what, from, headers) => {
    expect(ipFrom(from)(request(headers))).toBeUndefined();
  });

  it('never answers the leftmost entry a client wrote, however many it writes', () => {
    for (const from of ['cloudflare', 'fly', 'netlify', 'vercel', { hops: 1 }, { hops: 2 }] as const) {
      const name = typeof from === 'string' ? (PLATFORM_HEADERS[from][0] as string) : 'x-forwarded-for';
      const edge = typeof from === 'string' ? '203.0.113.7' : '10.0.0.1, 203.0.113.7';
      for (let n = 1; n <= 5; n++) {
        const spoofed = Array.from({ length: n }, (_, i) => `6.6.6.${i}`).join(', ');
        const headers = typeof from === 'string' ? { 'x-forwarded-for': spoofed, [name]: edge } : { 'x-forwarded-for': `${spoofed}, ${edge}` };
        expect(ipFrom(from)(request(headers))).not.toMatch(/^6\.6\.6\./);
      }
    }
  });

  it.each<[unknown, string, ErrorConstructor]>([
    ['heroku', `from must be 'cloudflare', 'fly', 'netlify', 'vercel' or { hops: n }, got "heroku"`, TypeError],
    ['toString', `from must be 'cloudflare', 'fly', 'netlify', 'vercel' or { hops: n }, got "toString"`, TypeError],
    [undefined, `from must be 'cloudflare', 'fly', 'netlify', 'vercel' or { hops: n }, got undefined`, TypeError],
    [{ hops: 0 }, 'hops must be an integer from 1 to 32, got 0', RangeError],
    [{ hops: 1.5 }, 'hops must be an integer from 1 to 32, got 1.5', RangeError],
    [{ hops: 33 }, 'hops must be an integer from 1 to 32, got 33', RangeError],
    [{ hops: '1' }, 'hops must be an integer from 1 to 32, got "1"', TypeError],
    [{}, 'hops must be an integer from 1 to 32, got undefined', TypeError],
  ])('refuses %j at construction', (from, message, type) => {
    expect(() => ipFrom(from as never)).toThrow(type);
    expect(() => ipFrom(from as never)).toThrow(`ipFrom: ${message}`);
  });
});
