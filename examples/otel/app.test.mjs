// The OpenTelemetry example over real HTTP: 8 quick requests against a bucket of 5, then a Prometheus
// scrape of the exporter's /metrics must show exactly 5 allowed and 3 limited decisions.
import { once } from 'node:events';
import { ManualClock } from '@ratekeeper/core';
import { afterEach, expect, it } from 'vitest';
import { createApp } from './app.mjs';

let close = async () => {};
afterEach(() => close());

it('serves exact decision counts to Prometheus', async () => {
  const { app, metricsUrl, shutdown } = await createApp({ clock: new ManualClock(Date.UTC(2025, 0, 1)), metricsPort: 0 });
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  close = async () => {
    server.close();
    await shutdown();
  };
  const url = `http://127.0.0.1:${server.address().port}/`;
  const statuses = [];
  for (let i = 0; i < 8; i++) statuses.push((await fetch(url)).status);
  expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);

  const text = await (await fetch(metricsUrl)).text();
  const line = (outcome) => text.split('\n').find((l) => l.startsWith('ratekeeper_decisions_total{') && l.includes(`ratekeeper_outcome="${outcome}"`));
  expect(line('allowed')).toBe(
    'ratekeeper_decisions_total{ratekeeper_policy="api",ratekeeper_algorithm="token-bucket",ratekeeper_outcome="allowed",otel_scope_name="@ratekeeper/otel"} 5',
  );
  expect(line('limited')).toBe(
    'ratekeeper_decisions_total{ratekeeper_policy="api",ratekeeper_algorithm="token-bucket",ratekeeper_outcome="limited",otel_scope_name="@ratekeeper/otel"} 3',
  );
  expect(text).toContain('# TYPE ratekeeper_decisions_total counter');
});
