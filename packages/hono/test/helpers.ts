/**
 * The Hono driver for the adapter contract (@ratekeeper/adapter-contract): a real Hono app around
 * rateLimit (or a mutant) served on Node over real HTTP by @hono/node-server, the address from
 * `getConnInfo` of `@hono/node-server/conninfo` (the socket), or with `proxy: true` from an `ip(c)`
 * reading the last X-Forwarded-For hop (`{ hops: n }`: the n-th from the right), as a user behind one
 * trusted proxy would write it. Errors reach `app.onError`, which records them and answers Hono's
 * plain 500.
 */
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Answer, ContractOptions, Driver, RequestView } from '@ratekeeper/adapter-contract';
import { listen } from '@ratekeeper/adapter-contract';
import type { Decision } from '@ratekeeper/core';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { type HonoRateLimitOptions, rateLimit } from '../src/index.js';

export type Factory = (options: HonoRateLimitOptions) => MiddlewareHandler;

const view = (c: Context): RequestView => ({ header: (name) => c.req.header(name), query: (name) => c.req.query(name), path: c.req.path });

/** lastHop is the address a proxy `hops` steps from the server appended to X-Forwarded-For. */
export const lastHop = (hops: number) => (c: Context) => {
  const list = (c.req.header('x-forwarded-for') ?? '').split(',').map((s) => s.trim());
  return list.length >= hops ? list[list.length - hops] : undefined;
};

/** source is where the driver tells rateLimit to find the address, per the contract's `proxy`. */
export function source(proxy: unknown): Pick<HonoRateLimitOptions, 'getConnInfo' | 'ip'> {
  if (proxy === undefined || proxy === false) return { getConnInfo };
  return { ip: lastHop(typeof proxy === 'object' && proxy !== null ? (proxy as { hops: number }).hops : 1) };
}

/** translate maps the contract's options onto Hono's. */
export function translate(options: ContractOptions, proxy?: unknown): HonoRateLimitOptions {
  const { key, skip, cost, plan, countOutcome, settle, onDecision, handler, ...rest } = options;
  return {
    ...source(proxy),
    ...rest,
    ...(key === undefined ? {} : { key: (c: Context) => key(view(c)) }),
    ...(skip === undefined ? {} : { skip: (c: Context) => skip(view(c)) }),
    ...(cost === undefined ? {} : { cost: (c: Context) => cost(view(c)) }),
    ...(plan === undefined ? {} : { plan: (c: Context) => plan(view(c)) }),
    ...(countOutcome === undefined ? {} : { countOutcome: (o, c: Context) => countOutcome(o, view(c)) }),
    ...(settle === undefined ? {} : { settle: (o, c: Context) => settle(o, view(c)) }),
    ...(onDecision === undefined ? {} : { onDecision: (d, c: Context) => onDecision(d, view(c)) }),
    ...(handler === undefined
      ? {}
      : {
          handler: (c: Context, d) => {
            const json = (a: Answer) => (a.status === undefined ? c.json(a.body) : c.json(a.body, a.status as 429));
            const answer = handler(d, view(c));
            return answer instanceof Promise ? answer.then(json) : json(answer);
          },
        }),
  } as HonoRateLimitOptions; // rest keeps the contract options' limiter choice, which spreading loses to the type checker
}

const CHUNK = new Uint8Array(65_536).fill(120); // 'x'

/**
 * chunked streams `bytes` bytes of 'x' in 64 KiB chunks, one per pull: the runtime reads it as the
 * socket drains, so a body larger than the socket buffers cannot be read to its end by a client
 * that stopped reading (a single 32 MB string would be handed to Node's buffer at once, and its
 * Response read to the end before the client has any of it).
 */
function chunked(bytes: number): ReadableStream<Uint8Array> {
  let left = bytes;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const n = Math.min(left, CHUNK.byteLength);
      left -= n;
      if (n > 0) controller.enqueue(CHUNK.slice(0, n));
      if (left === 0) controller.close();
    },
  });
}

/**
 * route is the contract's GET /: 'ok', or with `?status=N` that status, with `?bytes=N` a body of N
 * bytes (no Content-Length header); with `?throw=1` it throws (app.onError answers 500), with
 * `?hold=1` it works until the client goes away (the request's signal aborts) and only then answers.
 */
export const route = (c: Context): Response | Promise<Response> => {
  if (c.req.query('throw') !== undefined) throw new Error('the route failed');
  const signal = c.req.raw.signal;
  if (c.req.query('hold') !== undefined) return new Promise((answer) => signal.addEventListener('abort', () => answer(c.text('late')), { once: true }));
  const bytes = c.req.query('bytes');
  const status = Number(c.req.query('status') ?? 200) as 200;
  return bytes === undefined ? c.body('ok', status) : c.body(chunked(Number(bytes)), status);
};

/** serve listens with a Hono app on loopback, closed after the test. */
export const serveApp = (app: Hono) => listen({ listen: (port, host) => (createAdaptorServer({ fetch: app.fetch }) as Server).listen(port, host) });

export const driver: Driver<Factory> = {
  name: 'Hono 4 on Node (@hono/node-server)',
  rateLimit,
  async construct(options) {
    rateLimit(translate(options, true));
  },
  serve(options, setup = {}) {
    const app = new Hono<{ Bindings: { incoming: never; outgoing: never } }>();
    const errors: unknown[] = [];
    const ips: (string | undefined)[] = [];
    const decisions: (Decision | undefined)[] = [];
    let ran = 0;
    app.onError((error, c) => (errors.push(error), c.text('Internal Server Error', 500)));
    const { before } = setup;
    if (before !== undefined) app.use(async (c, next) => (before(c.env.incoming, c.env.outgoing), next()));
    const address = source(setup.proxy);
    app.use((setup.factory ?? rateLimit)(translate(options, setup.proxy)));
    const { work } = setup;
    app.get('/', async (c) => {
      ran++;
      ips.push(address.ip?.(c as unknown as Context) ?? getConnInfo(c as unknown as Context).remote.address);
      decisions.push((c.var as { rateLimit?: Decision }).rateLimit);
      if (work !== undefined) await work(view(c as unknown as Context));
      return route(c as unknown as Context);
    });
    return { ...serveApp(app as unknown as Hono), errors, ips, decisions, ran: () => ran };
  },
  serveRoutes(mounts) {
    const app = new Hono();
    app.use(rateLimit(translate(mounts.app)));
    if (mounts.router !== undefined) {
      const api = new Hono();
      api.use(rateLimit(translate(mounts.router)));
      api.get('/thing', (c) => c.text('thing'));
      app.route('/api', api);
    }
    for (const [path, options] of Object.entries(mounts.routes)) app.get(path, rateLimit(translate(options)), (c) => c.text(path));
    return serveApp(app);
  },
};
