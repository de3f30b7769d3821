/**
 * The option registry (src/http/options/options.ts) is what the shorthand and the plan obey: every name it
 * lists is known to the plan (refused for its value, if at all, never as unknown), a name it does not
 * list is refused as unknown; each algorithm built with no sizes has exactly the registry's defaults,
 * and takes exactly the registry's sizes (any other size is refused naming the algorithm).
 */
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { type Limiter, type Policy } from '../src/index.js';
import { chooseLimiter, prepareRateLimit } from '../src/adapter.js';
import { ALGORITHMS, ANSWER_OPTIONS, LIMITER_OPTIONS, OPTIONS, REQUEST_OPTIONS, SIZES, SIZE_OPTIONS, sizesOf } from '../src/http/options/options.js';
import { CHECKS, DEFAULTS, checkOptions } from '../src/http/options/checks.js';

/** hoverText reads the JSDoc users see on each member of RateLimitBaseOptions (src/http/prepare.ts). */
function hoverText(): Map<string, string> {
  const file = fileURLToPath(new URL('../src/http/prepare.ts', import.meta.url));
  const program = ts.createProgram([file], { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file) as ts.SourceFile;
  const options = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'RateLimitBaseOptions');
  const type = checker.getTypeAtLocation(options as ts.InterfaceDeclaration);
  return new Map(checker.getPropertiesOfType(type).map((p) => [p.name, ts.displayPartsToString(p.getDocumentationComment(checker))]));
}

describe('the option registry', () => {
  it('every option it lists is known to the plan; any other name is refused as unknown', () => {
    for (const name of OPTIONS) {
      let message = '';
      try {
        prepareRateLimit('rateLimit', { [name]: Symbol('odd value') } as never);
      } catch (error) {
        message = String(error);
      }
      expect(message, name).not.toMatch(/unknown option/);
    }
    for (const name of ['limitt', 'windowMS', 'algorithms', 'keys']) {
      expect(() => prepareRateLimit('rateLimit', { [name]: 1 } as never), name).toThrow(/unknown option/);
    }
  });

  it('names each option once: exactly the options rateLimit documents, the limiter options among them', () => {
    // Pinned: an option dropped from (or slipped into) the registry fails here, not only in the plan.
    expect([...OPTIONS].sort()).toEqual(
      [
        ...['limiter', 'algorithm', 'capacity', 'refillPerSecond', 'limit', 'windowMs', 'emissionIntervalMs', 'burst', 'retryAfterMs', 'name', 'store', 'clock', 'plans', 'plan'],
        ...['key', 'cost', 'skip', 'ipv6Subnet', 'missingIp', 'allowList', 'denyList'],
        ...['headers', 'shadow', 'onDecision', 'telemetry', 'proxyWarning', 'countOutcome', 'settle', 'abandonedMs', 'mode', 'maxDelayMs'],
      ].sort(),
    );
    expect(new Set(OPTIONS).size).toBe(OPTIONS.length);
    for (const name of LIMITER_OPTIONS) expect(OPTIONS).toContain(name);
  });

  for (const algorithm of ALGORITHMS) {
    it(`${algorithm}: built with its registry defaults, taking exactly its registry sizes`, () => {
      const limiter = chooseLimiter('rateLimit', { algorithm } as never) as Limiter<Policy, 'sync'>;
      const policy = limiter.policy as unknown as Record<string, unknown>;
      // GCRA is the token bucket in its own parameters: its policy holds the bucket's.
      const want: Record<string, number> = algorithm === 'gcra' ? { capacity: SIZES.gcra.burst, refillPerSecond: 1000 / SIZES.gcra.emissionIntervalMs } : SIZES[algorithm];
      for (const [size, value] of Object.entries(want)) expect([size, policy[size]]).toEqual([size, value]);
      for (const size of SIZE_OPTIONS) {
        const build = () => chooseLimiter('rateLimit', { algorithm, [size]: 2 } as never);
        if (sizesOf(algorithm).includes(size)) expect(build, size).not.toThrow();
        else expect(build, size).toThrow(`${size} does not apply to algorithm '${algorithm}'`);
      }
    });
  }

  it('has a check for every request and answer option, and each absent option resolves to its default', () => {
    expect(Object.keys(CHECKS).sort()).toEqual([...REQUEST_OPTIONS, ...ANSWER_OPTIONS].sort());
    const resolved = checkOptions('rateLimit', {}) as unknown as Record<string, unknown>;
    for (const name of Object.keys(CHECKS))
      expect([name, resolved[name]]).toEqual([name, name in DEFAULTS && name !== 'mode' && name !== 'maxDelayMs' ? DEFAULTS[name as keyof typeof DEFAULTS] : undefined]);
  });

  it('refuses null like any wrong value, naming the option (only an absent option takes the default)', () => {
    for (const name of Object.keys(CHECKS)) {
      if (name === 'mode' || name === 'maxDelayMs') continue; // checked with the limiters (delay.ts)
      expect(() => checkOptions('rateLimit', { [name]: null }), name).toThrow(new RegExp(`^rateLimit: ${name} `));
    }
  });

  // A TypeScript program over the whole source: 3 to 6 s on a busy machine, beyond vitest's default 5 s.
  it('documents every request and answer option on hover, each default named in its JSDoc', () => {
    const hover = hoverText();
    for (const name of [...REQUEST_OPTIONS, ...ANSWER_OPTIONS]) {
      const text = hover.get(name) ?? '';
      expect([name, text.length > 20]).toEqual([name, true]);
      if (name in DEFAULTS) {
        const value = DEFAULTS[name as keyof typeof DEFAULTS];
        expect([name, /default/i.test(text) && text.includes(typeof value === 'string' ? `'${value}'` : String(value))]).toEqual([name, true]);
      }
    }
  }, 30_000);
});
