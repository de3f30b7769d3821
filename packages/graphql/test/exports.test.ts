/**
 * The public surface: the exact export list; the built package loading with require() (a CommonJS
 * child serving one operation through GraphQL Yoga) and with import on the running Node; and the
 * plugins' types accepted where Yoga and Apollo Server take plugins (checked by `pnpm typecheck`).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ApolloServerPlugin } from '@apollo/server';
import { TokenBucketLimiter } from '@ratekeeper/core';
import type { Plugin } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import { apolloCostBudget, useCostBudget } from '../src/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8', timeout: 20_000 });

const SERVE_ONE = `
  const { createYoga } = require('graphql-yoga');
  const { makeExecutableSchema } = require('@graphql-tools/schema');
  const { TokenBucketLimiter } = require('@ratekeeper/core');
  const graphql = require('@ratekeeper/graphql');
  const schema = makeExecutableSchema({ typeDefs: 'type Query { hello: String }', resolvers: { Query: { hello: () => 'world' } } });
  const limiter = new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1 });
  const yoga = createYoga({ schema, plugins: [graphql.useCostBudget({ limiter, key: () => 'k' })], logging: false });
  yoga.fetch('http://localhost/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ hello }"}' })
    .then((res) => res.json())
    .then((body) => console.log(JSON.stringify([Object.keys(graphql).sort(), body])));`;

const EXPORTS = ['CostModel', 'apolloCostBudget', 'useCostBudget'];

describe('@ratekeeper/graphql', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(api).sort()).toEqual(EXPORTS);
  });

  it('is require()d from CommonJS and prices an operation through Yoga', () => {
    const [names, body] = JSON.parse(node(['-e', SERVE_ONE]));
    expect(names).toEqual(EXPORTS);
    expect(body).toEqual({
      data: { hello: 'world' },
      extensions: { cost: { requestedQueryCost: 1, actualQueryCost: 1, throttleStatus: { maximumAvailable: 10, currentlyAvailable: 9, restoreRate: 1 } } },
    });
  });

  it('is import()ed from ESM with the same names', () => {
    const out = node(['--input-type=module', '-e', "const m = await import('@ratekeeper/graphql'); console.log(JSON.stringify(Object.keys(m).sort()))"]);
    expect(JSON.parse(out)).toEqual(EXPORTS);
  });

  it('gives plugins of the types Yoga and Apollo Server take', () => {
    const limiter = new TokenBucketLimiter({ capacity: 10, refillPerSecond: 1 });
    const yoga: Plugin = useCostBudget({ limiter, key: () => 'k' });
    const apollo: ApolloServerPlugin = apolloCostBudget({ limiter, key: () => 'k' });
    expect(typeof yoga.onExecute).toBe('function');
    expect(typeof apollo.requestDidStart).toBe('function');
  });
});
