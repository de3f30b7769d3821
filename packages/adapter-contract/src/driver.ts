/**
 * The driver: what a framework adapter's tests hand the contract suites so that one suite runs on
 * Express, Koa or any other framework. A driver stands for one framework major ("Express 4"), so a
 * package passes one driver per major it supports. Suites speak framework-neutral options (callbacks
 * see a RequestView, a handler returns an Answer) and the driver translates them into the adapter's
 * own option shape, which keeps every assertion identical across frameworks.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Decision, LimiterSource, RateLimitBaseOptions } from '@ratekeeper/core';
import type { Listening } from './support.js';

/** RequestView is the little of a request the suites' callbacks read. */
export interface RequestView {
  /** A request header, undefined when absent. */
  header(name: string): string | undefined;
  /** A query-string parameter, undefined when absent. */
  query(name: string): string | undefined;
  readonly path: string;
}

/**
 * Answer is what a neutral limited-response handler wants written: a JSON body, and a status unless
 * the handler leaves the adapter's preset one (the driver then writes the body alone, the way a user
 * would: `res.json(body)`, `ctx.body = body`, `c.json(body)`, `Response.json(body)`, `reply.send(body)`).
 */
export interface Answer {
  readonly status?: number;
  readonly body: unknown;
}

/** ContractOptions are the adapter options with framework-neutral callbacks. */
export type ContractOptions = ContractBehaviour & LimiterSource<RequestView>;

/** ContractBehaviour is ContractOptions without the limiter's: what a suite spreads beside its own limiter. */
export type ContractBehaviour = RateLimitBaseOptions<RequestView> & {
  readonly handler?: (decision: Decision, req: RequestView) => Answer | Promise<Answer>;
};

/** Setup is how the app around the middleware is built; every field is optional. */
export interface Setup<F> {
  /** The middleware factory to mount instead of the real rateLimit (a mutant). */
  readonly factory?: F;
  /** The framework's own proxy-trust setting, passed through untouched (default: trust nothing). */
  readonly proxy?: unknown;
  /** Runs first on every request with the raw Node objects; if it ends the response, the app must not. */
  readonly before?: (req: IncomingMessage, res: ServerResponse) => void;
  /**
   * A header name (lower case) the framework must refuse to set, throwing as Node does for a value it
   * will not send (ERR_INVALID_CHAR), at the call the adapter writes headers with (Node's
   * setHeader/appendHeader for Express and Koa, `reply.header` for Fastify): the fault injected where
   * a response refuses a rate-limit header.
   */
  readonly refuseHeader?: string;
  /**
   * The route's work: GET / awaits it (when given) before it answers, with the request's view, so a
   * suite controls how long each handler works and sees when it ends. The route then answers as
   * usual (`?status=N` …), even to a client that has gone.
   */
  readonly work?: (req: RequestView) => Promise<void>;
}

/**
 * Served is a listening app: rateLimit, then a GET / that answers 'ok' and counts its runs; with
 * `?status=N` it answers that status, with `?bytes=N` a body of N bytes (with its Content-Length),
 * with `?throw=1` it throws, for the framework's error path to answer 500; with `?hold=1` it works
 * until the client goes away, and only then answers (to nobody), as a handler watching its request does.
 */
export interface Served extends Listening {
  /** Every error that reached the framework's error path, in order. */
  readonly errors: unknown[];
  /** The client address the framework resolved, for each request that reached the route. */
  readonly ips: (string | undefined)[];
  /** The decision the adapter left on the request (req.rateLimit, ctx.state.rateLimit), per request that reached the route. */
  readonly decisions?: (Decision | undefined)[];
  /** How many times the route ran. */
  ran(): number;
}

/** Mounts is where serveRoutes puts limiters: app-wide, on a router at /api, and on single routes. */
export interface Mounts {
  readonly app: ContractOptions;
  /** Mounted router-wide on a router at /api that has one route, GET /api/thing. */
  readonly router?: ContractOptions;
  /** Path to the options of the limiter mounted on that GET route alone. */
  readonly routes: Readonly<Record<string, ContractOptions>>;
}

export interface Driver<F> {
  /** The framework and major, as the describe blocks name it: "Express 5". */
  readonly name: string;
  /** The adapter's real rateLimit. */
  readonly rateLimit: F;
  /** Builds and serves the app: mounts factory(translated options) before the route. */
  serve(options: ContractOptions, setup?: Setup<F>): Served;
  /** Builds and serves an app with the framework's own router, every route answering 200. */
  serveRoutes(mounts: Mounts): Listening;
  /**
   * Creates the real rateLimit with these options the way an app would (calls the factory, or
   * registers the plugin and waits until the app is ready); rejects with the construction error.
   */
  construct(options: ContractOptions): Promise<void>;
  /** The body the framework answers a hidden 500 with, when it never shows the error (Koa). */
  readonly genericErrorBody?: string;
  /**
   * The Content-Type of a default 429/503 (default 'application/problem+json'): a framework whose
   * exception layer serializes the problem object itself (Nest, through Express's res.json or Fastify's
   * JSON serializer) adds its `; charset=utf-8`.
   */
  readonly problemContentType?: string;
  /** The name the adapter's errors start with (default 'rateLimit', the factory's name). */
  readonly owner?: string;
}
