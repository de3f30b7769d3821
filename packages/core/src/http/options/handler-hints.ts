/**
 * What to write instead of the options other rate limiters shape their limited answer with
 * (express-rate-limit's `message` and `statusCode`, @fastify/rate-limit's `errorResponseBuilder`,
 * koa-ratelimit's `errorMessage`): a `handler`, shown in the user's framework, as each adapter's
 * handler is called: Express `(req, res)`, Fastify `(request, reply)`, Koa `(ctx)`, Hono `(c)`,
 * fetch `(request)` returning a Response. Each example answers with the status the adapter presets
 * (429, or 503 for a 'closed' store failure): Express, Fastify and Koa run the handler with it set;
 * Hono and fetch answer a Response whose status nobody chose (200) with it instead. The `statusCode`
 * example picks another status explicitly, which every adapter keeps. Without a framework (an adapter
 * outside this project), the sentence names the handler without code.
 */

/** Framework names the adapter whose terms the hints use. */
export type Framework = 'express' | 'fastify' | 'koa' | 'hono' | 'fetch';

/** The limited-answer options, each with its hint per framework. */
type Hints = Readonly<Record<'message' | 'statusCode' | 'errorResponseBuilder' | 'errorMessage', string>>;

const PRESET = '(it runs with the status already set to 429)';
const ANSWERED = '(a Response whose status you leave at 200 is answered as 429)';
const DEFAULT = '(the default is 429)';

const HINTS: Readonly<Record<Framework, Hints>> = {
  express: {
    message: `write a handler instead: handler: (req, res) => res.send('Too many requests') ${PRESET}`,
    statusCode: `write a handler that sets it: handler: (req, res) => res.status(503).send('…') ${DEFAULT}`,
    errorResponseBuilder: `write a handler instead: handler: (req, res, decision) => res.json({ error: 'Too many requests' }) ${PRESET}`,
    errorMessage: `write a handler instead: handler: (req, res) => res.send('Too many requests') ${PRESET}`,
  },
  fastify: {
    message: `write a handler instead: handler: (request, reply) => reply.send('Too many requests') ${PRESET}`,
    statusCode: `write a handler that sets it: handler: (request, reply) => reply.code(503).send('…') ${DEFAULT}`,
    errorResponseBuilder: `write a handler instead: handler: (request, reply, decision) => ({ error: 'Too many requests' }) ${PRESET}`,
    errorMessage: `write a handler instead: handler: (request, reply) => reply.send('Too many requests') ${PRESET}`,
  },
  koa: {
    message: `write a handler instead: handler: (ctx) => { ctx.body = 'Too many requests' } (it runs with ctx.status already set to 429)`,
    statusCode: `write a handler that sets it: handler: (ctx) => { ctx.status = 503; ctx.body = '…' } ${DEFAULT}`,
    errorResponseBuilder: `write a handler instead: handler: (ctx, decision) => { ctx.body = { error: 'Too many requests' } } (it runs with ctx.status already set to 429)`,
    errorMessage: `write a handler instead: handler: (ctx) => { ctx.body = 'Too many requests' } (it runs with ctx.status already set to 429)`,
  },
  hono: {
    message: `write a handler instead: handler: (c) => c.text('Too many requests') ${ANSWERED}`,
    statusCode: `write a handler that sets it: handler: (c) => c.text('…', 503) ${DEFAULT}`,
    errorResponseBuilder: `write a handler instead: handler: (c, decision) => c.json({ error: 'Too many requests' }) ${ANSWERED}`,
    errorMessage: `write a handler instead: handler: (c) => c.text('Too many requests') ${ANSWERED}`,
  },
  fetch: {
    message: `write a handler instead: handler: (request) => new Response('Too many requests') ${ANSWERED}`,
    statusCode: `write a handler that sets it: handler: (request) => new Response('…', { status: 503 }) ${DEFAULT}`,
    errorResponseBuilder: `write a handler instead: handler: (request, decision) => Response.json({ error: 'Too many requests' }) ${ANSWERED}`,
    errorMessage: `write a handler instead: handler: (request) => new Response('Too many requests') ${ANSWERED}`,
  },
};

/** Without a framework: the handler named, in no framework's code. */
const NEUTRAL: Hints = {
  message: `write a handler instead: the adapter's handler option answers a limited request ${PRESET}`,
  statusCode: `write a handler that sets it: the adapter's handler option answers a limited request ${DEFAULT}`,
  errorResponseBuilder: `write a handler instead: the adapter's handler option answers a limited request ${PRESET}`,
  errorMessage: `write a handler instead: the adapter's handler option answers a limited request ${PRESET}`,
};

/** handlerHint is what to write instead of `name` in `framework`'s terms, or undefined when `name` is no limited-answer option. */
export function handlerHint(name: string, framework: Framework | undefined): string | undefined {
  const hints = framework === undefined ? NEUTRAL : HINTS[framework];
  return Object.hasOwn(hints, name) ? hints[name as keyof Hints] : undefined;
}
