import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Files run one at a time: the contention and crash suites start 8 processes on one file and would
// distort each other on 2 cores.
export default defineConfig({
  // Vitest cannot transform src/own-require.cts (`export = require`): the tests get the same require.
  resolve: { alias: [{ find: /^\.\/own-require\.cjs$/, replacement: fileURLToPath(new URL('./test/support/own-require.ts', import.meta.url)) }] },
  test: { include: ['test/**/*.test.ts'], fileParallelism: false, testTimeout: 60_000, hookTimeout: 60_000 },
});
