/**
 * Process helpers shared by demo.mjs and the test: a redis-server on a free loopback port (persistence
 * off) and example servers as child processes. Everything started here is killed when this process
 * exits, Ctrl-C included.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const children = new Set();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});
process.once('SIGINT', () => process.exit(130));

function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function ping(port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('error', () => resolve(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
  });
}

/** startRedis starts redis-server and resolves to { url, child } once it answers PING (5 s at most). */
export async function startRedis(port) {
  const p = port ?? (await freePort());
  const child = track(spawn('redis-server', ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }));
  await new Promise((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`redis-server could not start (is it installed?): ${error.message}`)));
    child.once('spawn', resolve);
  });
  const deadline = Date.now() + 5000;
  while (!(await ping(p))) {
    if (Date.now() > deadline) throw new Error(`redis-server on port ${p} did not answer within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { url: `redis://127.0.0.1:${p}`, port: p, child };
}

/** startServer runs server.mjs as SERVER_NAME `name` on a free port; resolves to { name, url, child }. */
export async function startServer(name, redisUrl) {
  const script = fileURLToPath(new URL('./server.mjs', import.meta.url));
  const env = { ...process.env, PORT: '0', REDIS_URL: redisUrl, SERVER_NAME: name };
  const child = track(spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'inherit'] }));
  const lines = createInterface({ input: child.stdout });
  const [line] = await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(([code]) => {
      throw new Error(`${name} exited with code ${code} before listening`);
    }),
  ]);
  const url = /listening on (\S+)/.exec(line)?.[1];
  if (url === undefined) throw new Error(`${name} printed ${JSON.stringify(line)} instead of its address`);
  return { name, url, child };
}

/** stop ends a child process and waits for it. */
export async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
