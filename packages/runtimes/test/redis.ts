/**
 * A redis-server of the runtime tests' own, on a free loopback port with persistence off (the shared
 * one on 6379 belongs to nobody's tests), killed after the file.
 */
import { spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';

export interface RedisProcess {
  readonly port: number;
  stop(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (data) => (socket.destroy(), resolve(String(data).startsWith('+PONG'))));
    socket.once('error', () => resolve(false));
  });

export async function startRedis(): Promise<RedisProcess> {
  const port = await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  for (let i = 0; i < 200 && !(await answers(port)); i++) await new Promise((r) => setTimeout(r, 25));
  return { port, stop: () => (child.kill('SIGKILL'), exited) };
}
