/**
 * Starts the OpenTelemetry example: the app on 127.0.0.1:PORT (default 3000; 0 picks a free port) and
 * the Prometheus endpoint on 127.0.0.1:METRICS_PORT (default 9464, the exporter's usual port).
 */
import { createApp } from './app.mjs';

const { app, metricsUrl } = await createApp({ metricsPort: Number(process.env.METRICS_PORT ?? 9464) });
const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
  console.log(`metrics on ${metricsUrl}`);
});
