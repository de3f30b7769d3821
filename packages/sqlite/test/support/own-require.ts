/**
 * What src/own-require.cts is in the builds (the package's own `require`), for Vitest, whose
 * transform cannot read a `.cts` file's `export =` (vitest.config.ts points the import here).
 */
import { createRequire } from 'node:module';

const ownRequire: NodeJS.Require = createRequire(new URL('../../src/index.ts', import.meta.url));
export default ownRequire;
