import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// --expose-gc: the memory-per-key tests measure the heap after full collections.
// The store contract suite (../store-contract, imported by path: a workspace dependency would be a
// cycle) imports `@ratekeeper/core`: here that is this package's source, one module with the tests'.
export default defineConfig({
  resolve: { alias: [{ find: /^@ratekeeper\/core$/, replacement: fileURLToPath(new URL('./src/index.ts', import.meta.url)) }] },
  // typecheck: the *.test-d.ts type tests (an option an algorithm does not take must not compile) run
  // under tsc as part of `pnpm test`, each @ts-expect-error line failing the run if it compiles.
  test: { include: ['src/**/*.test.ts', 'test/**/*.test.ts'], execArgv: ['--expose-gc'], typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] } },
});
