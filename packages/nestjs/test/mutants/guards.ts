/**
 * Mutants: RateLimitGuard with one defect each, as subclasses that keep everything else of the real
 * guard. Each is caught by the contract check its name points at (faults, abort, leases, work,
 * per-caller); each suite asserts that it is (test/faults.test.ts, test/abort.test.ts, …).
 */
import type { ServerResponse } from 'node:http';
import { type ExecutionContext, HttpException, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { closeOnFinish, endsAtDisconnect } from '@ratekeeper/adapter-contract';
import { type ProblemBody, RateLimitException, RateLimitGuard, type RateLimitModuleOptions } from '../../src/index.js';
import { RateLimits } from '../../src/limits.js';
import { RATE_LIMIT_OPTIONS } from '../../src/module.js';

const rawOf = (context: ExecutionContext): ServerResponse => {
  const res = context.switchToHttp().getResponse();
  return (res.raw ?? res) as ServerResponse;
};

/** rethrowing runs the real canActivate and hands any throw, sync or async, to `map`. */
function rethrowing(result: () => boolean | Promise<boolean>, map: (error: unknown) => unknown): boolean | Promise<boolean> {
  try {
    const out = result();
    return out instanceof Promise ? out.catch((error: unknown) => Promise.reject(map(error))) : out;
  } catch (error) {
    throw map(error);
  }
}

/** Answers a 'closed' store failure (503) with 429. */
@Injectable()
export class ClosedAs429 extends RateLimitGuard {
  override canActivate(context: ExecutionContext) {
    return rethrowing(
      () => super.canActivate(context),
      (e) => (e instanceof RateLimitException && e.getStatus() === 503 ? new RateLimitException(e.decision, { ...(e.getResponse() as ProblemBody), status: 429 }, e.headers) : e),
    );
  }
}

/** Lets the limiter's error text reach the client (a 500 whose message is the store's). */
@Injectable()
export class LeaksStoreError extends RateLimitGuard {
  override canActivate(context: ExecutionContext) {
    return rethrowing(
      () => super.canActivate(context),
      (e) => (e instanceof Error && e.cause instanceof Error ? new HttpException(e.cause.message, 500) : e),
    );
  }
}

/** Reports a client gone during the decision as an error. */
@Injectable()
export class ErrorsOnAbort extends RateLimitGuard {
  override canActivate(context: ExecutionContext) {
    const out = super.canActivate(context);
    const gone = (): boolean => {
      if (rawOf(context).socket?.destroyed === true) throw new Error('client closed the connection');
      return true;
    };
    return out instanceof Promise ? out.then((ok) => ok && gone()) : out && gone();
  }
}

/** Goes on after someone else answered: while it decides, the response's sent flags read false to it. */
@Injectable()
export class IgnoresHeadersSent extends RateLimitGuard {
  override canActivate(context: ExecutionContext) {
    const raw = rawOf(context);
    const res = context.switchToHttp().getResponse();
    const hidden = [raw.headersSent ? hide(raw, 'headersSent') : undefined, res.sent === true ? hide(res, 'sent') : undefined];
    const restore = () => {
      for (const undo of hidden) undo?.();
    };
    try {
      const out = super.canActivate(context);
      if (out instanceof Promise) return out.finally(restore);
      restore();
      return out;
    } catch (error) {
      restore();
      throw error;
    }
  }
}

function hide(target: object, flag: string): () => void {
  Object.defineProperty(target, flag, { value: false, configurable: true });
  return () => void delete (target as Record<string, unknown>)[flag];
}

/** Releases a lease when the response finishes, forgetting the aborted ones ('close' read as 'finish'). */
@Injectable()
export class ForgetsAborts extends RateLimitGuard {
  override canActivate(context: ExecutionContext) {
    const undo = closeOnFinish(rawOf(context));
    try {
      return super.canActivate(context);
    } finally {
      undo();
    }
  }
}

/** Ends a lease when the client disconnects (the response reads as answered then). */
@Injectable()
export class ReleasesAtDisconnect extends RateLimitGuard {
  override canActivate(context: ExecutionContext) {
    endsAtDisconnect(rawOf(context));
    return super.canActivate(context);
  }
}

/** Uses an async key's promise as the key ("[object Promise]"): every caller in one bucket. */
@Injectable()
export class UnawaitedKey extends RateLimitGuard {
  constructor(@Inject(RATE_LIMIT_OPTIONS) options: RateLimitModuleOptions & { key?: (...args: never[]) => unknown }, @Inject(Reflector) reflector: Reflector) {
    const key = options.key;
    super(new RateLimits(key === undefined ? options : ({ ...options, key: (...args: never[]) => String(key(...args)) } as RateLimitModuleOptions)), reflector);
  }
}
