// The Nest guard's added cost per request, beside @nestjs/throttler's, in one process: each variant is
// a real Nest 12 application (the Express platform, or Fastify with --nestjs-platform=fastify), initialised
// without listening, whose platform handler is called in process with a fresh request per call
// (lib/in-process.mjs): `bare` (no guard), `empty guard` (a global guard that returns true: what any
// guard costs), `ratekeeper` (RateLimitModule and RateLimitGuard as APP_GUARD, a token bucket no call
// exhausts) and `throttler` (ThrottlerModule.forRoot([{ ttl: 60000, limit }]) and ThrottlerGuard as
// APP_GUARD, as its README binds it, a limit no call reaches). One client address: one hot key.
// Reported: ns per call, each guard's added µs over `bare` and over the empty guard (median [95 %
// interval] of the per-round differences), and ratekeeper's added cost as a ratio of throttler's.
//
//   node src/run-all.mjs nestjs [--nestjs-platform=express|fastify] [--nestjs-calls=N] [--nestjs-rounds=N]
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { APP_GUARD, NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { RateLimitGuard, RateLimitModule } from '@ratekeeper/nestjs';
import { flags, intFlag } from './lib/args.mjs';
import { difference, interleaved, nodeCall } from './lib/in-process.mjs';
import { median } from './lib/stats.mjs';
import { fixed, formatTable } from './lib/table.mjs';

const HUGE = 1_000_000_000_000;

class HelloController {
  hello() {
    return 'ok';
  }
}
Get('/')(HelloController.prototype, 'hello', Object.getOwnPropertyDescriptor(HelloController.prototype, 'hello'));
Controller()(HelloController);

class EmptyGuard {
  canActivate() {
    return true;
  }
}

/** moduleOf is the application module of a variant. */
function moduleOf(variant) {
  const imports = [];
  const providers = [];
  if (variant === 'empty guard') providers.push({ provide: APP_GUARD, useClass: EmptyGuard });
  if (variant === 'ratekeeper') {
    imports.push(RateLimitModule.forRoot({ capacity: HUGE, refillPerSecond: 1_000_000 }));
    providers.push({ provide: APP_GUARD, useClass: RateLimitGuard });
  }
  if (variant === 'throttler') {
    imports.push(ThrottlerModule.forRoot([{ ttl: 60_000, limit: HUGE }]));
    providers.push({ provide: APP_GUARD, useClass: ThrottlerGuard });
  }
  class AppModule {}
  Module({ imports, controllers: [HelloController], providers })(AppModule);
  return AppModule;
}

/** handlerOf builds the variant's application and answers its platform's `(req, res)` handler. */
async function handlerOf(variant, platform, apps) {
  const adapter = platform === 'fastify' ? new FastifyAdapter() : new ExpressAdapter();
  const app = await NestFactory.create(moduleOf(variant), adapter, { logger: false, abortOnError: false });
  await app.init();
  apps.push(app);
  if (platform === 'express') return app.getHttpAdapter().getInstance();
  const fastify = app.getHttpAdapter().getInstance();
  await fastify.ready();
  return (req, res) => fastify.routing(req, res);
}

export async function run(args) {
  const f = flags(args);
  const platform = f['nestjs-platform'] ?? 'express';
  if (platform !== 'express' && platform !== 'fastify') throw new TypeError(`nestjs: --nestjs-platform must be express or fastify, got ${platform}`);
  const calls = intFlag(f, 'nestjs-calls', 20_000);
  const rounds = intFlag(f, 'nestjs-rounds', 7);
  const apps = [];
  const variants = new Map();
  for (const variant of ['bare', 'empty guard', 'ratekeeper', 'throttler']) variants.set(variant, nodeCall(await handlerOf(variant, platform, apps)));
  const samples = await interleaved(variants, { calls, rounds });
  for (const app of apps) await app.close();
  console.log(
    `\nnestjs: the guard's added CPU time per request, Nest 12 on ${platform}, in process on Node ${process.version}: median of ${rounds} interleaved rounds of ${calls} calls (${new Date().toISOString()})`,
  );
  const rows = [...variants.keys()].map((v) => [
    v,
    fixed(median(samples.get(v)) / 1000, 2),
    v === 'bare' ? '' : difference(samples, v, 'bare').text,
    v === 'bare' || v === 'empty guard' ? '' : difference(samples, v, 'empty guard').text,
  ]);
  console.log(formatTable(['variant', 'CPU µs per call', '− bare, µs [95% CI]', '− empty guard, µs [95% CI]'], rows));
  const ours = difference(samples, 'ratekeeper', 'bare').median;
  const theirs = difference(samples, 'throttler', 'bare').median;
  const ratio = samples.get('ratekeeper').map((x, r) => x / samples.get('throttler')[r]);
  console.log(
    `added over bare, ratekeeper / @nestjs/throttler: ${fixed(ours / theirs, 2)}× (${fixed(ours, 2)} µs against ${fixed(theirs, 2)} µs); per call: ${fixed(median(ratio), 2)}× (median of the per-round ratios)`,
  );
}
