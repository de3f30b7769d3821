/**
 * Next.js: an App Router route handler (servers/next/app/[...path]/route.js) called the way Next
 * calls one, with a NextRequest from `next/server`, behind a small Node HTTP bridge standing in for
 * Next's server and the proxy in front of it: the bridge sets x-real-ip from the socket (overwriting
 * any client value), passes the request's abort signal on and answers a thrown error with a plain
 * 500, as Next does. No Next build is run.
 */
import type { IncomingMessage, Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { NextRequest } from 'next/server.js';
import { afterAll, beforeAll, describe } from 'vitest';
import { GET } from '../servers/next/app/[...path]/route.js';
import { runtimeSuite } from './suite.js';

let server: Server | undefined;
let url = '';

describe('Next.js', () => {
  beforeAll(async () => {
    const bridge = async (request: Request, env: { incoming: IncomingMessage }) => {
      const headers = new Headers(request.headers);
      headers.set('x-real-ip', env.incoming.socket.remoteAddress ?? '');
      try {
        return await GET(new NextRequest(request.url, { method: request.method, headers, signal: request.signal }));
      } catch {
        return new Response('Internal Server Error', { status: 500 });
      }
    };
    server = (createAdaptorServer({ fetch: bridge as never }) as Server).listen(0, '127.0.0.1');
    await new Promise((done) => server!.once('listening', done));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise((done) => server?.close(done));
  });
  runtimeSuite('a Next.js route handler', () => url, ['f'], { outcomes: 'all' });
});
