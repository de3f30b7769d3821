/**
 * Test support for the fetch examples (examples/bun, deno, worker), whose app is one runtime-neutral
 * `(request, ip) => Response` handler:
 *
 * - `onNode(createApp)` serves that handler on Node over real HTTP (@hono/node-server's adaptor, the
 *   socket address as `ip`), so the shared example suite (./example-suite.mjs) checks it at fixed
 *   instants on a ManualClock;
 * - `smokeSuite(runtime, start)` then runs the example's own server script on the real runtime (the
 *   system clock, so only checks no clock can upset: 5 logins a minute, the 6th a 429).
 *
 * The runtimes come from npm. A missing one skips its smoke suite with a loud warning on a developer
 * machine and fails in CI (CI=true).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createAdaptorServer } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

export const inCI = process.env.CI === 'true';

/** onNode returns the example suite's `start(clock)` for a fetch handler factory. */
export const onNode = (createApp) => async (clock) => {
  const handle = createApp({ clock });
  const server = createAdaptorServer({ fetch: (request, env) => handle(request, env.incoming.socket.remoteAddress) }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((done) => server.close(done)) };
};

/** binary finds a runtime installed from npm: 'bun' or 'deno', resolved from `dir`'s node_modules. */
export function binary(name, dir) {
  const require = createRequire(join(dir, 'package.json'));
  try {
    const root = dirname(require.resolve(`${name}/package.json`));
    if (name === 'deno') {
      execFileSync(process.execPath, [join(root, 'bin.cjs'), '--version'], { stdio: 'ignore', timeout: 20_000 }); // places the binary
      return existsSync(join(root, 'deno')) ? join(root, 'deno') : undefined;
    }
    const own = join(root, 'bin', 'bun.exe');
    if (existsSync(own) && statSync(own).size > 1_000_000) return own;
    const platform = `@oven/bun-${process.platform}-${process.arch === 'arm64' ? 'aarch64' : process.arch}`;
    const found = join(dirname(createRequire(join(root, 'package.json')).resolve(`${platform}/package.json`)), 'bin', 'bun');
    return existsSync(found) ? found : undefined;
  } catch {
    return undefined;
  }
}

/** spawnServer runs `command args` in `cwd` with PORT=0 and resolves once it prints its URL. */
export function spawnServer(command, args, cwd) {
  const child = spawn(command, args, { cwd, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`${command} printed no URL in 60 s:\n${output}`))), 60_000);
    child.stderr.on('data', (chunk) => (output += chunk));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (url === undefined) return;
      clearTimeout(timer);
      resolve({ url, close: () => (child.exitCode !== null ? Promise.resolve() : new Promise((done) => (child.once('exit', done), child.kill('SIGTERM')))) });
    });
    child.once('exit', (code) => (clearTimeout(timer), reject(new Error(`${command} exited with ${code}:\n${output}`))));
  });
}

/** smokeSuite starts the example on its runtime once (`start()` resolves to { url, close }) and checks it. */
export function smokeSuite(runtime, found, start) {
  if (!found && !inCI) {
    console.warn(`\n*** ${runtime} not found: the example's ${runtime} check is SKIPPED. Run pnpm install (it comes from npm); CI fails instead. ***\n`);
  }
  (found || inCI ? describe : describe.skip)(`the example on ${runtime}`, () => {
    let server;
    beforeAll(async () => {
      if (!found) throw new Error(`${runtime} is missing; CI must have it`);
      server = await start();
    }, 90_000);
    afterAll(async () => server?.close());

    it('serves GET / with the RateLimit fields, and admits 5 logins a minute from one address, the 6th a 429', async () => {
      const home = await fetch(`${server.url}/`);
      expect([home.status, home.headers.get('ratelimit-policy'), await home.json()]).toEqual([200, '"global";q=100;w=10', { hello: 'world' }]);
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push((await fetch(`${server.url}/login`, { method: 'POST' })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      const denied = await fetch(`${server.url}/login`, { method: 'POST' });
      expect([denied.status, denied.headers.get('content-type')]).toEqual([429, 'application/problem+json']);
      expect(Number(denied.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await denied.json())['violated-policies']).toEqual(['login']);
    });
  });
}
