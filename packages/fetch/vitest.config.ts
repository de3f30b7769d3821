import { defineConfig } from 'vitest/config';

// typecheck: the *.test-d.ts type tests (an option an algorithm does not take must not compile) run
// under tsc as part of `pnpm test`, each @ts-expect-error line failing the run if it compiles.
export default defineConfig({ test: { include: ['src/**/*.test.ts', 'test/**/*.test.ts'], typecheck: { enabled: true, include: ['test/**/*.test-d.ts'] } } });
