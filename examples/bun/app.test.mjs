// The shared example suite against the fetch app (on Node, on a ManualClock), then the example's own
// server script on Bun.
import { fileURLToPath } from 'node:url';
import { ManualClock } from '@ratekeeper/core';
import { exampleSuite } from '../example-suite.mjs';
import { binary, onNode, smokeSuite, spawnServer } from '../runtime-example.mjs';
import { createApp } from './app.mjs';

const dir = fileURLToPath(new URL('.', import.meta.url));
const bun = binary('bun', dir);

exampleSuite('fetch (as on Bun)', { start: onNode(createApp), ManualClock, stacked: true });
smokeSuite('Bun', bun !== undefined, () => spawnServer(bun, ['server.mjs'], dir));
