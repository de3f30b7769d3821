/**
 * emitWarning reports what no caller can be told (a hook that failed after the response was sent) as
 * a process warning: `process.emitWarning` with type RatekeeperWarning and `code`, where a runtime has
 * it (Node, Bun, Deno, Workers with nodejs_compat). A runtime without `process` (Cloudflare Workers by
 * default) gets the same text on `console.warn`, prefixed with the code; with neither, nothing. It
 * never throws.
 */
export function emitWarning(message: string, code: string): void {
  const host = globalThis as { process?: { emitWarning?: (message: string, options: object) => void }; console?: { warn?: (text: string) => void } };
  try {
    if (typeof host.process?.emitWarning === 'function') host.process.emitWarning(message, { type: 'RatekeeperWarning', code });
    else if (typeof host.console?.warn === 'function') host.console.warn(`RatekeeperWarning [${code}]: ${message}`);
  } catch {
    // A warning must never become the error it reports.
  }
}
