/**
 * MemoryStore options (issue 7, item 5): a misspelt option is refused at construction with the
 * adapters' message shape (`Owner: unknown option "name"`), instead of silently keeping the default;
 * the one known option still works, and the options object is left as it was.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../src/index.js';

describe('MemoryStore options', () => {
  it.each([
    [{ maxkeys: 10 }, 'maxkeys'],
    [{ maxKeys: 10, max: 5 }, 'max'],
    [{ MaxKeys: 10 }, 'MaxKeys'],
    [{ store: 'x' }, 'store'],
  ])('refuses the unknown option in %o', (options, name) => {
    expect(() => new MemoryStore(options as never)).toThrowError(new TypeError(`MemoryStore: unknown option "${name}"`));
  });

  it('takes maxKeys, an empty object and no options at all, and leaves the object as it was', () => {
    const options = Object.freeze({ maxKeys: 10 });
    expect(new MemoryStore(options).maxKeys).toBe(10);
    expect(new MemoryStore({}).maxKeys).toBe(100_000);
    expect(new MemoryStore().maxKeys).toBe(100_000);
    expect(options).toEqual({ maxKeys: 10 });
  });
});
