import { defineConfig } from 'vitest/config';

// The multi-process budget tests start 8 worker processes each: a generous timeout, one file at a time.
export default defineConfig({ test: { include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000, fileParallelism: false } });
