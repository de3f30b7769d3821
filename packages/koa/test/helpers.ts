/**
 * The Koa driver for the adapter contract (@ratekeeper/adapter-contract): one driver per Koa major,
 * each building a real app around rateLimit (or a mutant) with a downstream middleware that answers
 * 'ok', recording the errors Koa reports through its 'error' event (which also keeps Koa from logging
 * them). The contract's framework-neutral callbacks are translated here into Koa's ctx shapes.
 */
import { Router } from '@koa/router';
import type { Answer, ContractOptions, Driver, RequestView } from '@ratekeeper/adapter-contract';
import { listen, refusal } from '@ratekeeper/adapter-contract';
import type { ServerResponse } from 'node:http';
import type { Decision } from '@ratekeeper/core';
import Koa, { type Context, type Middleware } from 'koa';
import Koa2 from 'koa2';
import { type KoaRateLimitOptions, rateLimit } from '../src/index.js';

export type Factory = (options: KoaRateLimitOptions) => Middleware;

/** The Koa majors the contract runs against. */
export const koas = [
  ['Koa 3', Koa],
  ['Koa 2', Koa2 as unknown as typeof Koa],
] as const;

const view = (ctx: Context): RequestView => ({
  // Koa answers '' for an absent header; the contract's callbacks expect undefined.
  header: (name) => ctx.get(name) || undefined,
  query: (name) => {
    const value = ctx.query[name];
    return typeof value === 'string' ? value : undefined;
  },
  path: ctx.path,
});

/** translate maps the contract's options onto Koa's, leaving everything else untouched. */
export function translate(options: ContractOptions): KoaRateLimitOptions {
  const { key, skip, cost, plan, onDecision, countOutcome, settle, handler, ...rest } = options;
  const send = (ctx: Context, answer: Answer) => {
    if (answer.status !== undefined) ctx.status = answer.status;
    ctx.body = answer.body;
  };
  return {
    ...rest,
    ...(key === undefined ? {} : { key: (ctx: Context) => key(view(ctx)) }),
    ...(skip === undefined ? {} : { skip: (ctx: Context) => skip(view(ctx)) }),
    ...(cost === undefined ? {} : { cost: (ctx: Context) => cost(view(ctx)) }),
    ...(plan === undefined ? {} : { plan: (ctx: Context) => plan(view(ctx)) }),
    ...(countOutcome === undefined ? {} : { countOutcome: (o, ctx: Context) => countOutcome(o, view(ctx)) }),
    ...(settle === undefined ? {} : { settle: (o, ctx: Context) => settle(o, view(ctx)) }),
    ...(onDecision === undefined ? {} : { onDecision: (d, ctx: Context) => onDecision(d, view(ctx)) }),
    ...(handler === undefined
      ? {}
      : {
          handler: (ctx: Context, d) => {
            const answer = handler(d, view(ctx));
            return answer instanceof Promise ? answer.then((a) => send(ctx, a)) : send(ctx, answer);
          },
        }),
  } as KoaRateLimitOptions; // rest keeps the contract options' limiter choice, which spreading loses to the type checker
}

/** Koa's proxy settings: a boolean for app.proxy, or app.proxy on with a maxIpsCount. */
const proxySettings = (proxy: unknown) => (typeof proxy === 'object' && proxy !== null ? { proxy: true, ...proxy } : { proxy: proxy === true });

/** refuseHeader makes Node's setHeader and appendHeader throw for `refused`, as Node does for an invalid value. */
function refuseHeader(res: ServerResponse, refused: string): void {
  for (const method of ['setHeader', 'appendHeader'] as const) {
    const original = res[method] as (name: string, value: unknown) => ServerResponse;
    res[method] = function (this: ServerResponse, name: string, value: unknown) {
      if (name.toLowerCase() === refused) throw refusal(name);
      return original.call(this, name, value);
    } as never;
  }
}

/** body is the route's answer: 'ok', or `bytes` bytes when asked. */
const body = (bytes: unknown): string => (typeof bytes === 'string' ? 'x'.repeat(Number(bytes)) : 'ok');

function driver(name: string, K: typeof Koa): Driver<Factory> {
  return {
    name,
    rateLimit,
    construct: async (options) => void rateLimit(translate(options)),
    genericErrorBody: 'Internal Server Error',
    serve(options, setup = {}) {
      const app = new K(proxySettings(setup.proxy));
      const errors: unknown[] = [];
      app.on('error', (error: unknown) => errors.push(error));
      const ips: string[] = [];
      const decisions: (Decision | undefined)[] = [];
      let ran = 0;
      const { before } = setup;
      if (before !== undefined) {
        app.use(async (ctx, next) => {
          before(ctx.req, ctx.res);
          // An answer written on the raw response is final: Koa must not respond again.
          if (ctx.res.headersSent) ctx.respond = false;
          await next();
        });
      }
      const refused = setup.refuseHeader;
      if (refused !== undefined) app.use((ctx, next) => (refuseHeader(ctx.res, refused), next()));
      app.use((setup.factory ?? rateLimit)(translate(options)));
      const { work } = setup;
      app.use(async (ctx) => {
        ran++;
        ips.push(ctx.ip);
        decisions.push(ctx.state.rateLimit);
        if (work !== undefined) await work(view(ctx));
        if (ctx.query['throw'] !== undefined) throw new Error('the route failed');
        if (ctx.query['hold'] !== undefined) return new Promise<void>((done) => ctx.res.once('close', done)); // working until the client goes
        ctx.status = Number(ctx.query['status'] ?? 200);
        ctx.body = body(ctx.query['bytes']);
      });
      return { ...listen(app), errors, ips, decisions, ran: () => ran };
    },
    serveRoutes(mounts) {
      const app = new K();
      app.use(rateLimit(translate(mounts.app)));
      if (mounts.router !== undefined) {
        const api = new Router({ prefix: '/api' });
        api.use(rateLimit(translate(mounts.router)));
        api.get('/thing', (ctx) => void (ctx.body = 'thing'));
        app.use(api.routes());
      }
      const root = new Router();
      for (const [path, options] of Object.entries(mounts.routes)) root.get(path, rateLimit(translate(options)), (ctx) => void (ctx.body = path));
      app.use(root.routes());
      return listen(app);
    },
  };
}

export const drivers = koas.map(([name, K]) => driver(name, K));
