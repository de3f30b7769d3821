/**
 * A budget worker, run as a child process by ../budget-processes.test.ts through store-contract's
 * WorkerPool. On 'setup' it opens its own store client (a RedisStore over ioredis, a PostgresStore over
 * a pg Pool, a MySqlStore over a mysql2 pool, or a SqliteStore on the shared file; DEFAULT store options), builds the client's budget (a token bucket named `gql`)
 * and a GraphQL Yoga server on a free loopback port with the built @ratekeeper/graphql plugin (dist,
 * or a mutant build), and answers 'ready'; on 'go' it POSTs all its operations at once and reports how
 * many were admitted and denied and the actual costs the responses announced. Plain JavaScript, so
 * that it starts without a TypeScript loader.
 */
import { createServer } from 'node:http';
import { makeExecutableSchema } from '@graphql-tools/schema';
import { TokenBucketLimiter } from '@ratekeeper/core';
import { createYoga } from 'graphql-yoga';

const DIST = new URL('../../dist/esm/index.js', import.meta.url).href;

const schema = makeExecutableSchema({
  typeDefs: 'type Query { items(first: Int): [Item!]! } type Item { id: ID! }',
  resolvers: { Query: { items: (_, { first }) => Array.from({ length: Math.min(first ?? 10, 3) }, (_, i) => ({ id: String(i) })) } },
});

let server;
let url;
let operations = 0;
let end = async () => {};

async function storeOf(message) {
  if (message.store === 'redis') {
    const { Redis } = await import('ioredis');
    const { RedisStore } = await import('@ratekeeper/redis');
    const client = new Redis({ host: '127.0.0.1', port: message.port });
    return { store: new RedisStore({ client }), end: async () => client.disconnect() };
  }
  if (message.store === 'mysql') {
    const mysql = (await import('mysql2/promise')).default;
    const { MySqlStore } = await import('@ratekeeper/mysql');
    const pool = mysql.createPool({ uri: 'mysql://root@127.0.0.1:3306/test', connectionLimit: 10 });
    return { store: new MySqlStore({ client: pool, table: message.table }), end: () => pool.end() };
  }
  if (message.store === 'sqlite') {
    const { SqliteStore } = await import('@ratekeeper/sqlite');
    const store = new SqliteStore({ path: message.path });
    return { store, end: async () => store.close?.() };
  }
  const pg = (await import('pg')).default;
  const { PostgresStore } = await import('@ratekeeper/postgres');
  const pool = new pg.Pool({ host: '127.0.0.1', port: 5432, user: 'root', database: 'test' });
  pool.on('error', () => {});
  return { store: new PostgresStore({ client: pool, table: message.table }), end: () => pool.end() };
}

async function setup(message) {
  const { useCostBudget } = await import(message.dist ?? DIST);
  const made = await storeOf(message);
  end = made.end;
  const limiter = new TokenBucketLimiter({ capacity: message.capacity, refillPerSecond: message.refillPerSecond, name: 'gql', store: made.store });
  const yoga = createYoga({ schema, plugins: [useCostBudget({ limiter, key: () => message.key })], logging: false });
  server = createServer(yoga);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${server.address().port}/graphql`;
  operations = message.operations;
  // One request outside the count opens the store's connection (and creates its table).
  await limiter.peek(`warm-${process.pid}`, 1);
}

async function one() {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ items(first: 10) { id } }' }) });
  const body = await res.json();
  return { status: res.status, actual: body.extensions?.cost?.actualQueryCost ?? 0 };
}

async function go() {
  const answers = await Promise.all(Array.from({ length: operations }, one));
  const admitted = answers.filter((a) => a.status === 200).length;
  const denied = answers.filter((a) => a.status === 429).length;
  const actual = answers.reduce((sum, a) => sum + a.actual, 0);
  process.send({ type: 'done', admitted, denied, actual });
}

process.on('message', (message) => {
  let run = null;
  if (message.type === 'setup') run = setup(message).then(() => process.send({ type: 'ready' }));
  else if (message.type === 'go') run = go();
  else if (message.type === 'exit') void end().finally(() => process.exit(0));
  run?.catch((error) => process.send({ type: 'error', message: String(error?.stack ?? error) }));
});

// A worker never outlives its parent.
process.on('disconnect', () => process.exit(0));
