/**
 * Real GraphQL applications for the guard's tests: Nest with @nestjs/graphql under the Apollo driver
 * (on the Express or the Fastify platform, subscriptions over graphql-ws) or the Mercurius driver (on
 * Fastify, subscriptions over its own WebSocket), schema first, listening on a loopback port. The
 * resolvers count their runs; `ticks` is a subscription of three ticks.
 */
import 'reflect-metadata';
import { type DynamicModule, type INestApplication, Module, type Provider, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { GraphQLModule } from '@nestjs/graphql';
import { MercuriusDriver, type MercuriusDriverConfig } from '@nestjs/mercurius';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { afterEach } from 'vitest';

export type GqlServer = 'Apollo on Express' | 'Apollo on Fastify' | 'Mercurius on Fastify';
export const GQL_SERVERS: readonly GqlServer[] = ['Apollo on Express', 'Apollo on Fastify', 'Mercurius on Fastify'];

export const TYPE_DEFS = `
  type Query { hello: String, other: String }
  type Mutation { login(name: String!): Boolean }
  type Subscription { ticks: Int }
`;

const apps: INestApplication[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

export interface GqlApp {
  readonly app: INestApplication;
  readonly url: string;
  /** Posts one GraphQL operation; answers the HTTP status, headers and JSON body. */
  post(query: string, variables?: Record<string, unknown>): Promise<{ status: number; headers: Headers; body: GqlBody }>;
}

export interface GqlBody {
  readonly data?: Record<string, unknown> | null;
  readonly errors?: readonly { message: string; extensions?: Record<string, unknown> }[];
}

function graphqlModule(server: GqlServer): DynamicModule {
  if (server === 'Mercurius on Fastify') return GraphQLModule.forRoot<MercuriusDriverConfig>({ driver: MercuriusDriver, typeDefs: TYPE_DEFS, subscription: true });
  return GraphQLModule.forRoot<ApolloDriverConfig>({ driver: ApolloDriver, typeDefs: TYPE_DEFS, subscriptions: { 'graphql-ws': true } });
}

/** startGql starts an application with `imports`, the GraphQL module of `server`, `resolvers` and `providers`. */
export async function startGql(server: GqlServer, imports: DynamicModule[], resolvers: Type[], providers: Provider[] = []): Promise<GqlApp> {
  @Module({ imports: [...imports, graphqlModule(server)], providers: [...resolvers, ...providers] })
  class GqlModule {}
  const adapter = server === 'Apollo on Express' ? new ExpressAdapter() : new FastifyAdapter();
  const app = await NestFactory.create(GqlModule, adapter, { logger: false, abortOnError: false });
  apps.push(app);
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  const post = async (query: string, variables?: Record<string, unknown>) => {
    const res = await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
    return { status: res.status, headers: res.headers, body: (await res.json()) as GqlBody };
  };
  return { app, url, post };
}
