/**
 * Backend: what a DurableObjectStore's bindings, composites and bookings share: the calls to the
 * objects, how a key names its object, the failure policy and the failure report.
 */
import type { Calls } from './calls.js';
import type { FailureInfo } from './failure.js';
import type { FailurePolicy } from './options.js';

export interface Backend {
  readonly calls: Calls;
  /** clientTime: each op carries the limiter's `now` instead of the object reading its clock. */
  readonly clientTime: boolean;
  readonly onFailure: FailurePolicy;
  /** objectName is the name of the object that holds `key` (one object per key: the prefix, then the key). */
  objectName(key: string): string;
  report(info: FailureInfo): void;
}
