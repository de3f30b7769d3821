/**
 * `@ratekeeper/core/adapter`, the framework adapters' entry point, is deliberate: the exact list of
 * value names it exports, the built package answering the same names to `require()` from a CommonJS
 * file and to `import` from an ES module, each in a child Node process.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import * as entry from '../src/adapter.js';

const VALUES = [
  'abandon',
  'answerNode',
  'bySocket',
  'checkIpv6Subnet',
  'chooseLimiter',
  'clientKey',
  'CLIENT_CLOSED',
  'DECISION_OUTCOMES',
  'DEFAULT_IPV6_SUBNET',
  'DEFAULT_MAX_DELAY_MS',
  'describeValue',
  'ipFrom',
  'ipKey',
  'IpList',
  'LimitedBodies',
  'limitedResponse',
  'LIMITER_OPTIONS',
  'limitField',
  'MAX_LIMITED_BODIES',
  'MissingIpError',
  'optionalFunction',
  'optionError',
  'OPTIONS',
  'optionsOf',
  'outcomeOf',
  'PLATFORM_HEADERS',
  'policyField',
  'prepareRateLimit',
  'PROBLEM_CONTENT_TYPE',
  'PROXY_WARNING_CODES',
  'ProxyWarning',
  'RateLimiterError',
  'refuseUnknown',
  'replaceNodeHeader',
  'retryAfterSeconds',
  'routeKeyOf',
  'seconds',
  'sendLimited',
  'setNodeHeader',
  'SHORTHAND',
  'typeError',
  'wholeNumber',
  'writeHeaders',
];

const names = (code: string, type: 'commonjs' | 'module') =>
  JSON.parse(execFileSync(process.execPath, ['--input-type', type, '-e', code], { cwd: new URL('..', import.meta.url), encoding: 'utf8' })) as string[];

describe('@ratekeeper/core/adapter', () => {
  it('exports exactly the listed values', () => {
    expect(Object.keys(entry).sort()).toEqual([...VALUES].sort());
  });

  it('answers the same names to require() and to import from the built package', { timeout: 30_000 }, () => {
    const required = names("process.stdout.write(JSON.stringify(Object.keys(require('@ratekeeper/core/adapter')).sort()))", 'commonjs');
    const imported = names("import('@ratekeeper/core/adapter').then((m) => process.stdout.write(JSON.stringify(Object.keys(m).sort())))", 'module');
    expect(required).toEqual([...VALUES].sort());
    expect(imported).toEqual([...VALUES].sort());
  });
});
