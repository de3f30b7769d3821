/**
 * The global trap every test file runs under (vitest setupFiles): any unhandled rejection, or a
 * rejection handled too late, fails the test during which it surfaced. A store that lets a late Redis
 * reply reject into the void is caught here rather than in production.
 */
import { afterEach, expect } from 'vitest';

const escaped: unknown[] = [];
process.on('unhandledRejection', (reason) => {
  escaped.push(reason);
});
process.on('warning', (warning) => {
  if (warning.name === 'PromiseRejectionHandledWarning') escaped.push(warning);
});

afterEach(() => {
  const seen = escaped.splice(0);
  expect(seen, 'unhandled rejections').toEqual([]);
});
