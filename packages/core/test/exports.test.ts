/**
 * The public API is deliberate: the exact list of names src/index.ts exports (values and types, read
 * with the TypeScript compiler), and the built package answering the same value names both to
 * `require('@ratekeeper/core')` from a CommonJS file and to `import` from an ES module, each in a
 * child Node process (this repository runs Node 20, where require() of ES modules is not available,
 * so the CommonJS build has to be real). The built entries come from `pnpm build`, which the root
 * `pnpm test` runs first. A name added or removed anywhere fails here until this list is updated, and
 * the root stays at most MAX_ROOT_VALUES names at run time, however the list grows.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const VALUES = [
  'BanLimiter',
  'CompositeLimiter',
  'ConcurrencyLimiter',
  'DEFAULT_IPV6_SUBNET',
  'DEFAULT_MAX_DELAY_MS',
  'DEFAULT_MAX_KEYS',
  'FirstRequestWindowLimiter',
  'FixedWindowLimiter',
  'GcraLimiter',
  'IpList',
  'Limiter',
  'MAX_LOG',
  'ManualClock',
  'MemoryStore',
  'MissingIpError',
  'PROBLEM_CONTENT_TYPE',
  'PROXY_WARNING_CODES',
  'RateLimiterError',
  'SlidingLogLimiter',
  'SlidingWindowLimiter',
  'TokenBucketLimiter',
  'WaitError',
  'checkIpv6Subnet',
  'clientKey',
  'ipKey',
  'limitedResponse',
  'mostRestrictive',
  'neverSatisfiable',
  'reserve',
  'retryAfterSeconds',
  'seconds',
  'step',
  'systemClock',
  'wait',
];

const TYPES = [
  'Algorithm',
  'AlgorithmName',
  'AlgorithmShorthand',
  'BanOptions',
  'Bans',
  'Bookable',
  'Booking',
  'Clock',
  'ConcurrencyOptions',
  'ConcurrencyPolicy',
  'ConcurrencyShorthand',
  'Decision',
  'DecisionOutcome',
  'DelayOptions',
  'Finished',
  'FirstRequestWindowPolicy',
  'FirstRequestWindowShorthand',
  'FixedWindowPolicy',
  'FixedWindowShorthand',
  'GcraOptions',
  'GcraShorthand',
  'HeaderSetter',
  'HeaderStyle',
  'LimitedResponse',
  'LimiterChoice',
  'LimiterOptions',
  'LimiterSource',
  'MemoryStoreOptions',
  'Mode',
  'Policy',
  'ProxyFinding',
  'ProxySetting',
  'RateLimitBaseOptions',
  'RateLimitOptions',
  'RateLimitPlans',
  'RateLimiter',
  'ReadyLimiter',
  'Reservation',
  'ReserveOptions',
  'Result',
  'ShorthandCommon',
  'SlidingLogPolicy',
  'SlidingLogShorthand',
  'SlidingWindowPolicy',
  'SlidingWindowShorthand',
  'Step',
  'StepOutput',
  'Store',
  'StoreBinding',
  'Telemetry',
  'TokenBucketOptions',
  'TokenBucketPolicy',
  'TokenBucketShorthand',
  'Usage',
  'UsageOutput',
  'WaitOptions',
  'WindowAlgorithm',
  'WindowOptions',
  'WindowPolicy',
  'WindowSizes',
];

const index = fileURLToPath(new URL('../src/index.ts', import.meta.url));

/** declaredExports lists src/index.ts's exports as [values, types], resolving re-exports. */
function declaredExports(): [string[], string[]] {
  const options = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noLib: true, types: [] };
  const program = ts.createProgram([index], options);
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(index) as ts.SourceFile) as ts.Symbol;
  const values: string[] = [];
  const types: string[] = [];
  for (const symbol of checker.getExportsOfModule(module)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    (target.flags & ts.SymbolFlags.Value ? values : types).push(symbol.name);
  }
  return [values.sort(), types.sort()];
}

interface Loaded {
  node: string;
  resolved: string;
  names: string[];
  decisions: boolean[];
}

function load(fixture: string): Loaded {
  const file = fileURLToPath(new URL(`./fixtures/${fixture}`, import.meta.url));
  return JSON.parse(execFileSync(process.execPath, [file], { encoding: 'utf8', timeout: 20_000 })) as Loaded;
}

/**
 * The root is the application's API; what adapters and stores need beyond it lives in
 * `@ratekeeper/core/adapter` and `@ratekeeper/core/store`. A root past this many runtime names has
 * taken in someone's internals: move them to the entry they serve instead of raising the bound.
 */
const MAX_ROOT_VALUES = 40;

describe('public API', () => {
  it(`the root exports at most ${MAX_ROOT_VALUES} names at run time`, async () => {
    const names = Object.keys(await import('../src/index.js'));
    expect(names.length, `the root exports ${names.length} runtime names: ${names.join(', ')}`).toBeLessThanOrEqual(MAX_ROOT_VALUES);
  });

  it('src/index.ts exports exactly the listed values and types', () => {
    expect(declaredExports()).toEqual([VALUES, TYPES]);
  });

  it('the source entry exports exactly the listed values at run time', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual(VALUES);
  });

  it('require() from a CommonJS file loads the built CommonJS entry with the same names', () => {
    const loaded = load('require-core.cjs');
    expect(loaded.resolved.replaceAll('\\', '/')).toMatch(/packages\/core\/dist\/cjs\/index\.js$/);
    expect(loaded.node).toBe(process.version);
    expect(loaded.decisions).toEqual([true, false]);
    expect(loaded.names, 'dist/cjs is stale or incomplete: run `pnpm --filter @ratekeeper/core build`').toEqual(VALUES);
  });

  it('import from an ES module loads the built ESM entry with the same names', () => {
    const loaded = load('import-core.mjs');
    expect(loaded.resolved).toMatch(/packages\/core\/dist\/esm\/index\.js$/);
    expect(loaded.decisions).toEqual([true, false]);
    expect(loaded.names, 'dist/esm is stale or incomplete: run `pnpm --filter @ratekeeper/core build`').toEqual(VALUES);
  });
});
