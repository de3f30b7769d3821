/**
 * Mutant builds: deliberately broken variants of the store that no client wrapper can express (how
 * Remote judges a silence, what a concurrency binding does with a release Redis could not run). Each
 * is the package's own TypeScript source with a few exact edits, transpiled (store-contract's transpileTree) into
 * .builds/<pid>/<name>/ (ignored by git), so that the multi-process workers can load it as they load
 * dist. Every edit must match its source exactly once: a mutant whose edit no longer applies fails
 * loudly instead of silently testing the unbroken store.
 */
import { buildRoot, transpileTree } from '@ratekeeper/store-contract';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PACKAGE = fileURLToPath(new URL('../..', import.meta.url));
const CORE = fileURLToPath(new URL('../../../core', import.meta.url));
const require = createRequire(import.meta.url);

/** An edit: in `pkg`'s source `file` (relative to src/), replace `from` (exactly once) by `to`. */
type Edit = readonly [pkg: 'core' | 'redis', file: string, from: string, to: string];

export const MUTANTS = {
  /**
   * The verdict is taken in the timers phase, before the poll phase reads what the socket holds, and
   * none of the process's own work is taken off the silence: a busy process blames Redis.
   */
  'timer-phase-verdict': [
    ['core', 'store/remote/remote.ts', 'if (now > this.#dueAt) this.#silentSince += now - this.#dueAt;', ''],
    ['core', 'store/remote/remote.ts', '    this.#turnAt = now;\n    nextTurn(this.#sweep);\n  };', '    this.#turnAt = now;\n    this.#sweep();\n  };'],
    ['core', 'store/remote/remote.ts', '    this.#silentSince += now - this.#turnAt;\n', ''],
  ],
  /** A silence of timeoutMs before the server has ever answered opens the breaker: a slow start sends what follows to the fallback. */
  'cold-breaker': [['core', 'store/remote/remote.ts', 'if (this.#heardOnce || silence >= COLD_FACTOR * this.#timeoutMs) this.#trip(now);', 'this.#trip(now);']],
  /** The breaker's probe is a user's request (no background PING): while Redis is refused, one request every probeIntervalMs waits. */
  'user-probe': [['redis', 'transport/remote.ts', 'failureOf, expiredAt, probe });', 'failureOf, expiredAt });']],
  /** A refund never sent while the breaker was open is not owed: Redis keeps the charge it gives back (the store before this release). */
  'refund-not-owed': [['redis', 'binding.ts', "      if (ended.reason === 'unavailable') this.#owe(key, now, cost);\n", '']],
  /** A release Redis could not run is dropped: the key's units stay locked until their TTL. */
  'dropped-releases': [['redis', 'concurrency/concurrency-binding.ts', "if (ended.reason === 'reply') return;", "if (ended.reason === 'reply' || retried !== undefined) return;"]],
  /** A call that waited goes to Redis whatever denial of its key came back meanwhile: a hot key's whole burst reaches Redis. */
  'held-calls-unchecked': [
    ['redis', 'transport/batcher.ts', 'const calls = this.#denyCache !== undefined && this.#denyCache.size > 0 ? this.#answeredHere(sending) : sending;', 'const calls = sending;'],
  ],
} satisfies Record<string, readonly Edit[]>;

export type MutantName = keyof typeof MUTANTS;

/**
 * mutantBuild compiles the named mutant and returns the URL of its @ratekeeper/redis index.js, for a
 * worker's `dist`. Edits to core build a mutant core beside it, in the build's node_modules, which
 * the mutant redis then resolves instead of the workspace's.
 */
export function mutantBuild(name: MutantName): string {
  const root = buildRoot(PACKAGE, name);
  const edits: readonly Edit[] = MUTANTS[name];
  if (edits.some(([pkg]) => pkg === 'core')) {
    const core = join(root, 'node_modules', '@ratekeeper', 'core');
    copySource(
      CORE,
      core,
      edits.filter(([pkg]) => pkg === 'core'),
    );
    cpSync(join(CORE, 'package.json'), join(core, 'package.json'));
    transpileTree(require, core, 'dist/esm');
  }
  const redis = join(root, 'redis');
  copySource(
    PACKAGE,
    redis,
    edits.filter(([pkg]) => pkg === 'redis'),
  );
  transpileTree(require, redis, 'dist');
  return pathToFileURL(join(redis, 'dist', 'index.js')).href;
}

/** copySource copies `from`'s src (tests left out) into `to`/src and applies `edits`, each exactly once. */
function copySource(from: string, to: string, edits: readonly Edit[]): void {
  cpSync(join(from, 'src'), join(to, 'src'), { recursive: true, filter: (path) => !path.endsWith('.test.ts') });
  for (const [, file, before, after] of edits) {
    const path = join(to, 'src', file);
    const source = readFileSync(path, 'utf8');
    const found = source.split(before).length - 1;
    if (found !== 1) throw new Error(`mutant: expected one "${before.trim()}" in ${file}, found ${found}`);
    writeFileSync(path, source.replace(before, after));
  }
}
