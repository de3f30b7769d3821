import { defineConfig } from 'vitest/config';

// Files run one at a time: the burst and fault suites start 8 processes on one server and would
// distort each other on 2 cores.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], fileParallelism: false, testTimeout: 120_000, hookTimeout: 60_000 },
});
