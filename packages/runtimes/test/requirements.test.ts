/**
 * In CI (CI=true) every runtime must be here: a missing one fails this file instead of quietly
 * skipping its suite. On a developer machine a missing runtime only warns (see ./launch.ts).
 */
import { describe, expect, it } from 'vitest';
import { bunBinary, denoBinary, inCI } from './launch.js';

describe('the runtimes', () => {
  it.runIf(inCI)('Bun, Deno and Miniflare (workerd) are installed from npm', async () => {
    expect(bunBinary(), 'bun').toBeDefined();
    expect(denoBinary(), 'deno').toBeDefined();
    await expect(import('miniflare')).resolves.toHaveProperty('Miniflare');
  });

  it('finds the binaries where the npm packages put them', () => {
    const found = [bunBinary(), denoBinary()];
    if (!inCI && found.includes(undefined)) return; // launch.ts has warned loudly
    expect(found.every((f) => typeof f === 'string' && f.length > 0)).toBe(true);
  });
});
