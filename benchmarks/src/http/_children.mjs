/**
 * Child-process plumbing for the HTTP benchmark: start a child with an IPC channel (optionally pinned
 * to one CPU with `taskset`), ask it something and await the reply with the same `id`, and stop it.
 *
 * Every child is tracked in `live` until it exits; `stopAll` stops whatever is left (on success, on
 * error and on SIGINT), first politely (`{ type: 'stop' }`, so a `--cpu-prof` profile is written),
 * then with SIGKILL after `STOP_GRACE_MS`. Children also exit by themselves when the channel drops.
 */
import { execFileSync, fork } from 'node:child_process';

const STOP_GRACE_MS = 3000;
const READY_TIMEOUT_MS = 20_000;
const live = new Set();
let nextId = 1;

/** hasTaskset reports whether CPUs can be pinned here (Linux util-linux `taskset`, 2+ CPUs). */
export function hasTaskset(cpuCount) {
  if (cpuCount < 2) return false;
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * startChild forks `file` with `args` and resolves to `{ proc, ready }` once it sends
 * `{ type: 'ready' }`; `cpu` (a number) pins the process and all its threads to that CPU; `execPath`
 * runs it on another runtime that speaks Node's IPC (Bun).
 */
export function startChild(file, args, { cpu, execArgv = [], execPath } = {}) {
  const proc = fork(file, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv, ...(execPath === undefined ? {} : { execPath }) });
  live.add(proc);
  proc.once('exit', () => live.delete(proc));
  if (cpu !== undefined) execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(proc.pid)], { stdio: 'ignore' });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${file} ${args.join(' ')}: not ready after ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    function fail(err) {
      clearTimeout(timer);
      proc.kill('SIGKILL');
      reject(err);
    }
    proc.once('exit', (code) => fail(new Error(`${file} ${args.join(' ')}: exited with ${code} before ready`)));
    proc.on('message', function onReady(msg) {
      if (msg?.type === 'failed') fail(new Error(msg.message));
      if (msg?.type !== 'ready') return;
      clearTimeout(timer);
      proc.off('message', onReady);
      proc.removeAllListeners('exit');
      proc.once('exit', () => live.delete(proc));
      resolve({ proc, ready: msg });
    });
  });
}

/** ask sends `{ ...msg, id }` to a child and resolves to its reply carrying the same id. */
export function ask(proc, msg) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const onExit = (code) => reject(new Error(`child ${proc.pid} exited with ${code} while asked ${msg.type}`));
    const onMessage = (reply) => {
      if (reply?.id !== id) return;
      proc.off('message', onMessage);
      proc.off('exit', onExit);
      if (reply.error !== undefined) reject(new Error(reply.error));
      else resolve(reply);
    };
    proc.on('message', onMessage);
    proc.once('exit', onExit);
    proc.send({ ...msg, id });
  });
}

/** stopChild asks a child to exit and kills it if it has not within the grace period. */
export function stopChild(proc) {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_GRACE_MS);
    proc.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    if (proc.connected) proc.send({ type: 'stop' });
    else proc.kill('SIGTERM');
  });
}

/** stopAll stops every child still running. */
export function stopAll() {
  return Promise.all([...live].map(stopChild));
}
