/**
 * Mutant: a store that decides in the isolate's memory instead of in the object. Its namespace runs
 * the object's own KeyRows in the calling isolate (one per object name, at module scope), so within
 * one isolate it is exactly the real store, and every isolate counts alone. The exactness test's check
 * (several isolates, one limit) must catch it.
 */
import type { KeyRows } from '../../src/key-rows.js';
import type { LimiterNamespace } from '../../src/index.js';
import { rowsNamespace } from '../support/rows-namespace.js';

const objects = new Map<string, KeyRows>();

export function isolateMemoryNamespace(): LimiterNamespace {
  return rowsNamespace(objects);
}
