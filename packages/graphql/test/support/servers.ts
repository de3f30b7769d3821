/**
 * Real servers over real HTTP on 127.0.0.1: GraphQL Yoga on a Node http server, and Apollo Server 5
 * by its standalone server. `post` sends one body and answers the status, Retry-After and JSON.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import type { GraphQLSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';

export interface Served {
  readonly url: string;
  close(): Promise<void>;
}

export interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  // biome-ignore lint/suspicious/noExplicitAny: a GraphQL response body as parsed JSON
  readonly body: any;
}

export async function serveYoga(schema: GraphQLSchema, plugin: unknown, options: { batching?: boolean } = {}): Promise<Served> {
  const yoga = createYoga({ schema, plugins: [plugin as Plugin], batching: options.batching === true ? { limit: 100 } : false, logging: false, maskedErrors: false });
  const server = createServer(yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/graphql`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function serveApollo(schema: GraphQLSchema, plugin: unknown, options: { batching?: boolean } = {}): Promise<Served> {
  const apollo = new ApolloServer({ schema, plugins: [plugin as ApolloServerPlugin], allowBatchedHttpRequests: options.batching ?? false });
  const { url } = await startStandaloneServer(apollo, { listen: { port: 0, host: '127.0.0.1' } });
  return { url, close: () => apollo.stop() };
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

/** aliases answers a document of `n` aliased logins. */
export function aliases(n: number): string {
  const fields = Array.from({ length: n }, (_, i) => `a${i}: login(user: "ada", password: "guess${i}")`);
  return `mutation { ${fields.join(' ')} }`;
}
