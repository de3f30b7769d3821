/**
 * The load generator in its own process (so it can be pinned to a core apart from the servers):
 * `node _client-child.mjs`, started with an IPC channel. For each
 * `{ type: 'slice', id, url, connections, durationMs }` it runs autocannon against `url` for that long
 * and replies `{ type: 'slice', id, requests, wallMs, clientCpuUs, statusCounts, errors, timeouts }`,
 * where `requests` counts completed responses, `wallMs` is the time from start to autocannon's result
 * and `clientCpuUs` the client's own CPU time meanwhile (near wallMs: the client was the bottleneck).
 * `{ type: 'stop' }` or a lost channel exits the process.
 */
import autocannon from 'autocannon';

async function slice({ id, url, connections, durationMs }) {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const result = await autocannon({ url, connections, duration: durationMs / 1000, pipelining: 1 });
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const statusCounts = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCounts[code] = stat.count;
  return {
    type: 'slice',
    id,
    requests: result.requests.total,
    wallMs,
    clientCpuUs: used.user + used.system,
    statusCounts,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

if (typeof process.send !== 'function') throw new Error('client-child: start me with an IPC channel');
process.on('message', (msg) => {
  if (msg?.type === 'stop') process.exit(0);
  if (msg?.type !== 'slice') return;
  slice(msg).then(
    (reply) => process.send(reply),
    (err) => process.send({ type: 'slice', id: msg.id, error: String(err?.stack ?? err) }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send({ type: 'ready' });
