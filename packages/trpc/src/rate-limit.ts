/**
 * rateLimit is ratekeeper's tRPC v11 middleware: `t.procedure.use(rateLimit(options))`. For each
 * procedure call it keys the call, asks the limiter once, writes the rate-limit fields on the
 * adapter's response when the context has one (response.ts), and calls `next()` or throws a
 * TRPCError (`TOO_MANY_REQUESTS`, with the wait in its cause: error.ts). Everything else is core's
 * prepared plan (options, keys, header values), as on every adapter.
 *
 * Each call of a batch (httpBatchLink) runs the middleware, so a batch of 50 calls costs 50. The
 * hooks (`key`, `cost`, `skip`, `plan`, `onDecision`, `countOutcome`, `settle`) get the middleware's
 * own options object, `{ ctx, path, type, input, meta, signal }`: `key: ({ ctx }) => ctx.user.id`.
 * The default key is the client address the adapter's request carries (`ctx.req.ip` on Express and
 * Fastify, else its socket's), or `ip(opts)`; a call without one is refused loudly (core's
 * MissingIpError, an INTERNAL_SERVER_ERROR), never counted in a shared bucket: on the fetch adapter
 * give `key` or `ip`.
 *
 * A call whose client aborted (`signal`) while an async hook was awaited is not counted and answers
 * CLIENT_CLOSED_REQUEST. With countOutcome, settle or a limiter holding leases (ConcurrencyLimiter),
 * the admitted call's work ends when `next()` settles (its resolver returned or threw): the lease goes
 * back then, once. Errors from hooks and a failing limiter (core's RateLimiterError, without the
 * store's text) become INTERNAL_SERVER_ERROR through tRPC's own error path.
 */
import { TRPCError } from '@trpc/server';
import type { Decision, Finished, LimiterChoice, RateLimitBaseOptions, RateLimiter } from '@ratekeeper/core';
import { type Decided, type PreparedRateLimit, describeValue, prepareRateLimit, retryAfterSeconds } from '@ratekeeper/core/adapter';
import { denialError } from './error.js';
import { fieldsOf, toFields } from './response.js';

const OWNER = 'rateLimit';

/** CallOptions is what tRPC hands a middleware, as the hooks see it. */
export interface CallOptions<Ctx = unknown> {
  readonly ctx: Ctx;
  readonly path: string;
  readonly type: 'query' | 'mutation' | 'subscription';
  readonly input?: unknown;
  readonly meta?: unknown;
  readonly signal?: AbortSignal | undefined;
}

/** The middleware: tRPC's options in, `next()`'s result out. */
export type RateLimitMiddleware<Ctx> = <Opts extends CallOptions<Ctx> & { next: () => Promise<unknown> }>(opts: Opts) => ReturnType<Opts['next']>;

/** TrpcPlans: limiters per caller, one chosen per call by `plan(opts)`. */
export interface TrpcPlans<Ctx> {
  readonly plans: Readonly<Record<string, RateLimiter>>;
  readonly plan: (opts: CallOptions<Ctx>) => string | PromiseLike<string>;
}

/** TrpcRateLimitOptions are core's adapter options (hooks on the call) plus `ip`; delay mode and proxyWarning are not taken. */
export type TrpcRateLimitOptions<Ctx = unknown> = Omit<RateLimitBaseOptions<CallOptions<Ctx>>, 'proxyWarning' | 'mode' | 'maxDelayMs'> &
  (LimiterChoice | TrpcPlans<Ctx>) & {
    /** The client address for the default key (default: `ctx.req.ip`, else `ctx.req.socket.remoteAddress`). */
    readonly ip?: (opts: CallOptions<Ctx>) => string | null | undefined;
  };

const REFUSED: Readonly<Record<string, string>> = {
  handler: 'a denial is a TRPCError (TOO_MANY_REQUESTS); shape what the client sees with errorFormatter (rateLimitErrorFormatter adds the wait to error.data)',
  message: 'a denial is a TRPCError (TOO_MANY_REQUESTS); shape what the client sees with errorFormatter',
  statusCode: 'tRPC answers TOO_MANY_REQUESTS with 429; another code is an errorFormatter or a middleware of your own',
  proxyWarning: "the address is the one ip(opts) or ctx.req gives; set the server's own proxy trust (Express's trust proxy, Fastify's trustProxy)",
  mode: 'tRPC calls cannot be held: a denial answers TOO_MANY_REQUESTS with the wait',
  maxDelayMs: 'tRPC calls cannot be held: a denial answers TOO_MANY_REQUESTS with the wait',
};

/** rateLimit validates `options` at once and returns the middleware (see above). */
export function rateLimit<Ctx = unknown>(options?: TrpcRateLimitOptions<Ctx>): RateLimitMiddleware<Ctx> {
  refuse(options);
  const object = typeof options === 'object' && options !== null && !Array.isArray(options);
  // Anything but an options object goes to core as it is, for its "options must be an object".
  const { ip, ...rest } = (object ? options : {}) as TrpcRateLimitOptions<Ctx>;
  if (ip !== undefined && typeof ip !== 'function') throw new TypeError(`${OWNER}: ip must be a function, got ${describeValue(ip)}`);
  const gone = (opts: CallOptions<Ctx>) => opts.signal?.aborted === true;
  const prepared = prepareRateLimit<CallOptions<Ctx>>(OWNER, (object || options === undefined ? rest : options) as never, [], { gone });
  const addressOf = ip ?? defaultIp;

  async function finish(opts: CallOptions<Ctx> & { next: () => Promise<unknown> }, decided: Decided): Promise<unknown> {
    if (decided === undefined) return opts.next();
    if (decided === null) throw new TRPCError({ code: 'CLIENT_CLOSED_REQUEST', message: 'The client closed the request' });
    answer(prepared, opts, decided);
    const settle = decided.allowed ? prepared.claim?.(opts, decided) : undefined;
    if (settle === undefined) return opts.next();
    let outcome: Finished = { status: 500, aborted: false, contentLength: undefined };
    try {
      const result = (await opts.next()) as { ok?: boolean; error?: TRPCError };
      outcome = { status: result.ok === false ? statusOf(result.error) : 200, aborted: opts.signal?.aborted === true, contentLength: undefined };
      return result;
    } finally {
      settle(outcome);
    }
  }

  return async function rateLimit(opts) {
    const decided = prepared.decide(opts, addressOf(opts) ?? undefined);
    return (await finish(opts, decided instanceof Promise ? await decided : decided)) as never;
  } as RateLimitMiddleware<Ctx>;
}

/** answer writes the call's fields where the context's response is, and throws the denial's TRPCError. */
function answer<Ctx>(prepared: PreparedRateLimit<CallOptions<Ctx>>, opts: CallOptions<Ctx>, decision: Decision): void {
  const fields = fieldsOf(opts.ctx);
  if (fields !== undefined) prepared.writeHeaders(fields, toFields, decision);
  if (!prepared.blocks(decision)) return;
  throw denialError(decision, prepared.body(decision).status, retryAfterSeconds(decision));
}

/** defaultIp reads the address of the adapter's request in the context (Express and Fastify: `req.ip`). */
function defaultIp(opts: CallOptions): string | undefined {
  const req = (opts.ctx as { req?: { ip?: unknown; socket?: { remoteAddress?: unknown } } } | null)?.req;
  const ip = req?.ip ?? req?.socket?.remoteAddress;
  return typeof ip === 'string' ? ip : undefined;
}

/** statusOf is the HTTP status tRPC answers an error of the resolver with. */
function statusOf(error: TRPCError | undefined): number {
  const codes: Readonly<Record<string, number>> = { BAD_REQUEST: 400, UNAUTHORIZED: 401, FORBIDDEN: 403, NOT_FOUND: 404, CONFLICT: 409, TOO_MANY_REQUESTS: 429 };
  return codes[error?.code ?? ''] ?? 500;
}

function refuse(options: unknown): void {
  if (typeof options !== 'object' || options === null) return;
  for (const [name, hint] of Object.entries(REFUSED)) {
    if ((options as Record<string, unknown>)[name] !== undefined) throw new TypeError(`${OWNER}: unknown option ${describeValue(name)}: ${hint}`);
  }
}
