/**
 * failureWarning: a remote store that decides without its server says so, once per process for each
 * cause, through the channel the trust-proxy warning uses (Node's process warnings, type
 * 'RatekeeperWarning', printed to stderr by default and observable with `process.on('warning')`; or
 * console.warn where there is no `process`). It never changes a decision and never throws. A store
 * calls it from the place it reports a failure, with the cause it read (never connected, refused,
 * timed out …) as a code and a sentence, and skips it when its user already listens for 'failure' or
 * turned the warning off; so silence is chosen, never the default.
 */

const warned = new Set<string>();

/** warnFailureOnce emits `message` as a RatekeeperWarning with `code`, unless one with that code was emitted in this process. */
export function warnFailureOnce(code: string, message: string): void {
  if (warned.has(code)) return;
  warned.add(code);
  try {
    const host = (globalThis as { process?: { emitWarning?: (message: string, options: object) => void } }).process;
    if (typeof host?.emitWarning === 'function') host.emitWarning(message, { type: 'RatekeeperWarning', code });
    else console.warn(`RatekeeperWarning [${code}]: ${message}`);
  } catch {
    // A warning must never become a failure of the call that caused it.
  }
}

/** forgetFailureWarnings lets every code warn again (for tests: one process runs many). */
export function forgetFailureWarnings(): void {
  warned.clear();
}
