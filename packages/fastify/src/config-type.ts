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

/**
 * RouteRateLimitConfig<this, RouteRateLimitOptions> is `config.rateLimit` in FastifyContextConfig (see
 * the file comment). The options type comes in as a parameter, so this file imports nothing of ours.
 */
export type RouteRateLimitConfig<This, Options> = [UnknownNames<Written<This>, Options>] extends [never] ? Options | false : Options & Refuse<UnknownNames<Written<This>, Options>>;
