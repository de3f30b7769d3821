import { defineConfig } from 'vitest/config';

// --expose-gc: the memory-per-key tests measure the heap after full collections.
export default defineConfig({ test: { include: ['src/**/*.test.ts', 'test/**/*.test.ts'], execArgv: ['--expose-gc'] } });
