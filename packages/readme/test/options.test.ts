/**
 * Each adapter README's option table names exactly the options its options type takes: every
 * property of the type (across the union of its limiter sources: a ready `limiter`, one algorithm's
 * shorthand, or `plans`) is in the table's first column, and the table names nothing the type lacks.
 * Each store README's option table does the same for its store's options (core's failure options,
 * `failureWarning` among them, included). The options are read from the published types by the
 * TypeScript checker, so an option added to an adapter or a store (or to core's shared options)
 * without a row in each README fails here, naming both.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';
import { ROOT } from './blocks.js';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));

/** The adapters, their options type, and the heading their option table follows. */
const ADAPTERS = [
  { dir: 'express', type: 'ExpressRateLimitOptions' },
  { dir: 'fastify', type: 'FastifyRateLimitOptions' },
  { dir: 'koa', type: 'KoaRateLimitOptions' },
  { dir: 'hono', type: 'HonoRateLimitOptions' },
  { dir: 'fetch', type: 'FetchRateLimitOptions' },
] as const;

/** The stores, their options type, and the README whose first option table lists them. */
const STORES = [
  { dir: 'redis', type: 'RedisStoreOptions' },
  { dir: 'postgres', type: 'PostgresStoreOptions' },
  { dir: 'mysql', type: 'MySqlStoreOptions' },
  { dir: 'sqlite', type: 'SqliteStoreOptions' },
  { dir: 'durable-object', type: 'DurableObjectStoreOptions' },
] as const;

/** refusal tells a refused option's type: never, or the sentence naming the mistake (core's shorthand.ts: `capacity is a token-bucket option, not a fixed-window one`). */
function refusal(type: ts.Type): boolean {
  const members = type.isUnion() ? type.types : [type];
  return members.every((t) => t.isStringLiteral() && / (?:is an? .* option, not an? .* one|goes to the limiter you build|replaces the algorithm options)/.test(t.value));
}

/** optionsOf answers, per package, the names of the options its options type takes (not those it refuses, with `?: never` or a sentence naming the mistake). */
function optionsOf(packages: readonly { readonly dir: string; readonly type: string }[]): Map<string, string[]> {
  const file = join(PACKAGE, 'options-probe.mts');
  const source = packages.map(({ dir, type }, i) => `import type { ${type} as T${i} } from '@ratekeeper/${dir}';\nexport type options_${i} = T${i};`).join('\n');
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
  const found = new Map<string, string[]>();
  for (const statement of probe.statements) {
    if (!ts.isTypeAliasDeclaration(statement)) continue;
    const type = checker.getTypeAtLocation(statement.name);
    const names = new Set<string>();
    for (const member of type.isUnion() ? type.types : [type]) {
      for (const property of checker.getPropertiesOfType(member)) {
        const declared = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(property, statement));
        if (!(declared.flags & ts.TypeFlags.Never) && !refusal(declared)) names.add(property.name);
      }
    }
    found.set((packages[Number(statement.name.text.replace(/^options_/, ''))] as { dir: string }).dir, [...names].sort());
  }
  return found;
}

/** tableOf answers the option names in the first column of the README's first `| Option |` table (any case). */
function tableOf(dir: string): string[] {
  const text = readFileSync(join(ROOT, 'packages', dir, 'README.md'), 'utf8');
  const start = text.search(/\n\| Option \|/i);
  if (start < 0) throw new Error(`packages/${dir}/README.md: no "| Option |" table`);
  const rows = text
    .slice(start + 1)
    .split('\n\n')[0]!
    .split('\n')
    .slice(2);
  const names = rows.flatMap((row) => [...(row.split('|')[1] ?? '').matchAll(/`([A-Za-z][A-Za-z0-9]*)[(`]/g)].map((m) => m[1]!));
  return [...new Set(names)].sort();
}

it("lists every option of each adapter's options type in its README's option table, and nothing else", () => {
  const types = optionsOf(ADAPTERS);
  expect([...types.keys()]).toEqual(ADAPTERS.map((a) => a.dir));
  for (const { dir } of ADAPTERS) {
    const typed = types.get(dir)!;
    expect(typed.length, `${dir}: the checker found its options`).toBeGreaterThan(25);
    expect(tableOf(dir), `packages/${dir}/README.md's option table against ${dir}'s options type`).toEqual(typed);
  }
}, 120_000);

it("lists every option of each store's options type in its README's option table, and nothing else", () => {
  const types = optionsOf(STORES);
  expect([...types.keys()]).toEqual(STORES.map((s) => s.dir));
  for (const { dir } of STORES) {
    const typed = types.get(dir)!;
    expect(typed, `${dir}: the checker found its options, failureWarning among them`).toContain('failureWarning');
    expect(tableOf(dir), `packages/${dir}/README.md's option table against ${dir}'s options type`).toEqual(typed);
  }
}, 120_000);
