/**
 * RateLimits holds the module's limits, prepared at startup (an invalid option fails the application's
 * start, naming the limit and the option), and answers which limits guard a handler: the module's,
 * less those `@SkipRateLimit` skips there, each replaced by the handler's or its class's `@RateLimit`
 * of the same name, plus the names a decorator adds. A handler's answer is computed once and kept.
 *
 * A decorator's limit inherits from the module's limit of its name, as a Fastify route's config does
 * (packages/fastify/src/route-limit.ts): every behaviour option it does not give (key, cost, skip,
 * headers, hooks …); and, for the limiter, the module's own when the decorator names no limiter
 * option (so `@RateLimit({ cost: () => 5 })` charges the same budget more), else a limiter of its own,
 * starting from the module's shorthand (algorithm, sizes, store, clock; never the policy name) when
 * it keeps the algorithm and gives only sizes the module's limit gives, from its store and clock
 * alone otherwise (`{ limit: 2, windowMs }` over a module's token bucket is a first-request window). One decorator is one
 * limit: the options object of a class's decorator is one budget for all its handlers.
 */
import { LIMITER_OPTIONS, SHORTHAND, describeValue } from '@ratekeeper/core/adapter';
import { DEFAULT_LIMIT } from './decorators.js';
import { type NestLimit, choosesLimiter, prepareLimit } from './limit.js';
import type { RateLimitModuleOptions } from './options.js';
import { translateThrottler } from './throttler-names.js';

const OWNER = 'RateLimitModule';
const CARRIED = SHORTHAND.filter((k) => k !== 'name');
/** The algorithms' size options (capacity, limit, windowMs …). */
const SIZES = SHORTHAND.filter((k) => k !== 'algorithm' && k !== 'name' && k !== 'store' && k !== 'clock');

/** Named limit options, as the decorators store them. */
export type Named = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/** RateLimits: the module's limits and the limits of each handler (see above). */
export class RateLimits {
  /** The module's limits, in the order configured. */
  readonly limits: readonly NestLimit[];
  readonly #byName: ReadonlyMap<string, NestLimit>;
  /** A decorator's options object → its limit, per name (one object, one budget). */
  readonly #own = new WeakMap<object, Map<string, NestLimit>>();
  /** The shared options of `{ limits, … }`, which a limit only a decorator names starts from. */
  readonly #shared: Readonly<Record<string, unknown>>;

  constructor(options: RateLimitModuleOptions | undefined) {
    const { entries, shared } = entriesOf(options);
    this.#shared = shared;
    const limits: NestLimit[] = [];
    for (const [i, entry] of entries.entries()) {
      const name = nameOf(entry, entries.length > 1 || Array.isArray(options) || 'limits' in (options ?? {}) ? `limits[${i}]` : undefined);
      const owner = entries.length === 1 && !Array.isArray(options) && !('limits' in (options ?? {})) ? OWNER : `${OWNER}: limits[${i}] (${describeValue(name)})`;
      if (limits.some((l) => l.name === name)) throw new TypeError(`${owner}: two limits are named ${describeValue(name)}; name each one`);
      const { options: source, banMs } = translateThrottler(owner, { ...inheritedShared(shared, entry), ...entry });
      limits.push(prepareLimit(owner, name, source, banMs));
    }
    this.limits = limits;
    this.#byName = new Map(limits.map((l) => [l.name, l]));
  }

  /**
   * route lists the limits that guard a handler, given the decorators' metadata on the handler and on
   * its class; `where` names it in errors ("UsersController.find").
   */
  route(where: string, limits: { handler: Named | undefined; class: Named | undefined }, skips: { handler: Skips | undefined; class: Skips | undefined }): readonly NestLimit[] {
    const out: NestLimit[] = [];
    const names = [...this.#byName.keys()];
    // `@RateLimit(options)` names 'default': a module's only limit, whatever it is called.
    const alias = this.limits.length === 1 && !this.#byName.has(DEFAULT_LIMIT) ? (this.limits[0] as NestLimit).name : DEFAULT_LIMIT;
    const own = (named: Named | undefined, name: string) => named?.[name] ?? (name === alias ? named?.[DEFAULT_LIMIT] : undefined);
    for (const name of [...Object.keys(limits.class ?? {}), ...Object.keys(limits.handler ?? {})]) {
      const real = name === DEFAULT_LIMIT ? alias : name;
      if (!names.includes(real)) names.push(real);
    }
    for (const name of names) {
      if (skipped(name === alias ? [name, DEFAULT_LIMIT] : [name], skips)) continue;
      const given = own(limits.handler, name) ?? own(limits.class, name);
      out.push(given === undefined ? (this.#byName.get(name) as NestLimit) : this.#decorated(where, name, given));
    }
    return out;
  }

  /** #decorated prepares (once per options object) the limit a decorator gives `name`. */
  #decorated(where: string, name: string, own: Readonly<Record<string, unknown>>): NestLimit {
    let byName = this.#own.get(own);
    if (byName === undefined) this.#own.set(own, (byName = new Map()));
    let limit = byName.get(name);
    if (limit === undefined) {
      const owner = `@RateLimit on ${where}${name === DEFAULT_LIMIT ? '' : ` (${describeValue(name)})`}`;
      const base = this.#byName.get(name);
      try {
        const { options, banMs } = translateThrottler(owner, own);
        const merged = base === undefined ? { ...inheritedShared(this.#shared, own), ...options } : { ...inherited(base, options), ...defined(options) };
        limit = prepareLimit(owner, name, merged, banMs ?? (choosesLimiter(options) ? base?.banMs : undefined));
      } catch (error) {
        throw withOwner(owner, error);
      }
      byName.set(name, limit);
    }
    return limit;
  }
}

/** withOwner prefixes a limiter constructor's message with the decorated handler, keeping the error's class. */
function withOwner(owner: string, error: unknown): unknown {
  if (!(error instanceof Error) || error.message.startsWith(owner)) return error;
  const Kind = error instanceof RangeError ? RangeError : TypeError;
  return new Kind(`${owner}: ${error.message}`, { cause: error });
}

/** Skips: `@SkipRateLimit`'s metadata, by limit name ('*': every limit). */
export type Skips = Readonly<Record<string, boolean>>;

/** skipped reads the handler's word, then its class's, by name (or its alias 'default'), then for every name. */
function skipped(names: readonly string[], skips: { handler: Skips | undefined; class: Skips | undefined }): boolean {
  for (const level of [skips.handler, skips.class]) {
    if (level === undefined) continue;
    for (const name of names) if (level[name] !== undefined) return level[name] as boolean;
    if (level['*'] !== undefined) return level['*'];
  }
  return false;
}

/** inherited is what a decorator's limit takes from the module's limit of its name (see above). */
function inherited(base: NestLimit, own: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const from = base.source;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(from)) if (!(LIMITER_OPTIONS as readonly string[]).includes(k)) out[k] = v;
  if (!choosesLimiter(own)) out['limiter'] = base.prepared.limiter;
  else if (own['limiter'] === undefined && own['plans'] === undefined && from['limiter'] === undefined && from['plans'] === undefined) {
    // The same algorithm: none named other than the module's, and no size the module's limit does not
    // give (`{ limit, windowMs }` over a token bucket is a first-request window of its own, as core reads it).
    const same = (own['algorithm'] === undefined || own['algorithm'] === from['algorithm']) && SIZES.every((k) => own[k] === undefined || from[k] !== undefined);
    for (const k of same ? CARRIED : (['store', 'clock'] as const)) if (from[k] !== undefined && own[k] === undefined) out[k] = from[k];
  }
  return out;
}

/** inheritedShared: a limit of `{ limits, … }` takes the shared options it does not give itself (store and clock only for a shorthand). */
function inheritedShared(shared: Readonly<Record<string, unknown>>, entry: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const ready = entry['limiter'] !== undefined || entry['plans'] !== undefined;
  for (const [k, v] of Object.entries(shared)) if (!(ready && (k === 'store' || k === 'clock'))) out[k] = v;
  return out;
}

function defined(options: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}

/** entriesOf reads the module's options as limit entries and the options they share. */
function entriesOf(options: RateLimitModuleOptions | undefined): { entries: readonly Record<string, unknown>[]; shared: Record<string, unknown> } {
  if (options === undefined) return { entries: [{}], shared: {} };
  if (Array.isArray(options)) {
    if (options.length === 0) throw new TypeError(`${OWNER}: the array of limits is empty; give at least one, or no options for the default limit`);
    return { entries: options.map((o, i) => entryObject(o, `${OWNER}: limits[${i}]`)), shared: {} };
  }
  const whole = entryObject(options, OWNER);
  if (!('limits' in whole)) return { entries: [whole], shared: {} };
  const { limits, ...shared } = whole;
  if (!Array.isArray(limits) || limits.length === 0) throw new TypeError(`${OWNER}: limits must be a non-empty array of limit options, got ${describeValue(limits)}`);
  return { entries: limits.map((o, i) => entryObject(o, `${OWNER}: limits[${i}]`)), shared };
}

function entryObject(value: unknown, owner: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TypeError(`${owner}: options must be an object, got ${describeValue(value)}`);
  return value as Record<string, unknown>;
}

/** nameOf is an entry's limit name ('default' when it gives none). */
function nameOf(entry: Readonly<Record<string, unknown>>, where: string | undefined): string {
  const name = entry['name'] ?? DEFAULT_LIMIT;
  if (typeof name !== 'string' || name === '')
    throw new TypeError(`${OWNER}${where === undefined ? '' : `: ${where}`}: name must be a non-empty string, got ${describeValue(name)}`);
  return name;
}
