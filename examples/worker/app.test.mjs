// The shared example suite against the fetch app (on Node, on a ManualClock), then the Worker module
// bundled by esbuild (as wrangler does) on workerd through Miniflare.
import { fileURLToPath } from 'node:url';
import { ManualClock } from '@ratekeeper/core';
import { exampleSuite } from '../example-suite.mjs';
import { inCI, onNode, smokeSuite } from '../runtime-example.mjs';
import { createApp } from './app.mjs';

const dir = fileURLToPath(new URL('.', import.meta.url));
const miniflare = await import('miniflare').catch((error) => {
  if (inCI) throw error;
  return undefined;
});

exampleSuite('fetch (as on Workers)', { start: onNode(createApp), ManualClock, stacked: true });
smokeSuite('workerd (Miniflare)', miniflare !== undefined, async () => {
  const { build } = await import('esbuild');
  const bundle = await build({
    entryPoints: [`${dir}worker.mjs`],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser', 'import'],
    logLevel: 'silent',
  });
  const mf = new miniflare.Miniflare({ modules: true, script: bundle.outputFiles[0].text, compatibilityDate: '2025-07-01', host: '127.0.0.1', port: 0 });
  return { url: String(await mf.ready).replace(/\/$/, ''), close: () => mf.dispose() };
});
