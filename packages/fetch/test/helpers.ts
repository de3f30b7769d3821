/**
 * The fetch driver for the adapter contract (@ratekeeper/adapter-contract): a Web-standard handler
 * `(request) => Response` around the check, served on Node over real HTTP by @hono/node-server's
 * adaptor (the same Request/Response bridge a Node user of a fetch-style app runs). The handler stands
 * in for the runtime's error handler too: a rejected check is recorded and answered with a plain 500,
 * as Bun.serve's `error` and Deno.serve's `onError` do.
 *
 * The client address is what the caller passes: the socket's address, or with `proxy: true` the last
 * X-Forwarded-For hop (what one trusted reverse proxy appends), or with `proxy: { hops: n }` the n-th
 * hop from the right. The contract's callbacks see a RequestView of the Request. GET / answers
 * through `limit.headers`, so countOutcome and settle see its end.
 */
import type { IncomingMessage, Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import type { Answer, ContractOptions, Driver, RequestView } from '@ratekeeper/adapter-contract';
import { listen } from '@ratekeeper/adapter-contract';
import type { Decision } from '@ratekeeper/core';
import { type FetchRateLimit, type FetchRateLimitOptions, rateLimit } from '../src/index.js';

export type Factory = (options: FetchRateLimitOptions) => FetchRateLimit;

export const view = (request: Request): RequestView => {
  const url = new URL(request.url);
  return { header: (name) => request.headers.get(name) ?? undefined, query: (name) => url.searchParams.get(name) ?? undefined, path: url.pathname };
};

/**
 * route is the contract's GET /: 'ok', or with `?status=N` that status, with `?bytes=N` a body of N
 * bytes (no Content-Length header: the runtime's count); with `?throw=1` it throws (the driver answers
 * 500), with `?hold=1` it works until the client goes away (its request's signal aborts), as a handler
 * that watches `request.signal` does, and only then answers.
 */
export const route = (request: Request): Response | Promise<Response> => {
  const query = new URL(request.url).searchParams;
  if (query.has('throw')) throw new Error('the route failed');
  if (query.has('hold')) return new Promise((answer) => request.signal.addEventListener('abort', () => answer(new Response('late')), { once: true }));
  const bytes = query.get('bytes');
  return new Response(bytes === null ? 'ok' : 'x'.repeat(Number(bytes)), { status: Number(query.get('status') ?? 200) });
};

const json = (answer: Answer) => (answer.status === undefined ? Response.json(answer.body) : Response.json(answer.body, { status: answer.status }));

/** translate maps the contract's options onto the fetch adapter's. */
export function translate(options: ContractOptions): FetchRateLimitOptions {
  const { key, skip, cost, plan, countOutcome, settle, onDecision, handler, ...rest } = options;
  return {
    ...rest,
    ...(key === undefined ? {} : { key: (r: Request) => key(view(r)) }),
    ...(skip === undefined ? {} : { skip: (r: Request) => skip(view(r)) }),
    ...(cost === undefined ? {} : { cost: (r: Request) => cost(view(r)) }),
    ...(plan === undefined ? {} : { plan: (r: Request) => plan(view(r)) }),
    ...(countOutcome === undefined ? {} : { countOutcome: (o, r: Request) => countOutcome(o, view(r)) }),
    ...(settle === undefined ? {} : { settle: (o, r: Request) => settle(o, view(r)) }),
    ...(onDecision === undefined ? {} : { onDecision: (d, r: Request) => onDecision(d, view(r)) }),
    ...(handler === undefined
      ? {}
      : {
          handler: (r: Request, d) => {
            const answer = handler(d, view(r));
            return answer instanceof Promise ? answer.then(json) : json(answer);
          },
        }),
  } as FetchRateLimitOptions; // rest keeps the contract options' limiter choice, which spreading loses to the type checker
}

/** clientIp is the address the driver hands the check, per the contract's `proxy` setting. */
export function clientIp(incoming: IncomingMessage, proxy: unknown): string | undefined {
  if (proxy === undefined || proxy === false) return incoming.socket.remoteAddress;
  const hops = typeof proxy === 'object' && proxy !== null ? (proxy as { hops: number }).hops : 1;
  const xff = incoming.headers['x-forwarded-for'];
  const list = (Array.isArray(xff) ? xff.join(',') : (xff ?? '')).split(',').map((s) => s.trim());
  return list.length >= hops ? list[list.length - hops] : incoming.socket.remoteAddress;
}

type Env = { incoming: IncomingMessage };
const internalError = () => new Response('Internal Server Error', { status: 500 });

/** serveFetch serves a fetch handler on loopback, closed after the test. */
export const serveFetch = (fetch: (request: Request, env: Env) => Response | Promise<Response>) =>
  listen({ listen: (port, host) => (createAdaptorServer({ fetch: fetch as never }) as Server).listen(port, host) });

export const driver: Driver<Factory> = {
  name: 'fetch on Node (@hono/node-server)',
  rateLimit,
  async construct(options) {
    rateLimit(translate(options));
  },
  serve(options, setup = {}) {
    const limit = (setup.factory ?? rateLimit)(translate(options));
    const errors: unknown[] = [];
    const ips: (string | undefined)[] = [];
    const decisions: (Decision | undefined)[] = [];
    let ran = 0;
    const served = serveFetch(async (request, env) => {
      setup.before?.(env.incoming, (env as unknown as { outgoing: never }).outgoing);
      const ip = clientIp(env.incoming, setup.proxy);
      try {
        const limited = await limit(request, { ip });
        if (limited !== undefined) return limited;
        ran++;
        ips.push(ip);
        decisions.push(limit.decision(request));
        if (setup.work !== undefined) await setup.work(view(request));
        return limit.headers(request, await route(request));
      } catch (error) {
        errors.push(error);
        // As the README's check-style example does: the 500 goes through finish, so an admitted
        // request's charge (and lease) is settled even when its handler threw.
        return limit.finish(request, internalError());
      }
    });
    return { ...served, errors, ips, decisions, ran: () => ran };
  },
  serveRoutes(mounts) {
    const app = rateLimit(translate(mounts.app));
    const router = mounts.router === undefined ? undefined : rateLimit(translate(mounts.router));
    const routes = new Map(Object.entries(mounts.routes).map(([path, o]) => [path, rateLimit(translate(o))]));
    // A fetch app routes by hand: the app-wide check, then the /api one for paths under /api, then the route's.
    return serveFetch(async (request, env) => {
      const ip = env.incoming.socket.remoteAddress;
      const path = new URL(request.url).pathname;
      const chain = [app, ...(router !== undefined && path.startsWith('/api/') ? [router] : []), ...(routes.has(path) ? [routes.get(path)!] : [])];
      for (const limit of chain) {
        const limited = await limit(request, { ip });
        if (limited !== undefined) return limited;
      }
      let response = routes.has(path) || path === '/api/thing' ? new Response(path === '/api/thing' ? 'thing' : path) : new Response('Not Found', { status: 404 });
      for (const limit of chain) response = limit.headers(request, response);
      return response;
    });
  },
};
