/**
 * One benchmark server in its own process: `node _server-child.mjs <framework> <library> <path>
 * [erlHeaders]`, started by the harness with an IPC channel. It listens on 127.0.0.1 at a free port
 * and answers three messages:
 *
 * - `{ type: 'cpu', id }` → `{ type: 'cpu', id, usage }`, where usage is `process.cpuUsage()` (user
 *   and system µs of the whole process, all threads), read at slice boundaries;
 * - `{ type: 'stop' }` → closes the server and exits 0 (a clean exit, so `--cpu-prof` is written);
 * - a lost channel (the harness died) exits too, so no server outlives its harness.
 *
 * It reports `{ type: 'ready', port }` once listening, or `{ type: 'failed', message }` and exits 1.
 */
import { listenApp } from './_servers.mjs';

const [framework, library, path, erlHeaders] = process.argv.slice(2);

function exitClean(server) {
  server?.closeAllConnections?.();
  server?.close();
  process.exit(0);
}

async function main() {
  if (typeof process.send !== 'function') throw new Error('server-child: start me with an IPC channel');
  const server = await listenApp(framework, library, path, { erlHeaders });
  process.on('message', (msg) => {
    if (msg?.type === 'cpu') process.send({ type: 'cpu', id: msg.id, usage: process.cpuUsage() });
    else if (msg?.type === 'stop') exitClean(server);
  });
  process.on('disconnect', () => exitClean(server));
  process.send({ type: 'ready', port: server.address().port });
}

main().catch((err) => {
  process.send?.({ type: 'failed', message: String(err?.stack ?? err) });
  process.exit(1);
});
