/**
 * @nestjs/throttler's guards as its README documents them for GraphQL, for the regression tests to
 * reproduce its open issues on the same applications the ratekeeper guard passes on.
 */
import { type ExecutionContext, Injectable } from '@nestjs/common';
import { GqlExecutionContext } from '@nestjs/graphql';
import { ThrottlerGuard } from '@nestjs/throttler';

/** The README's GraphQL guard: the request and response from the GraphQL context. */
@Injectable()
export class GqlThrottlerGuard extends ThrottlerGuard {
  override getRequestResponse(context: ExecutionContext) {
    const ctx = GqlExecutionContext.create(context).getContext();
    return { req: ctx.req, res: ctx.res };
  }
}
