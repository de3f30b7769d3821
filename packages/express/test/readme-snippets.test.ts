/**
 * The root README's quick start (ESM and CommonJS) and MIGRATING.md's Express "after", run as written
 * but for the port: each is written into this package (so `express` and `@ratekeeper/express` resolve
 * as in an app, the latter to the built package), started with `node`, and asked over HTTP. A snippet
 * that stops running, or stops limiting as its comment says, fails here; one that goes missing too.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url);
const here = new URL('../', import.meta.url);
const running: ChildProcess[] = [];
const written: URL[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill();
  for (const file of written.splice(0)) rmSync(file, { force: true });
});

/** blocks returns the ```js blocks of `section` (from its heading to the next one of the same level). */
function blocks(file: string, heading: string): string[] {
  const text = readFileSync(new URL(file, root), 'utf8');
  const start = text.indexOf(heading);
  expect(start, `${file}: ${heading}`).toBeGreaterThanOrEqual(0);
  const level = heading.split(' ')[0] as string;
  const end = text.indexOf(`\n${level} `, start + heading.length);
  return [...text.slice(start, end < 0 ? undefined : end).matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

/** serve runs `code` (its app.listen(3000) on a free port instead) and resolves to its base URL. */
async function serve(code: string, ext: 'mjs' | 'cjs'): Promise<string> {
  expect(code).toContain('app.listen(3000);');
  const file = new URL(`readme-snippet-${written.length}.${ext}`, here);
  writeFileSync(file, code.replace('app.listen(3000);', "const server = app.listen(0, '127.0.0.1', () => console.log(server.address().port));"));
  written.push(file);
  const child = spawn(process.execPath, [file.pathname], { stdio: ['ignore', 'pipe', 'inherit'] });
  running.push(child);
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  return `http://127.0.0.1:${chunk.toString().trim()}`;
}

const statuses = async (url: string, method: string, n: number) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await fetch(url, { method })).status);
  return out;
};

describe('README and MIGRATING snippets', () => {
  it('the ESM quick start answers, and its login route allows 5 a minute', { timeout: 20_000 }, async () => {
    const [esm] = blocks('README.md', '## Quick start');
    const base = await serve(esm as string, 'mjs');
    expect(await statuses(`${base}/`, 'GET', 1)).toEqual([200]);
    expect(await statuses(`${base}/login`, 'POST', 6)).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('the CommonJS quick start answers with the draft-10 fields', { timeout: 20_000 }, async () => {
    const [, cjs] = blocks('README.md', '## Quick start');
    const base = await serve(cjs as string, 'cjs');
    const res = await fetch(`${base}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('"sw-100-60000";q=100;w=60');
  });

  it("MIGRATING.md's express-rate-limit after: 100 per 15 minutes, a text 429", { timeout: 20_000 }, async () => {
    const [before, after] = blocks('MIGRATING.md', '## express-rate-limit');
    expect(before).toContain("require('express-rate-limit')");
    const base = await serve(after as string, 'cjs');
    const got = await statuses(`${base}/`, 'GET', 101);
    expect(got.filter((s) => s === 200)).toHaveLength(100);
    const limited = await fetch(`${base}/`);
    expect([limited.status, await limited.text()]).toEqual([429, 'Too many requests']);
  });
});
