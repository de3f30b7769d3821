import { defineConfig } from 'vitest/config';

// Files run one at a time: the fault and concurrency suites start and stop real redis-server
// processes and measure latencies, which a neighbour suite's load on 2 cores would distort.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    setupFiles: ['test/support/guard.ts'],
    fileParallelism: false,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
