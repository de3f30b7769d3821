/**
 * The Express driver for the adapter contract (@ratekeeper/adapter-contract): one driver per Express
 * major, each building a real app around rateLimit (or a mutant) with a GET / route and an error
 * handler that records what reaches Express's error path. The contract's framework-neutral callbacks
 * are translated here into Express's (req, res) shapes.
 */
import type { Answer, ContractOptions, Driver, RequestView } from '@ratekeeper/adapter-contract';
import { listen, refusal } from '@ratekeeper/adapter-contract';
import type { ServerResponse } from 'node:http';
import type { Decision } from '@ratekeeper/core';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import express5 from 'express';
import express4 from 'express4';
import { type ExpressRateLimitOptions, rateLimit } from '../src/index.js';

export type Factory = (options: ExpressRateLimitOptions) => RequestHandler;
export type Express = typeof express5;

/** The Express majors the contract runs against. */
export const expresses = [
  ['Express 5', express5],
  ['Express 4', express4 as unknown as Express],
] as const;

const view = (req: Request): RequestView => ({
  header: (name) => req.get(name),
  query: (name) => {
    const value = req.query[name];
    return typeof value === 'string' ? value : undefined;
  },
  path: req.path,
});

/** translate maps the contract's options onto Express's, leaving everything else untouched. */
export function translate(options: ContractOptions): ExpressRateLimitOptions {
  const { key, skip, cost, plan, onDecision, countOutcome, settle, handler, ...rest } = options;
  const send = (res: Response, answer: Answer) => void (answer.status === undefined ? res.json(answer.body) : res.status(answer.status).json(answer.body));
  return {
    ...rest,
    ...(key === undefined ? {} : { key: (req: Request) => key(view(req)) }),
    ...(skip === undefined ? {} : { skip: (req: Request) => skip(view(req)) }),
    ...(cost === undefined ? {} : { cost: (req: Request) => cost(view(req)) }),
    ...(plan === undefined ? {} : { plan: (req: Request) => plan(view(req)) }),
    ...(countOutcome === undefined ? {} : { countOutcome: (o, req: Request) => countOutcome(o, view(req)) }),
    ...(settle === undefined ? {} : { settle: (o, req: Request) => settle(o, view(req)) }),
    ...(onDecision === undefined ? {} : { onDecision: (d, req: Request) => onDecision(d, view(req)) }),
    ...(handler === undefined
      ? {}
      : {
          handler: (req: Request, res: Response, d) => {
            const answer = handler(d, view(req));
            return answer instanceof Promise ? answer.then((a) => send(res, a)) : send(res, answer);
          },
        }),
  } as ExpressRateLimitOptions; // rest keeps the contract options' limiter choice, which spreading loses to the type checker
}

/** refuseHeader makes Node's setHeader and appendHeader throw for `refused`, as Node does for an invalid value. */
export function refuseHeader(res: ServerResponse, refused: string): void {
  for (const method of ['setHeader', 'appendHeader'] as const) {
    const original = res[method] as (name: string, value: unknown) => ServerResponse;
    res[method] = function (this: ServerResponse, name: string, value: unknown) {
      if (name.toLowerCase() === refused) throw refusal(name);
      return original.call(this, name, value);
    } as never;
  }
}

/** body is the route's answer: 'ok', or `bytes` bytes when asked. */
export const body = (bytes: unknown): string => (typeof bytes === 'string' ? 'x'.repeat(Number(bytes)) : 'ok');

function driver(name: string, express: Express): Driver<Factory> {
  return {
    name,
    rateLimit,
    construct: async (options) => void rateLimit(translate(options)),
    serve(options, setup = {}) {
      const app = express();
      app.set('trust proxy', setup.proxy ?? false);
      const errors: unknown[] = [];
      const ips: (string | undefined)[] = [];
      const decisions: (Decision | undefined)[] = [];
      let ran = 0;
      const { before } = setup;
      if (before !== undefined) app.use((req, res, next) => (before(req, res), next()));
      if (setup.refuseHeader !== undefined) app.use((_req, res, next) => (refuseHeader(res, setup.refuseHeader as string), next()));
      app.use((setup.factory ?? rateLimit)(translate(options)));
      const route = (req: Request, res: Response): void => {
        if (req.query['throw'] !== undefined) throw new Error('the route failed');
        // Still working when the client goes away; then it answers, for nobody.
        if (req.query['hold'] !== undefined) return void res.once('close', () => res.send('late'));
        res.status(Number(req.query['status'] ?? 200)).send(body(req.query['bytes']));
      };
      const { work } = setup;
      app.get('/', (req, res, next) => {
        ran++;
        ips.push(req.ip);
        decisions.push(req.rateLimit);
        if (work === undefined) return route(req, res);
        work(view(req))
          .then(() => route(req, res))
          .catch(next);
      });
      const record: ErrorRequestHandler = (error, _req, _res, next) => void (errors.push(error), next(error));
      app.use(record);
      return { ...listen(app), errors, ips, decisions, ran: () => ran };
    },
    serveRoutes(mounts) {
      const app = express();
      app.use(rateLimit(translate(mounts.app)));
      if (mounts.router !== undefined) {
        const api = express.Router();
        api.use(rateLimit(translate(mounts.router)));
        api.get('/thing', (_req, res) => void res.send('thing'));
        app.use('/api', api);
      }
      for (const [path, options] of Object.entries(mounts.routes)) app.get(path, rateLimit(translate(options)), (_req, res) => void res.send(path));
      return listen(app);
    },
  };
}

export const drivers = expresses.map(([name, express]) => driver(name, express));
