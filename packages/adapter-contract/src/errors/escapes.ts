/**
 * withoutEscapes runs one check while this process's `unhandledRejection` and `uncaughtException`
 * listeners (vitest's included) are replaced by a recorder, and fails the check, at once, with what
 * escaped. Under Node's default mode either event kills the process, so an adapter that lets an error
 * escape a promise chain loses the request and then the server: that is what the recorder stands
 * for. A check that never settles because its request was never answered fails the same way, since
 * the escape settles the race first; the request itself is abandoned (the server is closed with all
 * its connections after the test).
 */
const EVENTS = ['unhandledRejection', 'uncaughtException'] as const;

export async function withoutEscapes(check: () => Promise<void>): Promise<void> {
  const saved = EVENTS.map((event) => process.listeners(event as 'uncaughtException') as ((...args: unknown[]) => void)[]);
  const escaped: string[] = [];
  let fail: (error: Error) => void = () => undefined;
  const escaped$ = new Promise<never>((_, reject) => (fail = reject));
  escaped$.catch(() => undefined);
  const recorder = (event: string) => (reason: unknown) => {
    const text = `${event}: ${reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason)}`;
    escaped.push(text);
    fail(new Error(text));
  };
  for (const event of EVENTS) {
    process.removeAllListeners(event);
    process.on(event, recorder(event));
  }
  try {
    const running = check();
    running.catch(() => undefined);
    await Promise.race([running, escaped$]);
    // A rejection left unhandled is reported after the microtasks drain: give it two turns.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    if (escaped.length > 0) throw new Error(escaped.join('; '));
  } finally {
    for (const [i, event] of EVENTS.entries()) {
      process.removeAllListeners(event);
      for (const listener of saved[i] ?? []) process.on(event, listener);
    }
  }
}
