/**
 * Every code block of the user documentation that is a program runs (./blocks.ts lists them, ./run.ts
 * judges each): TypeScript blocks have their types stripped by typescript's transpileModule (Node 20
 * strips none), and each runs in a child process of its own, two at a time, against the real Redis,
 * PostgreSQL and MariaDB of the machine (REDIS_URL, DATABASE_URL and MYSQL_URL point at them unless set).
 * A block that throws at start, crashes, or whose server does not answer fails here, naming the block.
 * A block marked `<!-- not run: <why> -->` (or not compiled) is listed with its reason. The root
 * README's quick starts (its Express, Fastify, Koa and Hono sections: ESM and CommonJS each) must each
 * be run and serve, never merely exit; the PostgreSQL and MySQL READMEs' quick starts must print and
 * exit (their pool closed), never be held open. Three canaries,
 * one that throws at start, one whose server never answers and one whose store reports a failure on
 * stderr, must fail, so the test cannot pass
 * vacuously; and at least MIN_RUN blocks must run.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { type Block, ROOT, blocks, documents } from './blocks.js';
import { runBlock, type Verdict } from './run.js';

const DIR = join(fileURLToPath(new URL('..', import.meta.url)), '.run');
const MIN_RUN = 30;
const CONCURRENCY = 2;
const ENV = {
  ...process.env,
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test',
  MYSQL_URL: process.env.MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test',
};

/** javascript is the block as a runnable module: its file name and its code, types stripped. */
function javascript(block: Block): { name: string; code: string } {
  const base = block.at.replace(/[^A-Za-z0-9]+/g, '_');
  if (block.extension === '.mjs' || block.extension === '.cjs') return { name: `${base}${block.extension}`, code: block.code };
  const cjs = block.extension === '.cts';
  const { outputText } = ts.transpileModule(block.code, {
    // Nest's blocks (the NestJS README, MIGRATING's @nestjs/throttler section) use its legacy decorators.
    compilerOptions: { target: ts.ScriptTarget.ES2023, module: cjs ? ts.ModuleKind.CommonJS : ts.ModuleKind.ESNext, experimentalDecorators: true, emitDecoratorMetadata: true },
  });
  return { name: `${base}${cjs ? '.cjs' : '.mjs'}`, code: outputText };
}

/** pool runs `tasks` with at most CONCURRENCY at once and answers their results in order. */
async function pool<T>(tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return results;
}

/** The READMEs whose first block (the quick start, a script) must exit by itself rather than be held open. */
const ENDING = ['packages/postgres/README.md', 'packages/mysql/README.md'];

/** The quick start sections of the root README: each framework's `### <name>` section. */
const QUICK_STARTS = ['Express', 'Fastify', 'Koa', 'Hono'];

/** quickStartLines answers, per framework, the first and last line of its quick start section in README.md. */
function quickStartLines(): Map<string, [number, number]> {
  const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n');
  const ranges = new Map<string, [number, number]>();
  for (const name of QUICK_STARTS) {
    const start = lines.indexOf(`### ${name}`);
    if (start < 0) continue;
    const next = lines.findIndex((line, i) => i > start && line.startsWith('##'));
    ranges.set(name, [start + 1, next < 0 ? lines.length : next]);
  }
  return ranges;
}

const CANARIES: Record<string, string> = {
  'canary-throws.mjs': "import express from 'express';\nconst app = express();\nundefinedName();\napp.listen(3000);\n",
  'canary-silent.mjs': "import { createServer } from 'node:http';\ncreateServer(() => {}).listen(3000);\n",
  // The SQLite README's block as it was: a path the machine lacks; the store reports the failure, fails open, exits 0.
  'canary-warns.mjs': [
    "import { TokenBucketLimiter } from '@ratekeeper/core';",
    "import { SqliteStore } from '@ratekeeper/sqlite';",
    "const store = new SqliteStore({ path: '/nonexistent/limits.sqlite' });",
    "store.on('failure', (info) => console.warn('rate-limit store failure:', info.reason));",
    "new TokenBucketLimiter({ capacity: 10, refillPerSecond: 10, store }).consume('user:42');",
    '',
  ].join('\n'),
};

it('runs every JavaScript and TypeScript block of the READMEs and MIGRATING.md that is a program', async () => {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const cwd = mkdtempSync(join(tmpdir(), 'readme-run-'));
  try {
    const unrun: string[] = [];
    const jobs: { at: string; file: string; code: string }[] = [];
    for (const document of documents()) {
      for (const block of blocks(document)) {
        if (block.unrun !== undefined) {
          unrun.push(`${block.at}: ${block.unrun}`);
          continue;
        }
        const { name, code } = javascript(block);
        writeFileSync(join(DIR, name), code);
        jobs.push({ at: block.at, file: join(DIR, name), code: block.code });
      }
    }
    for (const [name, code] of Object.entries(CANARIES)) {
      writeFileSync(join(DIR, name), code);
      jobs.push({ at: name, file: join(DIR, name), code });
    }
    const verdicts: Verdict[] = await pool(jobs.map((job) => () => runBlock(job.file, job.code, ENV, cwd)));
    const lines = jobs.map((job, i) => `${job.at}: ${verdicts[i]?.ok ?? `FAILED ${verdicts[i]?.failure}`}`);
    console.log(`blocks run:\n${lines.join('\n')}`);
    if (unrun.length > 0) console.log(`blocks not run:\n${unrun.join('\n')}`);
    const failed = lines.filter((line) => line.includes(': FAILED '));
    // The canaries fail, each for its reason.
    expect(failed.filter((line) => line.startsWith('canary-')).map((line) => line.split('\n')[0])).toEqual([
      expect.stringMatching(/^canary-throws\.mjs: FAILED threw at start: ReferenceError: undefinedName/),
      expect.stringMatching(/^canary-silent\.mjs: FAILED GET \/: no answer within/),
      expect.stringMatching(/^canary-warns\.mjs: FAILED exited 0, but wrote to stderr/),
    ]);
    expect(jobs.length - Object.keys(CANARIES).length).toBeGreaterThanOrEqual(MIN_RUN);
    // Every quick start, ESM and CommonJS, runs and serves.
    const ranges = quickStartLines();
    expect([...ranges.keys()]).toEqual(QUICK_STARTS);
    for (const [name, [first, last]] of ranges) {
      const inSection = jobs
        .map((job, i) => ({ line: /^README\.md:(\d+)$/.exec(job.at)?.[1], verdict: verdicts[i] }))
        .filter(({ line }) => line !== undefined && Number(line) > first && Number(line) <= last);
      expect(inSection.length, `${name}: its ESM and CommonJS quick starts are run`).toBe(2);
      for (const { verdict } of inSection) expect(verdict?.ok ?? verdict?.failure, name).toMatch(/^served /);
    }
    // The SQL stores' quick starts print their decision and end (they close their pool), so a user sees it worked.
    for (const readme of ENDING) {
      const i = jobs.findIndex((job) => job.at.startsWith(`${readme}:`));
      expect(verdicts[i]?.ok ?? verdicts[i]?.failure, `${readme}: its quick start ends`).toBe('exited 0');
    }
    expect(failed.filter((line) => !line.startsWith('canary-'))).toEqual([]);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
