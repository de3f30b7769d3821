/**
 * Summarises a V8 `.cpuprofile` (from `--http-profile=DIR`, i.e. `node --cpu-prof`) for the HTTP
 * benchmark's post-mortems:
 * `node _profile-summary.mjs <file.cpuprofile> [--top=N] [--focus=name] [--exclude=a,b] [--requests=N]`
 * or, to see where a limited server's extra time per request goes against the bare server,
 * `node _profile-summary.mjs <limited.cpuprofile> --requests=N --base=<bare.cpuprofile> --base-requests=M`.
 *
 * Prints the top N functions by self time (file:line, share of all sampled time, ms) and, for
 * `--focus`, the inclusive time of every call-tree node whose function is named so (the middleware
 * with everything it calls, except below a function named in `--exclude`: the continuation a
 * middleware calls, Express's and Fastify's `next` or koa-compose's `dispatch`, so that the rest of
 * the request is not billed to it), with that subtree's own top functions; with `--requests`, also that
 * inclusive time per request (sampled wall time: on a busy machine a descheduled function is billed
 * the wait, so prefer the share of busy samples times the benchmark's CPU µs per request). Shares in
 * the top lists are of all samples, idle included, so "(idle)" and "(program)" show how busy the
 * server was. Not a section (its name
 * starts with "_").
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { flags } from '../lib/args.mjs';

function label(frame) {
  const file =
    frame.url === ''
      ? ''
      : ` ${frame.url
          .replace(/^file:\/\//, '')
          .replace(/^.*node_modules\//, '')
          .replace(/^.*\/packages\//, 'packages/')}:${frame.lineNumber + 1}`;
  return `${frame.functionName || '(anonymous)'}${file}`;
}

/** selfTimes maps each node id to its sampled self time in µs. */
function selfTimes(profile) {
  const self = new Map();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  return self;
}

function topByLabel(nodes, self, top) {
  const byLabel = new Map();
  for (const node of nodes) byLabel.set(label(node.callFrame), (byLabel.get(label(node.callFrame)) ?? 0) + (self.get(node.id) ?? 0));
  return [...byLabel].sort((a, b) => b[1] - a[1]).slice(0, top);
}

function subtree(root, byId, exclude) {
  const out = [];
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    out.push(node);
    for (const id of node.children ?? []) {
      const child = byId.get(id);
      if (!exclude.includes(child.callFrame.functionName)) stack.push(child);
    }
  }
  return out;
}

function print(title, rows, total) {
  console.log(title);
  for (const [name, us] of rows) console.log(`  ${((100 * us) / total).toFixed(2).padStart(6)} %  ${(us / 1000).toFixed(1).padStart(8)} ms  ${name}`);
}

/** summarize prints the report for one profile file. */
export function summarize(file, { top = 25, focus, exclude = [], requests } = {}) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const self = selfTimes(profile);
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  print(`${basename(file)}: ${(total / 1000).toFixed(0)} ms sampled; top ${top} by self time`, topByLabel(profile.nodes, self, top), total);
  if (focus === undefined) return;
  const roots = profile.nodes.filter((n) => n.callFrame.functionName === focus);
  const inTree = new Set();
  for (const root of roots) for (const node of subtree(root, byId, exclude)) inTree.add(node);
  const focusTotal = [...inTree].reduce((a, n) => a + (self.get(n.id) ?? 0), 0);
  const idle = profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').reduce((a, n) => a + (self.get(n.id) ?? 0), 0);
  const busyShare = `${((100 * focusTotal) / (total - idle)).toFixed(1)} % of busy samples`;
  const perRequest = requests === undefined ? '' : `, ${(focusTotal / requests).toFixed(2)} µs (sampled wall time) per request`;
  const title = `\n${focus}: ${roots.length} call-tree nodes, inclusive ${(focusTotal / 1000).toFixed(1)} ms (${busyShare})${perRequest}`;
  print(title, topByLabel([...inTree], self, top), total);
}

function busyPerRequest(file, requests) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const self = selfTimes(profile);
  const byLabel = new Map();
  for (const node of profile.nodes) {
    if (node.callFrame.functionName === '(idle)') continue;
    const name = label(node.callFrame);
    byLabel.set(name, (byLabel.get(name) ?? 0) + (self.get(node.id) ?? 0) / requests);
  }
  return byLabel;
}

/**
 * compare prints, per function, the busy sampled µs per request of `file` minus that of `base` (the
 * bare server): where a limited server's extra time per request goes, indirect costs (GC, header
 * serialisation) included.
 */
export function compare(file, requests, base, baseRequests, top = 25) {
  const a = busyPerRequest(file, requests);
  const b = busyPerRequest(base, baseRequests);
  const sum = (m) => [...m.values()].reduce((x, y) => x + y, 0);
  console.log(`${basename(file)} − ${basename(base)}: busy sampled µs per request ${sum(a).toFixed(2)} − ${sum(b).toFixed(2)} = ${(sum(a) - sum(b)).toFixed(2)}`);
  const diffs = [...new Set([...a.keys(), ...b.keys()])].map((k) => [k, (a.get(k) ?? 0) - (b.get(k) ?? 0)]);
  for (const [name, d] of diffs.sort((x, y) => y[1] - x[1]).slice(0, top)) console.log(`  ${d.toFixed(3).padStart(8)} µs  ${name}`);
}

if (process.argv[1]?.endsWith('_profile-summary.mjs')) {
  const f = flags(process.argv.slice(2));
  const files = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const requests = f.requests === undefined ? undefined : Number(f.requests);
  const exclude = f.exclude === undefined ? [] : f.exclude.split(',');
  if (f.base !== undefined) compare(files[0], requests, f.base, Number(f['base-requests']), Number(f.top ?? 25));
  else for (const file of files) summarize(file, { top: Number(f.top ?? 25), focus: f.focus, exclude, requests });
}
