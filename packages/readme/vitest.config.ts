import { defineConfig } from 'vitest/config';

// Two tsc runs over every block: tens of seconds on a busy machine.
export default defineConfig({ test: { include: ['test/**/*.test.ts'], testTimeout: 300_000 } });
