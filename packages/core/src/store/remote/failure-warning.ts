/**
 * failureWarning: a store that decides without its server says so, once per process for each cause,
 * through the channel the trust-proxy warning uses (Node's process warnings, type
 * 'RatekeeperWarning', printed to stderr by default and observable with `process.on('warning')`; or
 * console.warn where there is no `process`, as on Workers without nodejs_compat). It never changes a
 * decision and never throws. Every store with a failure policy takes the same option for it,
 * `failureWarning` (default true), and calls the function `failureWarner` made from the place it
 * reports a failure: the store names its cause (never connected, refused, timed out, an error reply …)
 * as a code and a sentence, and the warning is skipped when its user already listens for 'failure' or
 * turned it off; so silence is chosen, never the default. The record of codes told lives on
 * `globalThis[Symbol.for('ratekeeper.failureWarnings')]`, as the proxy warning's does, so that an ESM
 * and a CommonJS copy of core in one process tell each cause once between them.
 */
import type { FailurePolicy } from './decisions.js';

const RECORD = Symbol.for('ratekeeper.failureWarnings');
const host = globalThis as { [RECORD]?: Set<string> };
host[RECORD] ??= new Set<string>();
const warned: Set<string> = host[RECORD];

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

/** FailureCause is why a store's server could not decide: the warning's code (RATEKEEPER_…) and the sentence naming the cause and its fix. */
export interface FailureCause {
  readonly code: string;
  readonly text: string;
}

/** FailureWarningSource is what a store tells failureWarner about itself. */
export interface FailureWarningSource<Info> {
  /** The store's class, which opens the warning ('PostgresStore'). */
  readonly owner: string;
  /** What could not decide, as the sentence names it ('PostgreSQL', 'the SQLite file'). */
  readonly server: string;
  readonly onFailure: FailurePolicy;
  /** The store's `failureWarning` option. */
  readonly enabled: boolean;
  /** listening tells whether a 'failure' listener is attached (it then hears every failure, so no warning). */
  listening(): boolean;
  /** causeOf names the cause of a failure, or undefined for one that only follows another (the breaker's 'unavailable'). */
  causeOf(info: Info): FailureCause | undefined;
}

const POLICY: Readonly<Record<FailurePolicy, string>> = {
  fallback: "so this process decides alone with onFailure: 'fallback' (an in-process limit, its share of the limit per process)",
  open: "so every request is admitted (onFailure: 'open')",
  closed: "so every request is denied, 503 (onFailure: 'closed')",
};

/** failureWarningText is the whole sentence: cause, what decides instead, how to see every failure and how to silence this. */
export function failureWarningText(owner: string, server: string, onFailure: FailurePolicy, cause: FailureCause): string {
  return `${owner}: ${server} could not decide, ${POLICY[onFailure]}: ${cause.text}. To see every failure, listen with store.on('failure', (info) => …), which also silences this warning; or pass failureWarning: false.`;
}

/** failureWarner returns what a store calls with each failure it reports: the warning, once per process per cause, unless silenced. */
export function failureWarner<Info>(source: FailureWarningSource<Info>): (info: Info) => void {
  if (!source.enabled) return () => {};
  return (info) => {
    try {
      if (source.listening()) return;
      const cause = source.causeOf(info);
      if (cause !== undefined) warnFailureOnce(cause.code, failureWarningText(source.owner, source.server, source.onFailure, cause));
    } catch {
      // Reading the cause must never become a failure of the call that caused it.
    }
  };
}
