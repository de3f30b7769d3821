/**
 * What the stores' multi-process tests (8 worker processes bursting on one key) share about their
 * workers' reports: each worker lists the reasons of its store's 'failure' events, the first few in
 * full (ms after 'go', the operation, the error's stack). failuresOf turns them into a short list for an
 * assertion that expects none, so a failing run's log opens with its cause rather than hundreds of
 * repeated reasons.
 */

/** failuresOf lists each worker's first three failures in full, then one count per reason of the rest. */
export function failuresOf(reports: readonly { readonly failures: readonly string[] }[]): string[] {
  const listed: string[] = [];
  reports.forEach((report, worker) => {
    const rest = new Map<string, number>();
    report.failures.forEach((failure, i) => {
      if (i < 3) listed.push(`worker ${worker}: ${failure}`);
      else rest.set(failure, (rest.get(failure) ?? 0) + 1);
    });
    for (const [reason, count] of rest) listed.push(`worker ${worker}: ${count} more ${reason}`);
  });
  return listed;
}
