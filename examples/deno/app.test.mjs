// The shared example suite against the fetch app (on Node, on a ManualClock), then the example's own
// server script on Deno.
import { fileURLToPath } from 'node:url';
import { ManualClock } from '@ratekeeper/core';
import { exampleSuite } from '../example-suite.mjs';
import { binary, onNode, smokeSuite, spawnServer } from '../runtime-example.mjs';
import { createApp } from './app.mjs';

const dir = fileURLToPath(new URL('.', import.meta.url));
const deno = binary('deno', dir);

exampleSuite('fetch (as on Deno)', { start: onNode(createApp), ManualClock, stacked: true });
smokeSuite('Deno', deno !== undefined, () => spawnServer(deno, ['run', '--allow-net', '--allow-env', '--allow-read', '--allow-sys', '--no-prompt', 'server.mjs'], dir));
