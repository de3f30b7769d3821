// Runs the shared example suite (../example-suite.mjs) against the Fastify example app.
import { ManualClock } from '@ratekeeper/core';
import { exampleSuite } from '../example-suite.mjs';
import { createApp } from './app.mjs';

async function start(clock) {
  const app = await createApp({ clock });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: `http://127.0.0.1:${app.server.address().port}`, close: () => app.close() };
}

exampleSuite('Fastify', { start, ManualClock });
