/**
 * Real tRPC v11 servers for the middleware's tests, on loopback, closed after each test: the Express
 * adapter (createExpressMiddleware), the Fastify adapter (fastifyTRPCPlugin) and the fetch adapter
 * (fetchRequestHandler, served on Node by @hono/node-server), each with the context the adapter's docs
 * write: `{ req, res }`, or on fetch `{ req, resHeaders }` and the client address, which the fetch
 * adapter cannot know and the application passes (`ip`). The router's procedures all go through
 * `limit`: `hello` (a query), `work` (a query that waits until the test releases it), `fail` (throws).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { createTRPCClient, httpBatchLink, httpLink } from '@trpc/client';
import { TRPCError, initTRPC } from '@trpc/server';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import { fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import express from 'express';
import Fastify from 'fastify';
import { afterEach } from 'vitest';
import { type CallOptions, rateLimitErrorFormatter } from '../../src/index.js';

export type AdapterName = 'Express' | 'Fastify' | 'fetch';
export const ADAPTERS: readonly AdapterName[] = ['Express', 'Fastify', 'fetch'];

/** The middleware under test, as `procedure.use` takes it. */
// biome-ignore lint/suspicious/noExplicitAny: tRPC's middleware options are generic in the router's types
export type Middleware = (opts: any) => Promise<any>;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

export interface Trpc {
  readonly url: string;
  /** How many times each resolver ran. */
  readonly ran: { hello: number; work: number };
  /** Resolvers of `work` calls in progress: call one to let its call finish. */
  readonly working: (() => void)[];
  readonly client: ReturnType<typeof createClient>;
  readonly batch: ReturnType<typeof createClient>;
  /** GET /trpc/hello, raw: status, headers, JSON body. */
  get(path?: string): Promise<{ status: number; headers: Headers; body: { error?: { data?: Record<string, unknown>; message?: string } } }>;
}

function buildRouter(limit: Middleware, ran: Trpc['ran'], working: Trpc['working']) {
  const t = initTRPC.context<Record<string, unknown>>().create({ errorFormatter: rateLimitErrorFormatter });
  const limited = t.procedure.use(limit);
  return t.router({
    hello: limited.query(() => {
      ran.hello++;
      return 'world';
    }),
    work: limited.query(async () => {
      ran.work++;
      await new Promise<void>((resolve) => working.push(resolve));
      return 'done';
    }),
    fail: limited.query(() => {
      throw new TRPCError({ code: 'BAD_REQUEST', message: 'the resolver failed' });
    }),
  });
}

export type AppRouter = ReturnType<typeof buildRouter>;

function createClient(url: string, batched: boolean) {
  return createTRPCClient<AppRouter>({ links: [batched ? httpBatchLink({ url: `${url}/trpc` }) : httpLink({ url: `${url}/trpc` })] });
}

/** serveTrpc serves the router behind `make(ip)` on `adapter`; `make` gets the fetch adapter's address reader (undefined elsewhere). */
export async function serveTrpc(adapter: AdapterName, make: (ip: ((opts: CallOptions) => string | undefined) | undefined) => Middleware): Promise<Trpc> {
  const ran = { hello: 0, work: 0 };
  const working: (() => void)[] = [];
  const router = buildRouter(make(adapter === 'fetch' ? ({ ctx }) => (ctx as { ip?: string }).ip : undefined), ran, working);
  let server: Server;
  if (adapter === 'Express') {
    const app = express();
    app.use('/trpc', createExpressMiddleware({ router, createContext: ({ req, res }) => ({ req, res }) }));
    server = app.listen(0, '127.0.0.1');
  } else if (adapter === 'Fastify') {
    // tRPC's Fastify docs: a batch's path (hello,hello,…) is one route parameter, past Fastify's default 100.
    const app = Fastify({ maxParamLength: 5000 });
    await app.register(fastifyTRPCPlugin, { prefix: '/trpc', trpcOptions: { router, createContext: ({ req, res }: { req: unknown; res: unknown }) => ({ req, res }) } });
    await app.listen({ port: 0, host: '127.0.0.1' });
    server = app.server;
    closers.push(() => app.close());
  } else {
    server = createAdaptorServer({
      fetch: (request: Request, env: { incoming: { socket: { remoteAddress?: string | undefined } } }) =>
        fetchRequestHandler({ endpoint: '/trpc', req: request, router, createContext: ({ req, resHeaders }) => ({ req, resHeaders, ip: env.incoming.socket.remoteAddress }) }),
    } as never) as Server;
    server.listen(0, '127.0.0.1');
  }
  if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
  if (adapter !== 'Fastify') closers.push(() => new Promise((done) => (server.close(done), server.closeAllConnections())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get: Trpc['get'] = async (path = 'hello') => {
    const res = await fetch(`${url}/trpc/${path}`);
    return { status: res.status, headers: res.headers, body: (await res.json()) as never };
  };
  return { url, ran, working, client: createClient(url, false), batch: createClient(url, true), get };
}
