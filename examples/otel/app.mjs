/**
 * The OpenTelemetry example: an Express app limited to 5 requests per second per client IP (token
 * bucket), whose every decision is counted by `@ratekeeper/otel` on an OpenTelemetry MeterProvider.
 * The provider's reader is OpenTelemetry's Prometheus exporter, which serves the counters in the
 * Prometheus text format on its own port (`GET /metrics`), for a Prometheus server to scrape:
 *
 *   ratekeeper_decisions_total{ratekeeper_policy="api",ratekeeper_algorithm="token-bucket",ratekeeper_outcome="limited",otel_scope_name="@ratekeeper/otel"} 3
 *
 * (Prometheus names replace dots with underscores and add `_total` to counters.)
 */
import { createServer } from 'node:net';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { systemClock } from '@ratekeeper/core';
import { rateLimit } from '@ratekeeper/express';
import { otelTelemetry } from '@ratekeeper/otel';
import express from 'express';

/**
 * createApp builds the app and its metrics endpoint; `metricsPort` 0 picks a free port. Resolves to
 * { app, metricsUrl, shutdown }.
 */
export async function createApp({ clock = systemClock, metricsPort = 9464 } = {}) {
  const port = metricsPort === 0 ? await freePort() : metricsPort;
  const exporter = new PrometheusExporter({ host: '127.0.0.1', port, preventServerStart: true });
  await exporter.startServer();
  const meterProvider = new MeterProvider({ readers: [exporter] });

  const app = express();
  app.use(rateLimit({ algorithm: 'token-bucket', capacity: 5, refillPerSecond: 5, name: 'api', clock, telemetry: otelTelemetry({ meterProvider }) }));
  app.get('/', (req, res) => {
    res.json({ hello: 'world' });
  });
  return {
    app,
    metricsUrl: `http://127.0.0.1:${port}/metrics`,
    shutdown: () => meterProvider.shutdown(),
  };
}

/** freePort asks the system for a free loopback port (the exporter cannot report the one it got). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
