/**
 * `@ratekeeper/core/adapter`, the framework adapters' entry point, is deliberate: the exact list of
 * value names it exports, the built package answering the same names to `require()` from a CommonJS
 * file and to `import` from an ES module, each in a child Node process, and every name the root entry
 * marks deprecated (the adapter internals it still re-exports for one minor version) present here as
 * the very same value.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import * as entry from '../src/adapter.js';
import * as root from '../src/index.js';
import { deprecatedAtRoot } from './support/deprecated.js';

const VALUES = [
  'CLIENT_CLOSED',
  'DECISION_OUTCOMES',
  'DEFAULT_IPV6_SUBNET',
  'DEFAULT_MAX_DELAY_MS',
  'IpList',
  'LIMITER_OPTIONS',
  'LimitedBodies',
  'MAX_LIMITED_BODIES',
  'MissingIpError',
  'PROBLEM_CONTENT_TYPE',
  'PROXY_WARNING_CODES',
  'ProxyWarning',
  'RateLimiterError',
  'SHORTHAND',
  'abandon',
  'answerNode',
  'bySocket',
  'checkIpv6Subnet',
  'chooseLimiter',
  'describeValue',
  'ipKey',
  'limitField',
  'limitedResponse',
  'outcomeOf',
  'policyField',
  'prepareRateLimit',
  'refuseUnknown',
  'retryAfterSeconds',
  'seconds',
  'replaceNodeHeader',
  'sendLimited',
  'setNodeHeader',
  'writeHeaders',
];

/** The root entry's names marked @deprecated (moved here); they leave the root in the next minor version. */
const DEPRECATED_AT_ROOT = [
  'DECISION_OUTCOMES',
  'LimitedBody',
  'LimitedBodies',
  'MAX_LIMITED_BODIES',
  'chooseLimiter',
  'describeValue',
  'limitField',
  'outcomeOf',
  'policyField',
  'prepareRateLimit',
  'refuseUnknown',
  'writeHeaders',
];

const names = (code: string, type: 'commonjs' | 'module') =>
  JSON.parse(execFileSync(process.execPath, ['--input-type', type, '-e', code], { cwd: new URL('..', import.meta.url), encoding: 'utf8' })) as string[];

describe('@ratekeeper/core/adapter', () => {
  it('exports exactly the listed values', () => {
    expect(Object.keys(entry).sort()).toEqual([...VALUES].sort());
  });

  it('is where every name the root entry marks @deprecated for it went (read from src/index.ts)', () => {
    expect(deprecatedAtRoot('@ratekeeper/core/adapter')).toEqual([...DEPRECATED_AT_ROOT].sort());
  });

  it("holds every name the root marks deprecated, as the root's very value", () => {
    for (const name of DEPRECATED_AT_ROOT) expect([name, (entry as Record<string, unknown>)[name]]).toEqual([name, (root as Record<string, unknown>)[name]]);
  });

  it('answers the same names to require() and to import from the built package', { timeout: 30_000 }, () => {
    const required = names("process.stdout.write(JSON.stringify(Object.keys(require('@ratekeeper/core/adapter')).sort()))", 'commonjs');
    const imported = names("import('@ratekeeper/core/adapter').then((m) => process.stdout.write(JSON.stringify(Object.keys(m).sort())))", 'module');
    expect(required).toEqual([...VALUES].sort());
    expect(imported).toEqual([...VALUES].sort());
  });
});
