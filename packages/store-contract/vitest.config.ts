import { defineConfig } from 'vitest/config';

// testTimeout: test/mutants.test.ts runs every clause of the suite on each broken store inside one
// test, seconds apiece (5–12 s on a loaded two-core machine), past vitest's 5 s default.
export default defineConfig({ test: { include: ['test/**/*.test.ts'], testTimeout: 120_000 } });
