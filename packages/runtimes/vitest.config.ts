import { defineConfig } from 'vitest/config';

// Servers in other processes (next dev compiles on demand) answer slower than in-process apps on a
// busy CI machine: a generous per-test bound, still far below the suite's minutes.
export default defineConfig({ test: { include: ['test/**/*.test.ts'], testTimeout: 30_000 } });
