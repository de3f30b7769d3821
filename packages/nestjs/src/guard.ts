/**
 * RateLimitGuard decides each guarded call: it finds the request in whatever context Nest hands it
 * (HTTP on Express or Fastify, a GraphQL resolver under Apollo or Mercurius, a subscription, a
 * WebSocket gateway: invocation.ts), asks each limit that guards the handler once (limits.ts), writes
 * the rate-limit headers where there is a response, and lets the call through or throws a
 * RateLimitException (429 problem+json, 503 for a 'closed' store failure) into Nest's exception layer.
 * It only translates: keys, costs, hooks, headers and bodies are core's prepared plan's.
 *
 * One limit is counted once per call, however many times the guard is registered: globally
 * (APP_GUARD, in one module or several) and on the controller and the handler (@UseGuards) all run in
 * one invocation, which shares one arguments array; a limit already decided for it is not asked again
 * (nestjs/throttler#1025 counted it each time, halving the limit). In GraphQL each guarded resolver
 * call is an invocation: a query that calls a guarded field through 50 aliases is 50 calls.
 *
 * Several limits are asked in order; the first denial stops the rest, which are not charged. An
 * admitted call's work is followed to its end first thing (work.ts). Errors from hooks, a call
 * without an address for the default key (core's MissingIpError) and a failing limiter (core's
 * RateLimiterError, without the store's text) are thrown into the exception layer: a 500. On a
 * synchronous limiter an admitted call costs no promise.
 */
import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Decision } from '@ratekeeper/core';
import type { Decided } from '@ratekeeper/core/adapter';
import { LIMITS_KEY, SKIP_KEY } from './decorators.js';
import { RateLimitException } from './exception.js';
import { fieldsOf, sent, writeFields } from './headers.js';
import { type Invocation, invocationOf } from './invocation.js';
import type { NestLimit } from './limit.js';
import { type Named, RateLimits, type Skips } from './limits.js';
import { problemOf } from './problem.js';
import { follow } from './work.js';

/**
 * The limits already decided for an invocation, kept on its arguments array (fresh per invocation,
 * shared by its guards and interceptors) under this symbol: every guard instance reads the same list,
 * and a call costs one property on an array nobody else keys, not a WeakMap entry.
 */
const DECIDED = Symbol('ratekeeper decided limits');

@Injectable()
export class RateLimitGuard implements CanActivate {
  readonly #limits: RateLimits;
  readonly #reflector: Reflector;
  readonly #routes = new WeakMap<object, Map<object, readonly NestLimit[]>>();

  constructor(@Inject(RateLimits) limits: RateLimits, @Inject(Reflector) reflector: Reflector) {
    this.#limits = limits;
    this.#reflector = reflector;
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const limits = this.limitsOf(context.getClass(), context.getHandler());
    if (limits.length === 0) return true;
    const args = context.getArgs() as unknown[] & { [DECIDED]?: NestLimit[] };
    const done = (args[DECIDED] ??= []);
    return this.#from(invocationOf(context), limits, 0, done);
  }

  /** limitsOf is the limits guarding `handler` of `classRef`, read from the decorators once. */
  limitsOf(classRef: object, handler: object): readonly NestLimit[] {
    let byClass = this.#routes.get(handler);
    if (byClass === undefined) this.#routes.set(handler, (byClass = new Map()));
    let limits = byClass.get(classRef);
    if (limits === undefined) {
      const where = `${(classRef as { name?: string }).name ?? '?'}.${(handler as { name?: string }).name ?? '?'}`;
      const meta = <T>(key: string, target: object) => this.#reflector.get<T | undefined>(key, target as never);
      limits = this.#limits.route(
        where,
        { handler: meta<Named>(LIMITS_KEY, handler), class: meta<Named>(LIMITS_KEY, classRef) },
        { handler: meta<Skips>(SKIP_KEY, handler), class: meta<Skips>(SKIP_KEY, classRef) },
      );
      byClass.set(classRef, limits);
    }
    return limits;
  }

  /** #from asks the limits from index `i` on, synchronously until one answers with a promise. */
  #from(call: Invocation, limits: readonly NestLimit[], i: number, done: NestLimit[]): boolean | Promise<boolean> {
    for (; i < limits.length; i++) {
      const limit = limits[i] as NestLimit;
      if (done.includes(limit)) continue;
      const first = done.length === 0;
      done.push(limit);
      if (call.target !== undefined) watchProxy(limit, call, call.target.kind);
      const decided = limit.prepared.decide(call, call.ip);
      if (decided === undefined) continue;
      if (decided instanceof Promise) {
        const next = i + 1;
        return decided.then((later: Decided) => {
          if (later === null) return false; // the client left while a hook was awaited: nobody to answer
          if (later !== undefined && !answer(limit, call, later, first)) return false;
          return this.#from(call, limits, next, done);
        });
      }
      if (!answer(limit, call, decided, first)) return false;
    }
    return true;
  }
}

/** watchProxy shows an HTTP call to the limit's trust-proxy check until it has warned (core's proxy-check.ts). */
function watchProxy(limit: NestLimit, call: Invocation, kind: 'node' | 'fastify'): void {
  const proxy = limit.proxies[kind];
  if (proxy.pending) proxy.observe(call.ip, call.socket?.remoteAddress, call.req?.['headers']);
}

/**
 * answer follows an admitted call's work, leaves the decision on an HTTP request (`req.rateLimit`, as
 * the Express and Fastify adapters do), writes the fields, and throws for a call the decision blocks.
 * It answers false, touching nothing more, when someone else already answered the response.
 */
function answer(limit: NestLimit, call: Invocation, decision: Decision, first: boolean): boolean {
  const { prepared } = limit;
  if (decision.allowed) follow(limit, call, decision);
  if (call.target !== undefined) {
    if (sent(call.target)) return false;
    (call.req as { rateLimit?: Decision }).rateLimit = decision;
  }
  const problem = prepared.blocks(decision) ? problemOf(prepared.body(decision)) : undefined;
  writeFields(prepared, call, decision, first, problem);
  if (problem === undefined) return true;
  throw new RateLimitException(decision, problem, fieldsOf(prepared, decision), call.target === undefined);
}
