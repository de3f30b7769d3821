// The local redis-server every Redis benchmark runs against: started on a free loopback port with
// persistence off, stopped when the section ends (and killed if the process exits first). One server
// for every contender of a section, so that all are measured on the same Redis in one run.
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';

export function freePort() {
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

/** startRedis starts a redis-server (on `port`, else a free one) and resolves to { port, pid, stop() } once it answers PING. */
export async function startRedis(port) {
  port ??= await freePort();
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  await new Promise((resolve, reject) => {
    child.once('error', (error) => reject(new Error(`redis-server could not start (is it installed?): ${error.message}`)));
    child.once('spawn', resolve);
  });
  const deadline = Date.now() + 5000;
  while (!(await ping(port))) {
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer within 5 s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return {
    port,
    pid: child.pid,
    stop: () => {
      process.off('exit', kill);
      kill();
    },
  };
}
