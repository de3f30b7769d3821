/**
 * The type errors of the ten most common wrong combinations of limiter options name the option that
 * does not belong and say where it belongs, as the run-time refusal does: `{ windowMs, limit, capacity }`
 * fails with "capacity is a token-bucket option, not a fixed-window one", not with "Type 'number' is not
 * assignable to type 'undefined'". Each line below is compiled by the TypeScript checker against the
 * built packages, through an adapter as a user writes it (Express's `rateLimit(…)`, a Fastify route's
 * `config.rateLimit` written inline: never `false & {…}`), and must fail on its own line with its
 * sentence. (Where every overload of Fastify's `app.register` fails, tsc lists each overload; the
 * first, the plugin's own, names the mistake.)
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

/** Each wrong line, and the sentence its error must carry. */
const WRONG: readonly (readonly [string, string])[] = [
  ['rateLimit({ windowMs: 60_000, limit: 100, capacity: 5 });', 'capacity is a token-bucket option, not a fixed-window one'],
  ["rateLimit({ algorithm: 'token-bucket', limit: 5 });", 'limit is a window or concurrency option, not a token-bucket one'],
  ["rateLimit({ algorithm: 'token-bucket', capacity: 5, windowMs: 1000 });", 'windowMs is a window option (fixed-window, sliding-window, sliding-log), not a token-bucket one'],
  ['rateLimit({ capacity: 10, refillPerSecond: 1, windowMs: 60_000 });', 'windowMs is a window option (fixed-window, sliding-window, sliding-log), not a token-bucket one'],
  ["rateLimit({ algorithm: 'fixed-window', limit: 5, capacity: 5 });", 'capacity is a token-bucket option, not a fixed-window one'],
  ["rateLimit({ algorithm: 'sliding-window', limit: 5, refillPerSecond: 1 });", 'refillPerSecond is a token-bucket option, not a sliding-window one'],
  ["rateLimit({ algorithm: 'gcra', burst: 5, limit: 5 });", 'limit is a window or concurrency option, not a gcra one'],
  ["rateLimit({ algorithm: 'concurrency', limit: 5, windowMs: 1000 });", 'windowMs is a window option (fixed-window, sliding-window, sliding-log), not a concurrency one'],
  ["rateLimit({ algorithm: 'sliding-log', limit: 5, burst: 5 });", 'burst is a gcra option, not a sliding-log one'],
  ['rateLimit({ limiter, limit: 5 });', 'limit goes to the limiter you build, not beside limiter'],
  ["app.get('/a', { config: { rateLimit: { algorithm: 'token-bucket', limit: 5 } } }, async () => 'a');", 'limit is a window or concurrency option, not a token-bucket one'],
  ["app.get('/b', { config: { rateLimit: { windowMs: 1000, limit: 5, capacity: 2 } } }, async () => 'b');", 'capacity is a token-bucket option, not a fixed-window one'],
  ["app.get('/c', { config: { rateLimit: { algorithm: 'sliding-window', limit: 5, burst: 2 } } }, async () => 'c');", 'burst is a gcra option, not a sliding-window one'],
];

const PRELUDE = [
  "import Fastify from 'fastify';",
  "import { TokenBucketLimiter } from '@ratekeeper/core';",
  "import { rateLimit } from '@ratekeeper/express';",
  "import '@ratekeeper/fastify';",
  'const app = Fastify();',
  'const limiter = new TokenBucketLimiter({ capacity: 1, refillPerSecond: 1 });',
];

/** errorsByLine compiles `lines` after the prelude and answers each line's error text (one string per diagnostic). */
function errorsByLine(lines: readonly string[]): string[][] {
  const file = join(PACKAGE, 'type-errors-probe.mts');
  const source = [...PRELUDE, ...lines].join('\n');
  const host = ts.createCompilerHost({});
  const read = host.readFile.bind(host);
  host.readFile = (name) => (name === file ? source : read(name));
  const exists = host.fileExists.bind(host);
  host.fileExists = (name) => name === file || exists(name);
  const options = {
    strict: true,
    exactOptionalPropertyTypes: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  };
  const program = ts.createProgram([file], options, host);
  const probe = program.getSourceFile(file);
  if (probe === undefined) throw new Error('the probe did not compile');
  const found: string[][] = [...PRELUDE, ...lines].map(() => []);
  for (const d of ts.getPreEmitDiagnostics(program, probe)) {
    const line = d.start === undefined ? 0 : probe.getLineAndCharacterOfPosition(d.start).line;
    found[line]!.push(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  }
  return found;
}

it('names the option that does not belong, in each of the most common wrong combinations', () => {
  const found = errorsByLine(WRONG.map(([line]) => line));
  expect(found.slice(0, PRELUDE.length).flat(), 'the prelude compiles').toEqual([]);
  for (const [i, [line, sentence]] of WRONG.entries()) {
    const errors = found[PRELUDE.length + i]!;
    expect(errors, `${line}: ${errors.join(' || ')}`).toHaveLength(1);
    expect(errors[0], line).toContain(sentence);
    expect(errors[0], `${line}: no elaboration on false`).not.toContain("'false & {");
  }
}, 120_000);
