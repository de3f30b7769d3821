/**
 * Every option of the rate limiters users come from is either taken by the matching ratekeeper adapter
 * with the same meaning, or refused when the adapter is created with a message that names the adapter,
 * the option, and what to write instead in that framework's own code. The peers' option names are read
 * from the installed peers themselves: express-rate-limit's `Options`, @fastify/rate-limit's
 * `RateLimitPluginOptions` (which extends a route's `RateLimitOptions`) and hono-rate-limiter's
 * `ConfigProps` (both its Hono and its Cloudflare-binding shapes) by the TypeScript checker from their
 * `.d.ts`, and koa-ratelimit's (which ships no types) from its source, the `opts.…` it reads and the
 * defaults it spreads. An option a peer adds in a new version, or one dropped from the tables, fails
 * here by name. (hono-rate-limiter's `webSocketLimiter` is another function with its own options; it
 * has no counterpart in @ratekeeper/hono.)
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rateLimit as expressRateLimit } from '@ratekeeper/express';
import { rateLimit as fastifyRateLimit } from '@ratekeeper/fastify';
import { rateLimit as honoRateLimit } from '@ratekeeper/hono';
import { rateLimit as koaRateLimit } from '@ratekeeper/koa';
import Fastify from 'fastify';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

/** The options a peer type declares, read by the checker (every member of a union, each property once). */
function typedOptions(): Record<'express' | 'fastify' | 'fastifyRoute' | 'hono', string[]> {
  const file = join(PACKAGE, 'peer-options-probe.mts');
  const source = [
    "import type { Options as E } from 'express-rate-limit';",
    "import type { RateLimitPluginOptions as F, RateLimitOptions as FR } from '@fastify/rate-limit';",
    "import type { ConfigProps as H } from 'hono-rate-limiter';",
    'export type express = E;',
    'export type fastify = F;',
    'export type fastifyRoute = FR;',
    'export type hono = H;',
  ].join('\n');
  const host = ts.createCompilerHost({});
  const read = host.readFile.bind(host);
  host.readFile = (name) => (name === file ? source : read(name));
  const exists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || exists(name);
  const options = {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    noEmit: true,
    types: ['node'],
  };
  const program = ts.createProgram([file], options, host);
  const checker = program.getTypeChecker();
  const probe = program.getSourceFile(file);
  if (probe === undefined) throw new Error('the probe did not compile');
  const found: Record<string, string[]> = {};
  for (const statement of probe.statements) {
    if (!ts.isTypeAliasDeclaration(statement)) continue;
    const type = checker.getTypeAtLocation(statement.name);
    const names = new Set<string>();
    for (const member of type.isUnion() ? type.types : [type]) for (const property of checker.getPropertiesOfType(member)) names.add(property.name);
    found[statement.name.text] = [...names].sort();
  }
  return found as ReturnType<typeof typedOptions>;
}

/** koa-ratelimit's options, from its source: every `opts.name` it reads and the defaults it spreads over them. */
function koaOptions(): string[] {
  const require = createRequire(join(PACKAGE, 'package.json'));
  const source = readFileSync(join(dirname(require.resolve('koa-ratelimit/package.json')), 'index.js'), 'utf8');
  const names = new Set([...source.matchAll(/\bopts\.(\w+)/g)].map((m) => m[1]!));
  const defaults = /const defaultOpts = \{\n([\s\S]*?)\n {2}\};/.exec(source)?.[1] ?? '';
  for (const m of defaults.matchAll(/^ {4}(\w+):/gm)) names.add(m[1]!);
  // The driver's limiter is built with the whole opts: the names its constructor destructures are options too.
  for (const limiter of ['memory', 'redis']) {
    const text = readFileSync(join(dirname(require.resolve('koa-ratelimit/package.json')), 'limiter', `${limiter}.js`), 'utf8');
    const params = /constructor\(\{([^}]*)\}\)/.exec(text)?.[1] ?? '';
    for (const param of params.split(',')) if (param.trim() !== '') names.add(param.split('=')[0]!.trim());
  }
  return [...names].sort();
}

/** Accepted: the adapter takes the option under the same name and meaning (with this value, created without error). */
interface Accepted {
  readonly accepted: unknown;
}
/** Refused: created with this value, the adapter throws a TypeError containing each of `says` (the code to write instead). */
interface Refused {
  readonly refused: unknown;
  readonly says: readonly string[];
}
type Row = Accepted | Refused;
const fn = () => undefined;

const EXPRESS: Readonly<Record<string, Row>> = {
  windowMs: { accepted: 60_000 },
  limit: { accepted: 5 },
  max: { refused: 5, says: ['"limit"'] },
  message: { refused: 'Too many', says: ['handler: (req, res) => res.send('] },
  statusCode: { refused: 503, says: ['res.status(503)'] },
  handler: { accepted: fn },
  legacyHeaders: { refused: true, says: ["headers: 'both'"] },
  standardHeaders: { refused: 'draft-8', says: ['"headers": \'draft-10\''] },
  identifier: { refused: 'api', says: ['"name"'] },
  requestPropertyName: { refused: 'limit', says: ['req.rateLimit'] },
  skipFailedRequests: { refused: true, says: ['countOutcome: (o) => o.status < 400'] },
  skipSuccessfulRequests: { refused: true, says: ['countOutcome: (o) => o.status >= 400'] },
  keyGenerator: { refused: fn, says: ["key: (req) => req.get('x-api-key') ?? clientKey(req.ip)"] },
  ipv6Subnet: { accepted: 56 },
  skip: { accepted: fn },
  requestWasSuccessful: { refused: fn, says: ['countOutcome'] },
  store: { refused: { increment: fn, decrement: fn, resetKey: fn }, says: ['store: new RedisStore({ client })'] },
  validate: { refused: false, says: ['proxyWarning: false'] },
  headers: { refused: true, says: ["headers: 'legacy'"] },
  passOnStoreError: { refused: true, says: ["onFailure: 'open'"] },
  retryAfter: { refused: 60, says: ["handler: (req, res) => res.set('Retry-After', '60').send('Too many requests')"] },
  logger: { refused: console, says: ["store.on('failure'"] },
};

const FASTIFY: Readonly<Record<string, Row>> = {
  store: { refused: class Store {}, says: ['store: new RedisStore({ client })'] },
  skipOnError: { refused: true, says: ["store: new RedisStore({ client, onFailure: 'open' })"] },
  max: { refused: 5, says: ['"limit"'] },
  timeWindow: { refused: '1 minute', says: ['windowMs: 60_000'] },
  allowList: { refused: fn, says: ['skip: (request) =>'] },
  keyGenerator: { refused: fn, says: ["key: (request) => request.headers['x-api-key']?.toString() ?? clientKey(request.ip)"] },
  ipv6Subnet: { accepted: 56 },
  ban: { refused: 3, says: ['limiter: new BanLimiter({ limiter, banMs: 60_000 })'] },
  hook: { refused: 'preHandler', says: ['onRequest', 'reply.code(429)'] },
  cache: { refused: 5000, says: ['store: new MemoryStore({ maxKeys: 5000 })'] },
  continueExceeding: { refused: true, says: ['BanLimiter'] },
  onBanReach: { refused: fn, says: ['onDecision: (decision, request) =>'] },
  groupId: { refused: 'g', says: ["app.get('/a', { config: { rateLimit: group } }"] },
  errorResponseBuilder: { refused: fn, says: ['handler: (request, reply, decision) =>'] },
  enableDraftSpec: { refused: true, says: ["'draft-10'"] },
  onExceeding: { refused: fn, says: ['onDecision: (decision, request) =>'] },
  onExceeded: { refused: fn, says: ['onDecision: (decision, request) =>'] },
  exponentialBackoff: { refused: true, says: ['BanLimiter'] },
  global: { accepted: true },
  redis: { refused: {}, says: ['store: new RedisStore({ client: redis })'] },
  nameSpace: { refused: 'rl:', says: ["prefix: 'rl:'"] },
  addHeaders: { refused: {}, says: ['"headers"'] },
  addHeadersOnExceeding: { refused: {}, says: ['"headers"'] },
};

const HONO: Readonly<Record<string, Row>> = {
  windowMs: { accepted: 60_000 },
  limit: { accepted: 5 },
  standardHeaders: { refused: 'draft-7', says: ['"headers": \'draft-10\''] },
  requestPropertyName: { refused: 'limit', says: ['c.var.rateLimit'] },
  requestStorePropertyName: { refused: 'store', says: ['c.var.rateLimit'] },
  skipFailedRequests: { refused: true, says: ['countOutcome'] },
  skipSuccessfulRequests: { refused: true, says: ['countOutcome'] },
  requestWasSuccessful: { refused: fn, says: ['countOutcome'] },
  store: { refused: { increment: fn, decrement: fn, resetKey: fn }, says: ['store: new RedisStore({ client })'] },
  keyGenerator: { refused: fn, says: ["key: (c) => c.req.header('x-api-key') ?? clientKey(getConnInfo(c).remote.address)"] },
  message: { refused: 'Too many', says: ["handler: (c) => c.text('Too many requests')"] },
  statusCode: { refused: 503, says: ["c.text('…', 503)"] },
  handler: { accepted: fn },
  skip: { accepted: fn },
  binding: { refused: {}, says: ['new DurableObjectStore('] },
};

const KOA: Readonly<Record<string, Row>> = {
  driver: { refused: 'memory', says: ['store: new RedisStore({ client })'] },
  db: { refused: new Map(), says: ['store: new RedisStore({ client })'] },
  duration: { refused: 60_000, says: ['windowMs: 60_000'] },
  max: { refused: 5, says: ['"limit"'] },
  id: { refused: fn, says: ["key: (ctx) => (ctx.get('x-api-key') || undefined) ?? clientKey(ctx.ip)"] },
  headers: { refused: { remaining: 'Rate-Limit-Remaining' }, says: ["'legacy'"] },
  disableHeader: { refused: true, says: ['headers: false'] },
  errorMessage: { refused: 'Slow down', says: ["handler: (ctx) => { ctx.body = 'Too many requests' }"] },
  whitelist: { refused: fn, says: ['skip: (ctx) =>'] },
  blacklist: { refused: fn, says: ['"denyList"'] },
  onLimited: { refused: fn, says: ['onDecision: (decision, ctx) =>'] },
  throw: { refused: true, says: ["handler: (ctx) => ctx.throw(429, 'Too many requests')"] },
  namespace: { refused: 'limit', says: ["prefix: 'rl:'"] },
  status: { refused: 503, says: ["handler: (ctx) => { ctx.status = 503; ctx.body = '…' }"] },
};

/** create builds the adapter with `options` (a valid key beside them where the adapter needs one), answering what it threw. */
type Create = (options: Record<string, unknown>) => Promise<unknown>;
const attempt = async (build: () => unknown): Promise<unknown> => {
  try {
    await build();
    return undefined;
  } catch (error) {
    return error;
  }
};
const ADAPTERS: readonly { readonly peer: string; readonly pkg: string; readonly table: Readonly<Record<string, Row>>; readonly create: Create }[] = [
  { peer: 'express-rate-limit', pkg: '@ratekeeper/express', table: EXPRESS, create: (o) => attempt(() => expressRateLimit(o as never)) },
  {
    peer: '@fastify/rate-limit',
    pkg: '@ratekeeper/fastify',
    table: FASTIFY,
    create: (o) =>
      attempt(async () => {
        const app = Fastify();
        await app.register(fastifyRateLimit, o as never);
        await app.close();
      }),
  },
  { peer: 'hono-rate-limiter', pkg: '@ratekeeper/hono', table: HONO, create: (o) => attempt(() => honoRateLimit({ ip: () => '1.2.3.4', ...o } as never)) },
  { peer: 'koa-ratelimit', pkg: '@ratekeeper/koa', table: KOA, create: (o) => attempt(() => koaRateLimit(o as never)) },
];

describe("the peers' options, read from the peers", () => {
  const typed = typedOptions();
  const listed: Record<string, string[]> = {
    'express-rate-limit': typed.express,
    '@fastify/rate-limit': typed.fastify,
    'hono-rate-limiter': typed.hono,
    'koa-ratelimit': koaOptions(),
  };

  it.each(ADAPTERS.map((a) => [a.peer, a] as const))('%s: every option is in the table, and the table names nothing else', (peer, { table }) => {
    const options = listed[peer]!;
    expect(options.length, `${peer}: options found`).toBeGreaterThan(10);
    expect(Object.keys(table).sort(), `${peer}'s options against the table`).toEqual(options);
  });

  it("@fastify/rate-limit: a route's config.rateLimit takes no option the plugin's table lacks", () => {
    expect(typed.fastifyRoute.filter((name) => !Object.hasOwn(FASTIFY, name))).toEqual([]);
  });
});

describe('each option is accepted, or refused with what to write instead', () => {
  for (const { peer, pkg, table, create } of ADAPTERS) {
    it.each(Object.entries(table))(`${peer}'s %s`, async (name, row) => {
      if ('accepted' in row) {
        expect(await create({ [name]: row.accepted }), `${pkg} takes ${name}`).toBeUndefined();
        return;
      }
      const error = await create({ [name]: row.refused });
      expect(error, `${pkg} refuses ${name}`).toBeInstanceOf(TypeError);
      const message = (error as Error).message;
      expect(message, `${pkg} names ${name}`).toContain(name);
      expect(message, `${pkg}'s refusal of ${name} names the adapter`).toContain(pkg);
      expect(message, `${pkg}'s refusal of ${name} says what to write instead`).toMatch(new RegExp(`${name}"? (?:of ${pkg.replace('/', '\\/')}: |must be |.*: ).+`));
      for (const text of row.says) expect(message, `${pkg}'s refusal of ${name}`).toContain(text);
    });
  }
});
