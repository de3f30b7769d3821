/**
 * RouteRateLimitConfig is the type of a route's `config.rateLimit` (the FastifyContextConfig
 * augmentation in options.ts): RouteRateLimitOptions or false, and a compile error naming each
 * property that is no option, in the config object as written in `app.get(url, { config }, …)` and
 * `app.route({ config, … })`, where a plain `rateLimit?: RouteRateLimitOptions | false` lets it through.
 *
 * Why it gets through: Fastify's route methods are generic in ContextConfig (default unknown) and type
 * the option `config?: FastifyContextConfig & ContextConfig` (fastify/types/route.d.ts), so TypeScript
 * infers ContextConfig from the object written: `{ rateLimit: { limt: number } }`. Every property
 * written is then a property of the target type, so no excess-property check fires, and `rateLimit`
 * is checked against `RouteRateLimitOptions & { limt: number }`, which is inhabited (every option is
 * optional). A refused option (`?: never`: another algorithm's size, shorthand beside `limiter`,
 * `global`) still fails, its intersection with the written type being never; an unknown name meets
 * nothing. (With explicit generics, `app.get<G>(…)`, ContextConfig keeps its default and ordinary
 * excess-property checking applies.)
 *
 * What catches it: the one view FastifyContextConfig has of what was written is its polymorphic `this`,
 * which in that intersection is `FastifyContextConfig & ContextConfig`. Written<This> takes
 * ContextConfig back out (inference drops the identical FastifyContextConfig member). When its
 * `rateLimit` has properties no RouteRateLimitOptions member declares, the type is the options object
 * with each of them required to be also an object with a `never` property named "'limt' is not an
 * option of config.rateLimit", which nothing written is: tsc reports it at the property, by name
 * (without `| false`, which would make tsc elaborate on the wrong union member instead). With nothing
 * to refuse (a valid route, a typed variable, explicit generics, a reader of
 * `request.routeOptions.config`) the type is exactly `RouteRateLimitOptions | false`.
 *
 * Types only: nothing here exists at run time, where prepareRoute refuses an unknown option anyway.
 */
import type { FastifyContextConfig } from 'fastify';

/** Every property name some member of Options declares (refused `?: never` ones included). */
type OptionName<Options> = Options extends infer Member ? (Member extends unknown ? keyof Member : never) : never;

/** Written is the ContextConfig Fastify inferred from the route's config object (unknown when none). */
type Written<This> = This extends FastifyContextConfig & infer Config ? Config : unknown;

/** The names written in `config.rateLimit` that are no option (symbols are not options at run time either). */
type UnknownNames<Config, Options> = Config extends { readonly rateLimit?: infer Given }
  ? Given extends object
    ? Exclude<keyof Given, OptionName<Options> | symbol>
    : never
  : never;

/** Refuse makes each named property unsatisfiable, the name in the message. */
type Refuse<Name extends PropertyKey> = { readonly [P in Name]: { readonly [M in `'${P & (string | number)}' is not an option of config.rateLimit`]: never } };

/** WrittenLimit is the `rateLimit` written in the route's config (undefined when none). */
type WrittenLimit<Config> = Config extends { readonly rateLimit?: infer Given } ? Given : undefined;

/** IsUnion tells a union type (true) from a single object type. */
type IsUnion<T, U = T> = (T extends unknown ? ([U] extends [T] ? false : true) : never) extends false ? false : true;

/** Has<Given, K> is 1 when the written object gives K, else 0. */
type Has<Given, K extends string> = Given extends { readonly [P in K]: unknown } ? 1 : 0;

/**
 * Unnamed is the algorithm a written object without `algorithm` means, as core's run-time refusal
 * reads it: a window's when it gives more of limit and windowMs than of capacity and refillPerSecond,
 * else the token bucket's (the default).
 */
type Unnamed<Given> = [Has<Given, 'limit'>, Has<Given, 'windowMs'>, Has<Given, 'capacity'>, Has<Given, 'refillPerSecond'>] extends
  | [1, 1, 0 | 1, 0]
  | [1, 1, 0, 0 | 1]
  | [1, 0, 0, 0]
  | [0, 1, 0, 0]
  ? 'fixed-window'
  : 'token-bucket';

/** The member of Options a written object means: the one its `algorithm` names, else the one Unnamed picks; never beside `limiter` or `plans`. */
type Meant<Given, Options> = Given extends { readonly limiter: unknown } | { readonly plans: unknown }
  ? never
  : Options extends { readonly algorithm?: infer Own }
    ? [Given extends { readonly algorithm: infer A extends string } ? A : Unnamed<Given>] extends [Own & string]
      ? Options
      : never
    : never;

/** The names written with a value the meant member refuses (its type there is core's sentence, which nothing written is); only required properties, as an object literal's are. */
type Misplaced<Given, Member> = {
  [K in keyof Given & keyof Member]-?: {} extends Pick<Given, K>
    ? never // an optional property: a typed variable's, not a value written
    : NonNullable<Member[K]> extends string
      ? [NonNullable<Given[K]>] extends [NonNullable<Member[K]>]
        ? never
        : K
      : never;
}[keyof Given & keyof Member];

/** Blamed is the meant member with each misplaced name required to be an object whose one never property is core's sentence. */
type Blamed<Member, Names extends keyof Member> = Omit<Member, Names> & { readonly [K in Names]: { readonly [M in NonNullable<Member[K]> & string]: never } };

/** Mistaken is the written object's type of refusal, when it names an algorithm and gives a size that algorithm does not take. */
type Mistaken<Given, Options> =
  IsUnion<Given> extends true
    ? never // a value of a union type (a typed variable, a conditional): checked as declared
    : [Meant<Given, Options>] extends [never]
      ? never
      : [Misplaced<Given, Meant<Given, Options>>] extends [never]
        ? never
        : Blamed<Meant<Given, Options>, Misplaced<Given, Meant<Given, Options>> & keyof Meant<Given, Options>>;

/**
 * RouteRateLimitConfig<this, RouteRateLimitOptions> is `config.rateLimit` in FastifyContextConfig (see
 * the file comment). An object written inline that gives a size its algorithm does not take
 * (`{ algorithm: 'token-bucket', limit: 5 }`, or `{ windowMs, limit, capacity }` whose algorithm is
 * the window's) is checked against that algorithm's options with the size blamed by core's sentence
 * ("limit is a window or concurrency option, not a token-bucket one"), rather than against `false & {…}`.
 */
export type RouteRateLimitConfig<This, Options> = [UnknownNames<Written<This>, Options>] extends [never]
  ? [Mistaken<WrittenLimit<Written<This>>, Options>] extends [never]
    ? Options | false
    : Mistaken<WrittenLimit<Written<This>>, Options>
  : Options & Refuse<UnknownNames<Written<This>, Options>>;
