/**
 * startRedis: a redis-server of the test's own (the `redis-server` binary on PATH), on a free loopback
 * port, persistence off, for suites that need a Redis nobody else uses; ready once it answers PING
 * (a bounded poll on the real process), stopped with SIGKILL by `stop()` or when the test process exits.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface RedisServer {
  readonly port: number;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** pong tells whether a Redis on `port` answers PING now. */
function pong(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  running.add(child);
  for (let i = 0; !(await pong(port)); i++) {
    if (i > 200 || child.exitCode !== null) throw new Error('redis-server did not start');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    port,
    stop: async () => {
      running.delete(child);
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
