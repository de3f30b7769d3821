/**
 * The public surface: the exact export list, and the built package loading through its `exports` map
 * from both module systems on the running Node, in child processes (no test-runner transform): a
 * CommonJS script, decorators applied as functions as plain JavaScript must, that require()s Nest 12
 * (an ES module: require(esm)) and this package and serves one real request through a Nest app.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXPORTS = ['RateLimit', 'RateLimitException', 'RateLimitGuard', 'RateLimitInterceptor', 'RateLimitModule', 'SkipRateLimit'];

const SERVE_ONE = `
  require('reflect-metadata');
  const { Controller, Get, Module } = require('@nestjs/common');
  const { APP_GUARD, NestFactory } = require('@nestjs/core');
  const { RateLimitGuard, RateLimitModule } = require('@ratekeeper/nestjs');
  class AppController { hello() { return 'ok'; } }
  Get('/')(AppController.prototype, 'hello', Object.getOwnPropertyDescriptor(AppController.prototype, 'hello'));
  Controller()(AppController);
  class AppModule {}
  Module({
    imports: [RateLimitModule.forRoot({ algorithm: 'sliding-window', limit: 5, windowMs: 60000 })],
    controllers: [AppController],
    providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
  })(AppModule);
  (async () => {
    const app = await NestFactory.create(AppModule, { logger: false });
    await app.listen(0, '127.0.0.1');
    const res = await fetch('http://127.0.0.1:' + app.getHttpServer().address().port + '/');
    console.log(JSON.stringify([Object.keys(require('@ratekeeper/nestjs')).sort(), res.status, res.headers.get('ratelimit-policy')]));
    await app.close();
  })();`;

const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });

describe('@ratekeeper/nestjs exports', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(api).sort()).toEqual(EXPORTS);
  });

  it('has been built (the root `pnpm test` builds first)', () => {
    expect(existsSync(`${ROOT}dist/cjs/index.js`) && existsSync(`${ROOT}dist/esm/index.js`)).toBe(true);
  });

  it('is require()d from CommonJS, with Nest 12, and serves a request', () => {
    expect(JSON.parse(node(['-e', SERVE_ONE]))).toEqual([EXPORTS, 200, '"sw-5-60000";q=5;w=60']);
  });

  it('is import()ed from ESM with the same names', () => {
    const out = node(['--input-type=module', '-e', "const m = await import('@ratekeeper/nestjs'); console.log(JSON.stringify(Object.keys(m).sort()))"]);
    expect(JSON.parse(out)).toEqual(EXPORTS);
  });
});
