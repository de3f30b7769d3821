/**
 * Mutant builds of this store: deliberately broken variants, each this package's own source with a few
 * exact edits, compiled into .builds/<pid>/<name>/ by @ratekeeper/store-contract's mutantBuilder (every
 * edit must match its source exactly once, or the build fails loudly). The mutants of the objects
 * themselves, which run in workerd, are classes in ../mutants/.
 */
import { fileURLToPath } from 'node:url';
import { type Edit, mutantBuilder } from '@ratekeeper/store-contract';

const PACKAGE = fileURLToPath(new URL('../..', import.meta.url));

export const MUTANTS = {
  /** A store that decides by its failure policy in silence: no warning, with or without a 'failure' listener. */
  'silent-failures': [['core', 'store/rows/row-store.ts', '        warn(info);\n', '']],
} satisfies Record<string, readonly Edit[]>;

/** mutantBuild compiles the named mutant (once per process) and returns the URL of its index.js. */
export const mutantBuild = mutantBuilder(PACKAGE, MUTANTS);
