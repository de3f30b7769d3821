/**
 * causeOf names why a key's object could not decide, for the one-time warning a DurableObjectStore
 * gives (core's failureWarner): one code per failure reason (./failure.ts), so each is told once per
 * isolate (a Worker's "process"), through process warnings where the Worker has `process`
 * (nodejs_compat) and console.warn where it does not. An object has no connection to make: the
 * causes are silence for timeoutMs (the "timed out"), the runtime refusing an overloaded object, the
 * runtime failing the call otherwise (the closest to "refused": a lost connection, an object reset by
 * a deploy), and an object that threw or answered what the store cannot read, which is also what a
 * binding to the wrong class looks like (the "never connected" of a namespace). The runtime's error
 * text is never quoted: an object's error may carry what it was deciding.
 */
import type { FailureCause } from '@ratekeeper/core/store';
import type { FailureInfo } from './failure.js';

/** causeOf is the cause of `info` for a store whose calls wait `timeoutMs`. */
export function causeOf(info: FailureInfo, timeoutMs: number): FailureCause {
  switch (info.reason) {
    case 'timeout':
      return { code: 'RATEKEEPER_DURABLE_OBJECT_TIMEOUT', text: `the key's object answered nothing for ${timeoutMs} ms (timeoutMs)` };
    case 'overloaded':
      return { code: 'RATEKEEPER_DURABLE_OBJECT_OVERLOADED', text: "the runtime refused the call: the key's object is overloaded (one key busier than one object serves)" };
    case 'connection':
      return { code: 'RATEKEEPER_DURABLE_OBJECT_CONNECTION', text: 'the runtime failed the call (a lost connection, an object reset by a deploy, an internal error)' };
    default:
      return {
        code: 'RATEKEEPER_DURABLE_OBJECT_REPLY',
        text: "the object threw, or answered what this store cannot read: is the namespace bound to your Worker's RateLimiterObject, of the same version as this store?",
      };
  }
}
