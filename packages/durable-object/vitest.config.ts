import { defineConfig } from 'vitest/config';

// Files run one at a time: each starts its own workerd (Miniflare) with several Worker isolates and
// drives thousands of concurrent decisions, which a neighbour file's load on 2 cores would distort.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 90_000,
  },
});
