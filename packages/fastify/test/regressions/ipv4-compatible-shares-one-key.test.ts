/**
 * Regression: every IPv4-compatible address (`::a.b.c.d`) was keyed as IPv6 and grouped by /56, so all
 * of them shared the one bucket `0:0:0:0::/56`. Each is now the IPv4 client it embeds, as the
 * IPv4-mapped form already was (core's test/regressions/ipv4-compatible-shares-one-key.test.ts).
 */
import { expect, it } from 'vitest';
import { forwarded } from './forwarded.js';

it('counts each ::a.b.c.d under its IPv4 client, sharing its budget with the IPv4 form', async () => {
  const app = await forwarded(2);
  const statuses = [];
  for (const xff of ['::1.2.3.4', '::102:304', '1.2.3.4', '::5.6.7.8', '0:0:0:0:0:0:5.6.7.8']) statuses.push(await app.send(xff));
  expect(statuses).toEqual([200, 200, 429, 200, 200]);
  expect(app.keys).toEqual(['1.2.3.4', '1.2.3.4', '1.2.3.4', '5.6.7.8', '5.6.7.8']);
});
