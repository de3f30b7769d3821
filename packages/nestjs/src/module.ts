/**
 * RateLimitModule configures the limits once for the application (a global module, as
 * @nestjs/throttler's): `forRoot(options)` with the options themselves, `forRootAsync` with a factory
 * that Nest's injector feeds (a RedisStore or PostgresStore from the application's own providers, a
 * ConfigService …). The limits are prepared when the module is created, so an invalid option fails the
 * application's start, and so does an invalid `@RateLimit` on any controller, resolver or gateway:
 * every decorated handler is prepared when the application bootstraps.
 *
 * The guard is bound as any Nest guard: globally (`{ provide: APP_GUARD, useClass: RateLimitGuard }`)
 * or per controller, resolver, gateway or handler (`@UseGuards(RateLimitGuard)`); both at once still
 * count each call once. The module also registers RateLimitInterceptor globally, which ends the
 * concurrency leases of calls that have no HTTP response (work.ts).
 */
import { type DynamicModule, Global, Inject, Module, type ModuleMetadata, type OnApplicationBootstrap, type Provider } from '@nestjs/common';
import { APP_INTERCEPTOR, DiscoveryModule, DiscoveryService, MetadataScanner } from '@nestjs/core';
import { describeValue } from '@ratekeeper/core/adapter';
import { RateLimitGuard } from './guard.js';
import { RateLimitInterceptor } from './interceptor.js';
import { RateLimits } from './limits.js';
import type { RateLimitModuleOptions } from './options.js';

/** RATE_LIMIT_OPTIONS is the injection token of the module's options. */
export const RATE_LIMIT_OPTIONS = Symbol('RATE_LIMIT_OPTIONS');

/** RateLimitModuleAsyncOptions: options made by a factory, with the providers it needs injected. */
export interface RateLimitModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  // biome-ignore lint/suspicious/noExplicitAny: the factory's parameters are whatever `inject` lists, as Nest types every factory provider
  readonly useFactory: (...args: any[]) => RateLimitModuleOptions | Promise<RateLimitModuleOptions>;
  readonly inject?: NonNullable<Extract<Provider, { useFactory: unknown }>['inject']>;
}

@Global()
@Module({ imports: [DiscoveryModule] })
export class RateLimitModule implements OnApplicationBootstrap {
  readonly #discovery: DiscoveryService;
  readonly #scanner: MetadataScanner;
  readonly #guard: RateLimitGuard;

  constructor(@Inject(DiscoveryService) discovery: DiscoveryService, @Inject(MetadataScanner) scanner: MetadataScanner, @Inject(RateLimitGuard) guard: RateLimitGuard) {
    this.#discovery = discovery;
    this.#scanner = scanner;
    this.#guard = guard;
  }

  /** forRoot configures the limits from `options` (see options.ts). */
  static forRoot(options?: RateLimitModuleOptions): DynamicModule {
    return dynamic([{ provide: RATE_LIMIT_OPTIONS, useValue: options }], []);
  }

  /** forRootAsync configures the limits from what `useFactory` returns, its `inject` resolved by Nest. */
  static forRootAsync(options: RateLimitModuleAsyncOptions): DynamicModule {
    if (typeof options?.useFactory !== 'function') throw new TypeError(`RateLimitModule.forRootAsync: useFactory must be a function, got ${describeValue(options?.useFactory)}`);
    return dynamic([{ provide: RATE_LIMIT_OPTIONS, useFactory: options.useFactory, inject: [...(options.inject ?? [])] }], options.imports ?? []);
  }

  /** onApplicationBootstrap prepares the limits of every decorated handler, so a bad `@RateLimit` fails the start. */
  onApplicationBootstrap(): void {
    for (const wrapper of [...this.#discovery.getControllers(), ...this.#discovery.getProviders()]) {
      const instance = wrapper.instance as object | undefined;
      if (instance === undefined || instance === null || typeof instance !== 'object' || wrapper.metatype === undefined || wrapper.metatype === null) continue;
      const proto = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of this.#scanner.getAllMethodNames(proto)) {
        const handler = proto[name];
        if (typeof handler === 'function') this.#guard.limitsOf(wrapper.metatype as object, handler);
      }
    }
  }
}

function dynamic(options: Provider[], imports: NonNullable<ModuleMetadata['imports']>): DynamicModule {
  return {
    module: RateLimitModule,
    imports,
    providers: [
      ...options,
      { provide: RateLimits, useFactory: (o: RateLimitModuleOptions | undefined) => new RateLimits(o), inject: [RATE_LIMIT_OPTIONS] },
      RateLimitGuard,
      { provide: APP_INTERCEPTOR, useClass: RateLimitInterceptor },
    ],
    exports: [RateLimits, RateLimitGuard],
  };
}
