/**
 * report prints a measured figure when RATEKEEPER_REPORT is set (for release notes and issue
 * comments); tests stay quiet otherwise.
 */
export function report(...parts: unknown[]): void {
  if (process.env['RATEKEEPER_REPORT']) console.log('[report]', ...parts);
}
