/**
 * Starting a runtime for the suite: a server script as a child process that prints `listening
 * <port>` once it serves on loopback, killed after the test file (one process per file, not per
 * test). The runtimes come from npm (`bun`, `deno`, `miniflare`), so `pnpm install` is all a machine
 * needs; when a binary is missing anyway, the suite is skipped with a loud warning on a developer
 * machine and fails in CI (CI=true), never skipped there.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bunBinary as findBun } from '../../../scripts/bun-binary.mjs';

export const inCI = process.env['CI'] === 'true';
export const servers = fileURLToPath(new URL('../servers/', import.meta.url));
const require = createRequire(import.meta.url);

/** bunBinary finds Bun's executable from this package's `bun` devDependency (../../../scripts/bun-binary.mjs). */
export function bunBinary(): string | undefined {
  return findBun(import.meta.url);
}

/**
 * denoBinary finds Deno's executable: the `deno` package's launcher places it beside itself on first
 * run (from the platform package), and is then bypassed, so that stopping the server stops Deno.
 */
export function denoBinary(): string | undefined {
  try {
    const root = dirname(require.resolve('deno/package.json'));
    execFileSync(process.execPath, [join(root, 'bin.cjs'), '--version'], { stdio: 'ignore', timeout: 20_000 });
    const exe = join(root, process.platform === 'win32' ? 'deno.exe' : 'deno');
    return existsSync(exe) ? exe : undefined;
  } catch {
    return undefined;
  }
}

/** available warns loudly and answers false when `binary` is missing on a developer machine; CI must have it. */
export function available(runtime: string, binary: string | undefined): boolean {
  if (binary !== undefined || inCI) return true;
  console.warn(`\n*** ${runtime} not found: its runtime suite is SKIPPED. Run pnpm install (it comes from npm); CI fails instead of skipping. ***\n`);
  return false;
}

export interface Started {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * start spawns `command args` in `cwd`, waits (at most 60 s) for `ready` on its output (default
 * `listening <port>`, whose port makes the URL) and returns the URL.
 */
export function start(command: string, args: readonly string[], env: Record<string, string> = {}, cwd = servers, ready = /listening (\d+)/, group = false): Promise<Started> {
  // `group`: the server forks workers of its own (next dev): run it as a process group and stop the group.
  const child: ChildProcess = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: group });
  const signal = (name: NodeJS.Signals) => {
    try {
      if (group) process.kill(-child.pid!, name);
      else child.kill(name);
    } catch {
      // Already gone.
    }
  };
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${command} did not listen within 60 s:\n${output}`)), 60_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      signal('SIGKILL');
      reject(error);
    };
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk;
      if (ready.test(output)) child.stdout!.emit('data', Buffer.alloc(0));
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk;
      const match = ready.exec(output);
      if (match === null) return;
      const port = match[1] ?? '0';
      clearTimeout(timer);
      resolve({
        url: `http://127.0.0.1:${port}`,
        stop: () =>
          new Promise((done) => (child.exitCode !== null && !group ? done() : (child.once('exit', () => done()), signal('SIGTERM'), group && child.exitCode !== null && done()))),
      });
    });
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`${command} exited with ${code} before listening:\n${output}`)));
  });
}
