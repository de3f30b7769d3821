import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

// graphql 16 ships CommonJS (`main`) and ES modules (`module`): Node loads `main` for the servers
// (Yoga, Apollo, graphql-tools), so the sources under test must load it too, or the schema's types
// would come from another realm ("Cannot use GraphQLObjectType from another module or realm").
// The multi-process budget tests start 8 worker processes each: a generous timeout (3 minutes: a busy 2-core machine takes 30 s for one burst), one file at a time.
const graphql = createRequire(import.meta.url).resolve('graphql');

export default defineConfig({
  resolve: { alias: [{ find: /^graphql$/, replacement: graphql }] },
  test: { include: ['test/**/*.test.ts'], testTimeout: 180_000, hookTimeout: 60_000, fileParallelism: false },
});
