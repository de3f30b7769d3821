/**
 * This package's mutant builds (store-contract's mutantBuilder: the package's own source with exact
 * edits, compiled into .builds/<pid>/<name>/), each caught by a test:
 * - `per-connection-key`: every connection spends a budget of its own, whatever `key` names (the
 *   per-user sharing), caught by ../shared-user.test.ts across two processes.
 */
import { fileURLToPath } from 'node:url';
import { mutantBuilder } from '@ratekeeper/store-contract';

export const buildMutant = mutantBuilder(fileURLToPath(new URL('../..', import.meta.url)), {
  'per-connection-key': [['ws.ts', 'const key = keyOf === undefined ? connection : keyOf(req);', 'const key = connection;']],
});
