// A redis-server under valgrind's callgrind, for the sections that count Redis's instructions instead
// of timing them (redis/instructions, redis/profile, redis/script-parts): no machine load moves the
// count. `read()` dumps callgrind's counters (which zeroes them) and answers the instructions since the
// last read; `lastDump()` is the file of that dump, for callgrind_annotate.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** onPath: whether `command` is on PATH (callgrind_annotate answers even --version with exit code 255). */
export function onPath(command) {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** startCallgrind starts redis-server under callgrind and resolves once it answers, with its client. */
export async function startCallgrind() {
  const dir = mkdtempSync(join(tmpdir(), 'rk-callgrind-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', `--callgrind-out-file=${dir}/cg.%p`, 'redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  // Retries until the server under valgrind listens; commands wait for the connection.
  const client = new Redis({ port, host: '127.0.0.1', retryStrategy: () => 200, maxRetriesPerRequest: null });
  client.on('error', () => {});
  await client.ping();
  let last;
  return {
    client,
    read() {
      execFileSync('callgrind_control', ['--dump', String(child.pid)], { stdio: 'ignore' });
      const parts = readdirSync(dir).filter((f) => /^cg\.\d+\.\d+$/.test(f));
      last = join(dir, parts.sort((a, b) => Number(a.split('.').pop()) - Number(b.split('.').pop())).pop());
      return Number(/^summary: (\d+)/m.exec(readFileSync(last, 'utf8'))?.[1]);
    },
    lastDump: () => last,
    stop() {
      client.disconnect();
      process.off('exit', kill);
      kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
