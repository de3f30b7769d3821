// Runs one measurement in a fresh Node process and returns the JSON object it prints on its last line
// of stdout. A fresh process per measurement keeps heap figures and GC counts free of everything else
// the parent has allocated or optimised; its stderr (progress notes) passes through to the terminal.
// Every child is killed if it outlives `timeoutMs`, so a wedged run cannot leave a process behind.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** runChild runs `node <nodeFlags> <script> <args>` (script relative to src/lib) and parses its answer. */
export function runChild(script, { nodeFlags = [], args = [], timeoutMs = 600_000 } = {}) {
  const path = fileURLToPath(new URL(script, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, path, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`${script} ${args.join(' ')} exited with ${signal ?? code}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1)));
      } catch {
        reject(new Error(`${script} ${args.join(' ')} printed no JSON result: ${out.slice(-500)}`));
      }
    });
  });
}
