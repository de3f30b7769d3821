/**
 * Runs one extracted block as a program (./run-child.mjs in a child process) and judges it:
 * - a block that starts a server passes when one real GET (to the first path it routes with .get(),
 *   else /) answers with a well-formed HTTP response below 500;
 * - a block that starts none passes when its module runs to its end and the process then exits 0, or
 *   is still up without an error GRACE_MS later (a client of Redis or a pool holds the process open);
 * - it fails when it throws at start, exits non-zero, crashes, or neither listens nor finishes within
 *   START_MS, or writes to stderr (a warning such as a store's 'failure' report counts: the block then
 *   did not do what it shows); the answer says why, with the block's output.
 * Each wait is on an event (an IPC message, the exit, the response) bounded by a timeout; never a sleep.
 */
import { fork } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./run-child.mjs', import.meta.url));
const START_MS = 8_000;
const GRACE_MS = 1_000;
const ANSWER_MS = 3_000;

export interface Verdict {
  /** How it ran: 'served 200 on /', 'exited 0', 'held open'; or undefined when it failed. */
  readonly ok: string | undefined;
  /** Why it failed, with its output; undefined when it passed. */
  readonly failure: string | undefined;
}

/** route is the first path the block serves with .get('/…'), else /. */
export function route(code: string): string {
  return /\.get\(\s*'(\/[^']*)'/.exec(code)?.[1] ?? '/';
}

/** get sends one GET to 127.0.0.1:port and answers its status (rejects on no well-formed answer in time). */
function get(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, timeout: ANSWER_MS }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${ANSWER_MS} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** runBlock runs the module at `file` (code: its source, for the route) with `env` and `cwd`. */
export function runBlock(file: string, code: string, env: NodeJS.ProcessEnv, cwd: string): Promise<Verdict> {
  return new Promise((resolve) => {
    const child = fork(CHILD, [file], { cwd, env, execArgv: [], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    let output = '';
    let stderr = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => {
      output += chunk;
      stderr += chunk;
    });
    let done = false;
    let timer = setTimeout(() => finish(undefined, `neither listened nor finished within ${START_MS} ms`), START_MS);
    function finish(passed: string | undefined, failed?: string): void {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const quiet = failed !== undefined || stderr === '';
      const ok = quiet ? passed : undefined;
      const failure = quiet ? failed : `${passed}, but wrote to stderr`;
      const verdict = { ok, failure: failure === undefined ? undefined : `${failure}\n${output.trim()}` };
      if (child.exitCode !== null || child.signalCode !== null) return resolve(verdict);
      child.once('exit', () => resolve(verdict));
      child.kill('SIGKILL');
    }
    child.on('message', (message: { listening?: number; evaluated?: boolean; error?: string }) => {
      if (message.error !== undefined) return finish(undefined, `threw at start: ${message.error}`);
      if (message.listening !== undefined) {
        const path = route(code);
        clearTimeout(timer);
        get(message.listening, path).then(
          (status) => (status < 500 ? finish(`served ${status} on ${path}`) : finish(undefined, `answered ${status} on ${path}`)),
          (error: Error) => finish(undefined, `GET ${path}: ${error.message}`),
        );
        return;
      }
      if (message.evaluated) {
        clearTimeout(timer);
        timer = setTimeout(() => finish('held open, no error'), GRACE_MS);
      }
    });
    child.on('exit', (code, signal) => {
      if (code === 0) finish('exited 0');
      else finish(undefined, `exited ${code ?? signal}`);
    });
  });
}
