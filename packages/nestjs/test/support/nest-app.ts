/**
 * A real Nest application on a real loopback socket, on either platform, built synchronously for the
 * adapter contract's Driver (whose `serve` answers at once): the Node server listens immediately and
 * hands each request to the platform once Nest has initialised (a request that arrives earlier waits
 * for it). `before` runs first, on the raw Node objects, as an earlier middleware would (Express:
 * the first middleware; Fastify: the first onRequest hook), and the request goes on.
 */
import 'reflect-metadata';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { DynamicModule, INestApplication, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { type Listening, listen } from '@ratekeeper/adapter-contract';
import express from 'express';
import { afterEach } from 'vitest';

export type PlatformName = 'Express' | 'Fastify';
export const PLATFORMS: readonly PlatformName[] = ['Express', 'Fastify'];

const apps: Promise<INestApplication | undefined>[] = [];
afterEach(async () => {
  for (const app of await Promise.all(apps.splice(0))) await app?.close();
});

export interface AppSetup {
  /** The framework's trust-proxy setting (Express `trust proxy`, Fastify `trustProxy`). */
  readonly proxy?: unknown;
  readonly before?: (req: IncomingMessage, res: ServerResponse) => void;
  /** Runs on the Nest application before it initialises (global filters …). */
  readonly configure?: (app: INestApplication) => void;
}

export interface NestServed extends Listening {
  /** Resolves once Nest has initialised (rejects with its startup error). */
  readonly ready: Promise<INestApplication>;
}

/** serveNest starts `module` on `platform` (see above). */
export function serveNest(platform: PlatformName, module: Type | DynamicModule, setup: AppSetup = {}): NestServed {
  let handle: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const ready = (async () => {
    if (platform === 'Express') {
      const instance = express();
      instance.set('trust proxy', setup.proxy ?? false);
      const app = await NestFactory.create(module, new ExpressAdapter(instance), { logger: false, abortOnError: false });
      const { before } = setup;
      if (before !== undefined) app.use((req: IncomingMessage, res: ServerResponse, next: () => void) => (before(req, res), next()));
      setup.configure?.(app);
      await app.init();
      handle = instance;
      return app;
    }
    const adapter = new FastifyAdapter(setup.proxy === undefined ? {} : { trustProxy: setup.proxy as never });
    const app = await NestFactory.create(module, adapter, { logger: false, abortOnError: false });
    const { before } = setup;
    if (before !== undefined) {
      adapter.getInstance().addHook('onRequest', (request: { raw: IncomingMessage }, reply: { raw: ServerResponse }, done: () => void) => (before(request.raw, reply.raw), done()));
    }
    setup.configure?.(app);
    await app.init();
    const fastify = adapter.getInstance();
    await fastify.ready();
    handle = (req, res) => fastify.routing(req, res);
    return app;
  })();
  apps.push(ready.catch(() => undefined));
  const server = createServer((req, res) => {
    if (handle !== undefined) return handle(req, res);
    ready.then(
      () => handle?.(req, res),
      (error: unknown) => {
        res.statusCode = 500;
        res.end(`the app did not start: ${String(error)}`);
      },
    );
  });
  return { ...listen({ listen: (port, host) => server.listen(port, host) }), ready };
}
