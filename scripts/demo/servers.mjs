/**
 * Example servers as child processes, for `pnpm demo`. Each runs `node server.mjs` in its example's
 * folder with PORT=0, so the kernel picks a free port with no window for a race, and the server's first
 * line, `listening on http://127.0.0.1:<port>`, tells us which one.
 *
 * No child outlives the demo: stopAll ends them (SIGTERM, then SIGKILL after a grace period), an exit
 * hook kills any still running however the demo ends, and every child is started with an IPC channel
 * and a preloaded one-liner that exits when that channel closes, so that even a demo killed with
 * SIGKILL takes its servers with it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';

const ORPHAN_GUARD = 'data:text/javascript,process.once("disconnect",()=>process.exit(0));';
const LISTENING = /^listening on (http:\/\/127\.0\.0\.1:\d+)\s*$/m;
const running = new Set();

process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** startServer starts the example in `dir` (with `env` added) and resolves to its URL, or rejects within `timeoutMs`. */
export function startServer(name, dir, timeoutMs, env = {}) {
  const child = spawn(process.execPath, ['--import', ORPHAN_GUARD, 'server.mjs'], {
    cwd: dir,
    env: { ...process.env, ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  running.add(child);
  // A child that failed to spawn emits 'error' and never 'exit': it must not be waited for.
  child.once('exit', () => running.delete(child));
  child.once('error', () => running.delete(child));
  let output = '';
  return new Promise((resolve, reject) => {
    const fail = (why) => {
      clearTimeout(timer);
      reject(new Error(`${name} server ${why}${output.trim() === '' ? '' : `:\n${output.trim()}`}`));
    };
    const timer = setTimeout(() => fail(`printed no "listening on" line within ${timeoutMs} ms`), timeoutMs);
    const read = (chunk) => {
      output += chunk;
      const match = LISTENING.exec(output);
      if (match === null) return;
      clearTimeout(timer);
      resolve({ name, url: match[1], child });
    };
    child.stdout.setEncoding('utf8').on('data', read);
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.once('error', (error) => fail(`could not start (${error.message})`));
    child.once('exit', (code, signal) => fail(`exited before listening (${signal ?? `code ${code}`})`));
  });
}

/** stopAll ends every child still running and resolves once all have exited. */
export async function stopAll(graceMs = 2000) {
  await Promise.all(
    [...running].map(async (child) => {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    }),
  );
}
