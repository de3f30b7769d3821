// Runs the shared example suite (../example-suite.mjs) against the Koa example app.
import { once } from 'node:events';
import { ManualClock } from '@ratekeeper/core';
import { exampleSuite } from '../example-suite.mjs';
import { createApp } from './app.mjs';

async function start(clock) {
  const server = createApp({ clock }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((done) => server.close(done)) };
}

exampleSuite('Koa', { start, ManualClock, stacked: true });
