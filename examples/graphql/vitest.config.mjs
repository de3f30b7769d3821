import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

// graphql 16 ships CommonJS (`main`) and ES modules (`module`): Yoga and Apollo load `main`, so
// @ratekeeper/graphql (a workspace link, which Vitest runs through its own resolver) must load it too,
// or the schema's types would come from another realm.
const graphql = createRequire(import.meta.url).resolve('graphql');

export default defineConfig({ resolve: { alias: [{ find: /^graphql$/, replacement: graphql }] } });
