import { defineConfig } from 'vitest/config';

// testTimeout: a Nest application answers a request in tens of µs of CPU, several times Express alone;
// the contract's IP suite sends a thousand requests through it, which on a loaded 2-core machine can
// pass vitest's 5 s default. The tests wait on events, never on time.
export default defineConfig({ test: { include: ['test/**/*.test.ts'], testTimeout: 30_000 } });
