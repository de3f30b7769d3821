/**
 * The example store (../example/map-store.ts) passes the contract suite, in the five lines this
 * package's README shows a third party (the suite imported here from source: this is its own
 * package); and core's README, which walks through the store, shows the file as it is (all but its
 * opening comment), so the walk-through cannot drift from the store the suite runs.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { MapStore } from '../example/map-store.js';
import { storeContractSuite } from '../src/index.js';

storeContractSuite('MapStore', async () => ({ store: new MapStore() }), {
  differential: { store: () => new MapStore() },
  burst: { skip: 'its rows are a Map in one process' },
});

it("core's README shows example/map-store.ts under Write a store, as it is", () => {
  const file = readFileSync(new URL('../example/map-store.ts', import.meta.url), 'utf8');
  const readme = readFileSync(new URL('../../core/README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Write a store'));
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(block).toBe(file.slice(file.indexOf('*/\n') + 3));
});
