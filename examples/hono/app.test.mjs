// Runs the shared example suite (../example-suite.mjs) against the Hono example app on Node.
import { createAdaptorServer } from '@hono/node-server';
import { once } from 'node:events';
import { ManualClock } from '@ratekeeper/core';
import { exampleSuite } from '../example-suite.mjs';
import { createApp } from './app.mjs';

async function start(clock) {
  const server = createAdaptorServer({ fetch: createApp({ clock }).fetch }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((done) => server.close(done)) };
}

exampleSuite('Hono', { start, ManualClock, stacked: true });
