/**
 * warningsOnProcess is the harness of a store's "warns once per process" tests: before each test it
 * forgets the causes already warned of (`forget`, core's forgetFailureWarnings: the once-per-process
 * memory of the core instance the store under test uses, passed in so that core's own tests can give
 * their source copy) and starts collecting Node's process warnings; after each it stops. `ours()` is
 * what ratekeeper warned ('RatekeeperWarning'), `settle()` lets process.emitWarning's next-tick
 * delivery happen.
 */
import { afterEach, beforeEach } from 'vitest';

export type CollectedWarning = Error & { code?: string };

export interface ProcessWarnings {
  ours(): CollectedWarning[];
  settle(): Promise<void>;
}

export function warningsOnProcess(forget: () => void): ProcessWarnings {
  let warnings: CollectedWarning[] = [];
  const onWarning = (warning: Error) => void warnings.push(warning);
  beforeEach(() => {
    warnings = [];
    forget();
    process.on('warning', onWarning);
  });
  afterEach(() => void process.off('warning', onWarning));
  return {
    ours: () => warnings.filter((w) => w.name === 'RatekeeperWarning'),
    settle: () => new Promise<void>((resolve) => setImmediate(resolve)),
  };
}
