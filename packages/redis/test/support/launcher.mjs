/**
 * The process that spawns redis-server for the tests. Spawning forks the spawning process, and forking
 * a large test process can stall its event loop for tens of milliseconds, which would show up as
 * store latency in the fault tests. This small process does the forking instead; the test process
 * only sends it messages and signals the servers by pid. Its servers die with it.
 */
import { spawn } from 'node:child_process';

const children = new Map();

process.on('message', ({ id, args }) => {
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  child.once('error', (error) => process.send({ type: 'spawned', id, error: String(error) }));
  child.once('spawn', () => {
    children.set(child.pid, child);
    process.send({ type: 'spawned', id, pid: child.pid });
  });
  child.once('exit', () => {
    children.delete(child.pid);
    process.send({ type: 'exited', pid: child.pid });
  });
});

process.on('disconnect', () => {
  for (const child of children.values()) child.kill('SIGKILL');
  process.exit(0);
});
