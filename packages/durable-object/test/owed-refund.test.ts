/**
 * A refund the object could not take is owed to it, not lost: the kit keeps it and sends it again when
 * an object answers after a failure that said it could not be reached (the runner's onRecover), so the
 * unit is given back where it was charged. A refund failed by an error reply (the object answered) is
 * owed too, but sent again only after such an outage: a broken object is not retried on every answer.
 */
import { FixedWindowLimiter, ManualClock } from '@ratekeeper/core';
import { describe, expect, it } from 'vitest';
import { DurableObjectStore } from '../src/durable-object-store.js';
import type { Batch, LimiterNamespace } from '../src/index.js';
import { rowsNamespace } from './support/rows-namespace.js';

const T0 = 1_700_000_000_000;

/** flaky is a namespace of KeyRows objects whose calls fail with `failing()` while it answers an error. */
function flaky(failing: () => Error | undefined): LimiterNamespace {
  const objects = rowsNamespace();
  const get = (name: string) => ({ run: (batch: Batch) => (failing() === undefined ? objects.get(name as never).run(batch) : Promise.reject(failing())) });
  return { idFromName: (name) => name, get: get as LimiterNamespace['get'] };
}

async function spendRefundRecover(error: Error) {
  let failing: Error | undefined;
  const store = new DurableObjectStore({ namespace: flaky(() => failing), time: 'client', failureWarning: false });
  const limiter = new FixedWindowLimiter({ limit: 2, windowMs: 3_600_000, name: 'w', store, clock: new ManualClock(T0) });
  await limiter.consume('k');
  await limiter.consume('k');
  failing = error;
  await limiter.refund('k', 1);
  failing = undefined;
  const before = await limiter.peek('k');
  return { before: before.allowed, after: (await limiter.peek('k')).allowed };
}

describe('a refund the object could not take', () => {
  it('is sent again once an object answers after an outage, and gives the unit back', async () => {
    expect(await spendRefundRecover(new Error('lost'))).toEqual({ before: false, after: true });
  });

  it('is not sent again on the answer after an error reply', async () => {
    expect(await spendRefundRecover(Object.assign(new Error('threw'), { remote: true }))).toEqual({ before: false, after: false });
  });
});
