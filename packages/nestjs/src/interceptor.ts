/**
 * RateLimitInterceptor ends the work of a call admitted without a Node response (a WebSocket gateway's
 * message, a microservice's): the lease it holds goes back, once, when the handler's observable
 * completes, errors or is unsubscribed, reported as status 200 or the error's status (500 for an
 * error without one). RateLimitModule registers it globally; every other call passes through it
 * untouched (one WeakMap lookup). See work.ts for HTTP, where the response is watched instead.
 */
import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { type Observable, finalize, tap } from 'rxjs';
import { takePending } from './work.js';

@Injectable()
export class RateLimitInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const settles = takePending(context.getArgs());
    if (settles === undefined) return next.handle();
    let status = 200;
    return next.handle().pipe(
      tap({ error: (error: unknown) => void (status = statusOf(error)) }),
      finalize(() => {
        for (const settle of settles) settle({ status, aborted: false, contentLength: undefined });
      }),
    );
  }
}

function statusOf(error: unknown): number {
  const status = (error as { getStatus?: () => unknown } | null)?.getStatus?.();
  return typeof status === 'number' ? status : 500;
}
