/**
 * Regression: behind `trustProxy`, a proxy that writes the client's port into X-Forwarded-For
 * (`1.2.3.4:443`, `[2001:db8::1]:443`) made every request a 500: Fastify passes the entry on verbatim
 * as `request.ip` (checked here over real HTTP), and core's ipKey found no address in it. It is now
 * the address without its port (core's test/regressions/forwarded-address-with-port.test.ts); a
 * malformed value is still no address (missingIp), never a shared bucket.
 */
import { expect, it } from 'vitest';
import { forwarded } from './forwarded.js';

it('counts a forwarded address with a port under the address, one bucket whatever the port', async () => {
  const app = await forwarded(2);
  const statuses = [];
  for (const xff of ['1.2.3.4:443', '1.2.3.4:8080', '1.2.3.4', '[2001:db8::1]:443', '[2001:db8::2]']) statuses.push(await app.send(xff));
  expect(statuses).toEqual([200, 200, 429, 200, 200]);
  expect(app.ips.slice(0, 2)).toEqual(['1.2.3.4:443', '1.2.3.4:8080']);
  expect(app.keys).toEqual(['1.2.3.4', '1.2.3.4', '1.2.3.4', '2001:db8:0:0::/56', '2001:db8:0:0::/56']);
  expect(app.errors).toEqual([]);
});

it('treats a malformed port as no address: a MissingIpError, uncounted', async () => {
  const app = await forwarded(1);
  for (const xff of ['1.2.3.4:65536', '1.2.3.4:', '::ffff:1.2.3.4:443']) expect(await app.send(xff)).toBe(500);
  expect([app.keys, app.errors]).toEqual([[], ['MissingIpError', 'MissingIpError', 'MissingIpError']]);
});
