/**
 * The root README's quick starts, and the Fastify and Koa READMEs' usage blocks, on the packages as npm
 * users get them: core, fetch and the adapters are packed the way the release packs them (`pnpm pack`,
 * which rewrites `workspace:^` to real version ranges; `npm pack` leaves it, and npm cannot install
 * that), installed from the tarballs into fresh apps in a temp dir beside the framework from the npm
 * registry, as the README's install line for that adapter names it. Every CommonJS quick start
 * (Express, Fastify, Koa, Hono) runs as written in a fresh CommonJS app; the Express ESM quick start is
 * compiled by the workspace's tsc in a fresh ESM TypeScript app (`module: nodenext`, strict,
 * @types/express as the README's TypeScript line says) and run. Each block is extracted from README.md
 * (its framework's `### <Framework>` section, the block after the line that names its module system),
 * so the test fails when the README drifts; only its listen on port 3000 is moved to a free port on
 * 127.0.0.1 by a preloaded module that patches `net.Server#listen`. Over real HTTP, the documented
 * limit admits its requests and the next one gets 429 with `Retry-After`. Fastify's usage block
 * (TypeScript, top-level await) is compiled the same way in an ESM app, and Koa's (ESM JavaScript)
 * runs as written. Needs the npm registry (the frameworks and Express's types); every child process is
 * bounded in time.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
// pnpm itself when pnpm runs the tests (`pnpm test` sets npm_execpath), else through npx as the README says.
const execpath = process.env['npm_execpath'] ?? '';
const pnpm: [string, string[]] = /pnpm\.c?js$/.test(execpath) ? [process.execPath, [execpath]] : [npx, ['-y', 'pnpm@10']];
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

type Framework = 'Express' | 'Fastify' | 'Koa' | 'Hono';

/** A quick start: the ```js block after the line that names its module system, in the framework's `### <Framework>` section. */
function quickStart(text: string, framework: Framework, heading: 'ESM' | 'CommonJS'): string {
  const start = text.indexOf(`\n### ${framework}\n`);
  if (start < 0) throw new Error(`README.md: no \`### ${framework}\` quick start section`);
  const end = text.slice(start + 1).search(/\n##/);
  const section = end < 0 ? text.slice(start) : text.slice(start, start + 1 + end);
  const block = new RegExp(`\\n${heading}[^\\n]*:\\n\\n\`\`\`js\\n([\\s\\S]*?)\`\`\``).exec(section);
  if (block === null) throw new Error(`README.md: no \`${heading}\` quick start block for ${framework}`);
  return block[1]!;
}

/** The first code block after a package README's `## Usage` heading. */
function usage(dir: string): string {
  const text = readFileSync(join(root, 'packages', dir, 'README.md'), 'utf8');
  const block = /\n## Usage\n\n```(?:js|ts)\n([\s\S]*?)```/.exec(text);
  if (block === null) throw new Error(`packages/${dir}/README.md: no usage block`);
  return block[1]!;
}

/** The words after `npm install` on the README's install line for `pkg` (a comment after it dropped). */
function installLine(pkg: string): string[] {
  const line = readme.split('\n').find((l) => l.startsWith(`npm install ${pkg} `));
  if (line === undefined) throw new Error(`README.md: no "npm install ${pkg} ..." line`);
  return line.replace(/#.*/, '').trim().split(/\s+/).slice(2);
}

/** The packages the README's TypeScript line (`# TypeScript: ... npm install -D <types>`) names. */
function typesLine(): string[] {
  const line = /^# TypeScript:.*npm install -D (.*)$/m.exec(readme);
  if (line === null) throw new Error('README.md: no "# TypeScript: ... npm install -D" line');
  return line[1]!.trim().split(/\s+/);
}

const manifest = (dir: string) => JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
/** The workspace packages `dir` needs at install (dependencies and peers), itself first. */
function closure(dir: string, seen = new Set<string>()): Set<string> {
  seen.add(dir);
  const m = manifest(dir);
  for (const name of Object.keys({ ...m.dependencies, ...m.peerDependencies })) {
    if (name.startsWith('@ratekeeper/') && !seen.has(name.slice(12))) closure(name.slice(12), seen);
  }
  return seen;
}

/** Problems of a packed tarball's package.json: a `workspace:` range is one npm cannot install. */
async function manifestProblems(tarball: string): Promise<string[]> {
  const { stdout } = await run('tar', ['-xzOf', tarball, 'package/package.json'], { timeout: 10_000 });
  const packed = JSON.parse(stdout);
  return Object.entries({ ...packed.dependencies, ...packed.peerDependencies, ...packed.optionalDependencies })
    .filter(([, range]) => String(range).startsWith('workspace:'))
    .map(([name, range]) => `${packed.name}: ${name}@${range}`);
}

/** pack packs one workspace package into `into`, as the release does (pnpm), or as npm does (the mutant). */
async function pack(dir: string, into: string, tool: 'pnpm' | 'npm'): Promise<string> {
  const cwd = join(root, 'packages', dir);
  const { stdout } =
    tool === 'pnpm'
      ? await run(pnpm[0], [...pnpm[1], 'pack', '--pack-destination', into], { cwd, timeout: 120_000 })
      : await run(npm, ['pack', '--ignore-scripts', '--pack-destination', into], { cwd, timeout: 120_000 });
  const file = stdout.trim().split('\n').at(-1)!.trim();
  return file.startsWith('/') ? file : join(into, file);
}

const npmInstall = (cwd: string, args: string[]) => run(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...args], { cwd, timeout: 180_000 });

// Moves the README's app.listen(3000) to a free port on loopback and says which, for any app that
// loads it with --require (CommonJS and ESM alike: net is the same module for both).
const loopback = `const net = require('node:net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (port, ...rest) {
  const asked = typeof port === 'object' && port !== null ? port.port : port;
  if (asked !== 3000) throw new Error('the quick start listens on ' + String(asked) + ', not 3000');
  this.once('listening', () => process.stdout.write('listening ' + this.address().port + '\\n'));
  if (typeof port === 'object') return listen.call(this, { ...port, port: 0, host: '127.0.0.1' }, ...rest);
  return listen.call(this, 0, '127.0.0.1', ...rest);
};
`;

let work: string;
const tarballs = new Map<string, string>();
const children: ChildProcess[] = [];

/** serve runs `file` in `cwd` with the loopback preload; resolves with its URL once it listens (at most 20 s). */
function serve(cwd: string, file: string): Promise<string> {
  const child = spawn(process.execPath, ['--require', join(work, 'loopback.cjs'), file], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not listen within 20 s:\n${output}`)), 20_000);
    const read = (chunk: Buffer) => {
      output += chunk;
      const port = /listening (\d+)/.exec(output)?.[1];
      if (port !== undefined) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${port}`);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited (${code}) before listening:\n${output}`));
    });
  });
}

/** Sends `request` until the first 429 (at most `max`), answering the statuses and the 429. */
async function untilRefused(request: () => Promise<Response>, max: number): Promise<{ statuses: number[]; refused: Response }> {
  const statuses: number[] = [];
  for (let i = 0; i < max; i++) {
    const res = await request();
    statuses.push(res.status);
    if (res.status === 429) return { statuses, refused: res };
    await res.arrayBuffer();
  }
  throw new Error(`no 429 in ${max} requests`);
}

/** A README app with its installed packages: the adapter's tarball, its workspace dependencies' tarballs, and the framework from npm. */
async function app(name: string, type: 'commonjs' | 'module', extra: string[], adapter = 'express'): Promise<string> {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type }));
  const words = installLine(`@ratekeeper/${adapter}`).map((w) => tarballs.get(w) ?? w);
  const peers = [...closure(adapter)].map((d) => tarballs.get(`@ratekeeper/${d}`)!);
  await npmInstall(dir, [...new Set([...peers, ...words])]);
  if (extra.length > 0) await npmInstall(dir, ['-D', ...extra]);
  return dir;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ratekeeper-packed-'));
  writeFileSync(join(work, 'loopback.cjs'), loopback);
  mkdirSync(join(work, 'tarballs'));
  const dirs = new Set([...closure('express'), ...closure('fastify'), ...closure('koa'), ...closure('hono')]);
  for (const dir of dirs) tarballs.set(`@ratekeeper/${dir}`, await pack(dir, join(work, 'tarballs'), 'pnpm'));
}, 300_000);

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
}, 120_000); // eight apps' node_modules to delete

describe('the packed packages, installed by npm, running the README quick start', () => {
  it('the release packer leaves no workspace: range in a packed package.json', async () => {
    expect([...tarballs.keys()].sort()).toEqual(['@ratekeeper/core', '@ratekeeper/express', '@ratekeeper/fastify', '@ratekeeper/fetch', '@ratekeeper/hono', '@ratekeeper/koa']);
    for (const tarball of tarballs.values()) expect(await manifestProblems(tarball)).toEqual([]);
  });

  it('Express, CommonJS: the sliding window admits 100 in a minute, then 429 with Retry-After', async () => {
    const dir = await app('cjs-app', 'commonjs', []);
    const installed = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')).packages;
    expect(installed['node_modules/@ratekeeper/core'].resolved).toMatch(/^file:/);
    expect(installed['node_modules/@ratekeeper/express'].resolved).toMatch(/^file:/);
    writeFileSync(join(dir, 'app.js'), quickStart(readme, 'Express', 'CommonJS'));
    const url = await serve(dir, 'app.js');
    const { statuses, refused } = await untilRefused(() => fetch(`${url}/`), 110);
    expect(statuses).toEqual([...new Array(100).fill(200), 429]);
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  }, 240_000);

  it('Express, ESM TypeScript (nodenext, strict): compiles; /login admits 5, then 429 with Retry-After', async () => {
    const types = typesLine().filter((w) => w === '@types/express');
    expect(types).toEqual(['@types/express']);
    const dir = await app('esm-app', 'module', types);
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'app.ts'), quickStart(readme, 'Express', 'ESM'));
    const tsconfig = { compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, rootDir: 'src', outDir: 'dist' }, include: ['src'] };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    await run(process.execPath, [tsc, '-p', '.'], { cwd: dir, timeout: 60_000 }).catch((error: { stdout?: string }) => {
      throw new Error(`tsc failed on the README's ESM quick start:\n${error.stdout ?? error}`);
    });
    const url = await serve(dir, 'dist/app.js');
    const home = await fetch(`${url}/`);
    expect([home.status, await home.text()]).toEqual([200, 'ok']);
    const login = () => fetch(`${url}/login`, { method: 'POST' });
    const { statuses, refused } = await untilRefused(login, 10);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  }, 240_000);
});

describe('the Fastify, Koa and Hono CommonJS quick starts, on the packed packages', () => {
  const cases: [Framework, string][] = [
    ['Fastify', 'fastify'],
    ['Koa', 'koa'],
    ['Hono', 'hono'],
  ];
  for (const [framework, adapter] of cases) {
    it(`${framework}, CommonJS: the sliding window admits 100 in a minute, then 429 with Retry-After`, async () => {
      const dir = await app(`${adapter}-cjs-app`, 'commonjs', [], adapter);
      const installed = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8')).packages;
      expect(installed[`node_modules/@ratekeeper/${adapter}`].resolved).toMatch(/^file:/);
      writeFileSync(join(dir, 'app.js'), quickStart(readme, framework, 'CommonJS'));
      const url = await serve(dir, 'app.js');
      const { statuses, refused } = await untilRefused(() => fetch(`${url}/`), 110);
      expect(statuses).toEqual([...new Array(100).fill(200), 429]);
      expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(refused.headers.get('ratelimit-policy')).toBe('"sw-100-60000";q=100;w=60');
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }, 240_000);
  }
});

describe("the Fastify and Koa READMEs' usage blocks, on the packed packages", () => {
  it('Fastify, ESM TypeScript (nodenext, strict): compiles; /login admits 5, then 429 with Retry-After; /health is never limited', async () => {
    const types = typesLine().filter((w) => w === '@types/node');
    expect(types, "the README's TypeScript line names @types/node (Fastify's types use Node's)").toEqual(['@types/node']);
    const dir = await app('fastify-app', 'module', types, 'fastify');
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src', 'app.ts'), usage('fastify'));
    const tsconfig = { compilerOptions: { module: 'nodenext', target: 'es2022', strict: true, rootDir: 'src', outDir: 'dist' }, include: ['src'] };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    await run(process.execPath, [tsc, '-p', '.'], { cwd: dir, timeout: 60_000 }).catch((error: { stdout?: string }) => {
      throw new Error(`tsc failed on the Fastify README's usage block:\n${error.stdout ?? error}`);
    });
    const url = await serve(dir, 'dist/app.js');
    const { statuses, refused } = await untilRefused(() => fetch(`${url}/login`, { method: 'POST' }), 10);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const health = await fetch(`${url}/health`);
    expect([health.status, health.headers.get('ratelimit'), await health.text()]).toEqual([200, null, 'up']);
  }, 240_000);

  it('Koa, ESM JavaScript: /search admits a burst of 10 per signed-in user, then 429 with Retry-After; no user is 401', async () => {
    const dir = await app('koa-app', 'module', [], 'koa');
    writeFileSync(join(dir, 'app.js'), usage('koa'));
    const url = await serve(dir, 'app.js');
    const search = () => fetch(`${url}/search`, { method: 'POST', headers: { 'x-user-id': 'ada' } });
    const startedAt = performance.now();
    const { statuses, refused } = await untilRefused(search, 30);
    // A burst of 10, and one more for each tenth of a second the requests took (10 per second refill).
    const refills = Math.floor((performance.now() - startedAt) / 100);
    expect(statuses.slice(0, 10)).toEqual(new Array(10).fill(200));
    expect(statuses.length - 1).toBeLessThanOrEqual(10 + refills);
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(refused.headers.get('ratelimit-policy')).toContain('"second"');
    const anonymous = await fetch(`${url}/search`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
  }, 240_000);
});

describe("the NestJS README's usage block, on the packed package, on Nest 11 and Nest 12", () => {
  // A Nest application of either major installs the packed @ratekeeper/nestjs beside its own Nest
  // (npm refuses a peer range that leaves its Nest out: ERESOLVE), compiles the README's usage block
  // (decorators, as a Nest project compiles them) and limits over real HTTP.
  for (const major of [11, 12]) {
    it(`Nest ${major}, Express platform, ESM TypeScript: installs, compiles; /login admits 5, then 429 with Retry-After; /health is never limited`, async () => {
      const into = join(work, `nest${major}-tarballs`);
      mkdirSync(into);
      const packed = await Promise.all([...closure('nestjs')].map((dir) => pack(dir, into, 'pnpm')));
      const dir = join(work, `nest${major}-app`);
      mkdirSync(dir);
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `nest${major}-app`, private: true, type: 'module' }));
      const nest = ['common', 'core', 'platform-express'].map((p) => `@nestjs/${p}@${major}`);
      await npmInstall(dir, [...nest, 'reflect-metadata', 'rxjs', ...packed]).catch((error: { stderr?: string }) => {
        throw new Error(`npm could not install @ratekeeper/nestjs beside Nest ${major}:\n${error.stderr ?? error}`);
      });
      const installed = JSON.parse(readFileSync(join(dir, 'node_modules', '@nestjs', 'core', 'package.json'), 'utf8')).version as string;
      expect(installed.split('.')[0]).toBe(String(major));
      mkdirSync(join(dir, 'src'));
      writeFileSync(join(dir, 'src', 'app.ts'), usage('nestjs'));
      const compilerOptions = {
        module: 'nodenext',
        target: 'es2022',
        strict: true,
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
        skipLibCheck: true,
        rootDir: 'src',
        outDir: 'dist',
      };
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['src'] }));
      await run(process.execPath, [tsc, '-p', '.'], { cwd: dir, timeout: 60_000 }).catch((error: { stdout?: string }) => {
        throw new Error(`tsc failed on the NestJS README's usage block (Nest ${major}):\n${error.stdout ?? error}`);
      });
      const url = await serve(dir, 'dist/app.js');
      const { statuses, refused } = await untilRefused(() => fetch(`${url}/login`, { method: 'POST' }), 10);
      expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
      expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      // A sliding window of 5 a minute: the 5 counted early in one window weigh on the next until a
      // fifth of it has passed, so the wait is at most 60 + 12 s.
      expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(72);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const health = await fetch(`${url}/health`);
      expect([health.status, health.headers.get('ratelimit'), await health.text()]).toEqual([200, null, 'ok']);
    }, 300_000);
  }
});

describe('mutants: what the checks above catch', () => {
  it('npm pack leaves workspace:^, which the manifest check names and npm refuses to install', async () => {
    const into = join(work, 'npm-packed');
    mkdirSync(into);
    const tarball = await pack('express', into, 'npm');
    expect(await manifestProblems(tarball)).toEqual(['@ratekeeper/express: @ratekeeper/core@workspace:^']);
    const dir = join(work, 'npm-packed-app');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), '{"name":"npm-packed-app","private":true}');
    await expect(npmInstall(dir, [tarball])).rejects.toThrow(/EUNSUPPORTEDPROTOCOL|workspace:/);
  }, 120_000);

  it('a README quick start without app.listen fails: the app exits before listening', async () => {
    const quick = quickStart(readme, 'Express', 'CommonJS');
    const drifted = quick.replace('app.listen(3000);\n', '');
    expect(drifted).not.toBe(quick);
    const dir = join(work, 'cjs-app');
    writeFileSync(join(dir, 'drifted.js'), drifted);
    await expect(serve(dir, 'drifted.js')).rejects.toThrow(/exited \(0\) before listening/);
  }, 30_000);
});
