/**
 * The CommonJS entries are `module.exports = require('../esm/<entry>.js')` (scripts/build-package.mjs):
 * Node's require(esm) loads the one ES build. This holds only if that stays silent and single: a
 * CommonJS user must see no ExperimentalWarning (or any other output) on the Node running the tests,
 * and a process that loads core both ways must get one module instance, so one MemoryStore class and
 * one registry of store names. Runs the built package (dist) by name in a child process.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('the CommonJS entries', () => {
  it('require() every entry prints nothing, on stdout or stderr', () => {
    const script = "for (const entry of ['@ratekeeper/core', '@ratekeeper/core/adapter', '@ratekeeper/core/store']) require(entry);";
    const run = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8', timeout: 20_000 });
    expect([run.status, run.stdout, run.stderr]).toEqual([0, '', '']);
  });

  it('require() and import give one module instance', () => {
    const script = `const cjs = require('@ratekeeper/core');
      import('@ratekeeper/core').then((esm) => console.log(JSON.stringify([esm.MemoryStore === cjs.MemoryStore, Object.keys(cjs).length === Object.keys(esm).length])));`;
    expect(JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8', timeout: 20_000 }))).toEqual([true, true]);
  });
});
