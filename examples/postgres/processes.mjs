/**
 * Process helpers for the test: example servers as child processes, each started on a free port
 * (PORT=0) and known by the address it prints. Waits are bounded; everything started here is killed
 * when this process exits.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** The longest a server may take to print its address (it waits up to 1 s for the database first). */
const START_TIMEOUT_MS = 15_000;

/**
 * startServer runs server.mjs as SERVER_NAME `name` with `env` added (DATABASE_URL, RATEKEEPER_TABLE)
 * and resolves to { name, url, child, warnings } once it prints its address: `warnings` collects what
 * it writes to stderr from then on (the app logs store failures there), each line also echoed here.
 * `store`, a module URL, replaces `@ratekeeper/postgres` in that process (a mutant build: see
 * app.test.mjs).
 */
export async function startServer(name, env, store) {
  const script = fileURLToPath(new URL('./server.mjs', import.meta.url));
  const execArgv = store === undefined ? [] : ['--import', redirect('@ratekeeper/postgres', store)];
  const child = spawn(process.execPath, [...execArgv, script], {
    env: { ...process.env, ...env, PORT: '0', SERVER_NAME: name },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const lines = createInterface({ input: child.stdout });
  const warnings = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    warnings.push(line);
    console.error(`[${name}] ${line}`);
  });
  let timer;
  try {
    const [line] = await Promise.race([
      once(lines, 'line'),
      once(child, 'exit').then(([code, signal]) => {
        throw new Error(`server ${name} exited (code ${code}, signal ${signal}) before printing its address`);
      }),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`server ${name} printed no address within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      }),
    ]);
    const url = /listening on (\S+)/.exec(line)?.[1];
    if (url === undefined) throw new Error(`server ${name} printed ${JSON.stringify(line)} instead of its address`);
    lines.on('line', (more) => console.log(`[${name}] ${more}`));
    return { name, url, child, warnings };
  } catch (error) {
    await stop(child);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** redirect is a `--import` module (a data: URL) registering a resolve hook that loads `url` for `specifier`. */
function redirect(specifier, url) {
  const hooks = `export async function resolve(s, c, next) { return s === ${JSON.stringify(specifier)} ? { url: ${JSON.stringify(url)}, shortCircuit: true } : next(s, c); }`;
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
  return `data:text/javascript,${encodeURIComponent(register)}`;
}

/** stop ends a child process and waits for it. */
export async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
