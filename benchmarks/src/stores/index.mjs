// Section stores/index (issue 31, "Each store at its floor"): every SQL store beside the simplest exact
// hand-written limiter on its database (the floor: one upsert per decision) and rate-limiter-flexible's
// store for it, in one run, interleaved over rounds, reported as ratios taken within each round.
//
//   pnpm --filter @ratekeeper/benchmarks bench:stores -- --db postgres|mysql|sqlite|all [--quick]
//   node src/stores/index.mjs --db=all --json=/tmp/stores.json          (in benchmarks/)
//   node src/run-all.mjs stores --stores-db=sqlite --stores-quick        (as a section: flags prefixed)
//
// Contenders per database (./_postgres.mjs, ./_mysql.mjs, ./_sqlite.mjs): the floor (PostgreSQL: an
// INSERT … ON CONFLICT … DO UPDATE … RETURNING on pg and on postgres.js; MySQL: INSERT … ON DUPLICATE
// KEY UPDATE with LAST_INSERT_ID(expr); SQLite: INSERT … ON CONFLICT … RETURNING on better-sqlite3),
// rate-limiter-flexible's store (default options), and ratekeeper's store with default options
// through the public API only (`new TokenBucketLimiter({ …, store, name })`, `consume`, `peek`): the
// token bucket, plus the sliding and fixed windows unless --stores-algorithms says otherwise. A billion
// per minute everywhere, so every decision is an admission and writes. Pools of 10. Each contender has
// its own table (file on SQLite), filled with every key during its warm-up.
//
// Scenarios (./_measure.mjs): the lone call (one at a time over the first 1,000 keys: p50 and p99),
// the probe (`peek`, one at a time over the same keys), 1, 10, 50 and 200 calls in flight over 10,000
// keys (decisions/s), and 50 in flight on one hot key. Every round runs every scenario on every
// contender back to back, in an order rotated from slice to slice; a ratio is taken within each round
// and the median over rounds is reported. Then, untimed, the statements each contender sends per
// decision and per probe, counted at the driver (./_statements.mjs).
//
// Flags (also unprefixed when run directly): --stores-db=postgres,mysql,sqlite|all (default all),
// --stores-quick (a smoke run of well under a minute), --stores-rounds (3), --stores-lone-ms (1000),
// --stores-probe-ms (500), --stores-min-samples (300: a lone or probe slice goes on, up to 4 × its
// time, until it has that many calls), --stores-ms (600, each throughput slice), --stores-keys (10000),
// --stores-lone-keys (1000), --stores-algorithms=token-bucket,sliding-window,fixed-window,
// --stores-json=FILE (default: a timestamped file in the OS's temporary directory).
// Needs the databases of ./_postgres.mjs and ./_mysql.mjs; a database that cannot be reached fails its
// part of the run, and the others still run.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flags, intFlag } from '../lib/args.mjs';
import { makeKeys } from '../lib/keys.mjs';
import { ALGORITHMS } from './_contenders.mjs';
import { runRounds } from './_measure.mjs';
import { mysqlContenders } from './_mysql.mjs';
import { postgresContenders } from './_postgres.mjs';
import { summarise, tables } from './_report.mjs';
import { sqliteContenders } from './_sqlite.mjs';
import { countStatements } from './_statements.mjs';

const DATABASES = { postgres: postgresContenders, mysql: mysqlContenders, sqlite: sqliteContenders };
const KNOWN = new Set(['db', 'quick', 'rounds', 'lone-ms', 'probe-ms', 'min-samples', 'ms', 'keys', 'lone-keys', 'algorithms', 'json']);
const VALUED = new Set([...KNOWN].filter((k) => k !== 'quick'));

/** options reads the --stores-… flags; an unknown one throws, so a typo never runs on a default. */
function options(args) {
  const f = flags(args);
  for (const name of Object.keys(f)) {
    if (name.startsWith('stores-') && !KNOWN.has(name.slice(7))) throw new RangeError(`unknown flag --${name}; known: ${[...KNOWN].map((k) => `--stores-${k}`).join(', ')}`);
  }
  const quick = f['stores-quick'] === 'true';
  const dbs = (f['stores-db'] ?? 'all') === 'all' ? Object.keys(DATABASES) : f['stores-db'].split(',');
  for (const db of dbs) if (!(db in DATABASES)) throw new RangeError(`--stores-db: unknown database ${db}; one or more of ${Object.keys(DATABASES).join(', ')}, or all`);
  const algorithms = f['stores-algorithms']?.split(',') ?? (quick ? ['token-bucket'] : Object.keys(ALGORITHMS));
  for (const a of algorithms) if (!(a in ALGORITHMS)) throw new RangeError(`--stores-algorithms: unknown algorithm ${a}; one or more of ${Object.keys(ALGORITHMS).join(', ')}`);
  const o = {
    dbs,
    quick,
    algorithms,
    rounds: intFlag(f, 'stores-rounds', 3),
    loneMs: intFlag(f, 'stores-lone-ms', quick ? 60 : 1000),
    probeMs: intFlag(f, 'stores-probe-ms', quick ? 40 : 500),
    sliceMs: intFlag(f, 'stores-ms', quick ? 50 : 600),
    keys: intFlag(f, 'stores-keys', quick ? 1000 : 10_000),
    loneKeys: intFlag(f, 'stores-lone-keys', quick ? 200 : 1000),
    minSamples: intFlag(f, 'stores-min-samples', quick ? 20 : 300),
    json: f['stores-json'] ?? join(os.tmpdir(), `ratekeeper-stores-${new Date().toISOString().replaceAll(':', '-')}.json`),
  };
  if (o.loneKeys > o.keys) throw new RangeError('--stores-lone-keys must be at most --stores-keys');
  return o;
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

export async function run(args) {
  const o = options(args);
  const log = (line) => console.error(line);
  const many = makeKeys(o.keys);
  const keySets = { many, lone: many.slice(0, o.loneKeys), hot: ['hot'] };
  const stop = { requested: false };
  const onSignal = () => {
    if (stop.requested) process.exit(130);
    stop.requested = true;
    log('stores: stopping after the current slice, then dropping the tables (Ctrl-C again to leave them)');
  };
  process.on('SIGINT', onSignal);
  const command = `node ${relative(process.cwd(), process.argv[1] ?? '')} ${process.argv
    .slice(2)
    .filter((a) => a !== '--')
    .join(' ')}`.trim();
  const report = {
    harness: 'stores',
    started: new Date().toISOString(),
    command,
    cwd: process.cwd(),
    node: process.version,
    cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}`,
    loadAverage: { start: os.loadavg() },
    options: o,
    databases: [],
  };
  console.log(`stores — ${report.started} — Node ${process.version}, ${report.cpus}; load average ${load()}`);
  console.log(`command: ${command} (in ${process.cwd()})`);
  console.log(
    `${o.rounds} interleaved rounds; per round and contender: lone call ${o.loneMs} ms, probe ${o.probeMs} ms (each at least ${o.minSamples} calls, up to 4× the time), each throughput slice ${o.sliceMs} ms; ` +
      `${o.keys} keys (lone call and probe: the first ${o.loneKeys}); pools of 10; a billion per minute; ratekeeper: ${o.algorithms.join(', ')}, default options`,
  );
  let failed = 0;
  try {
    for (const id of o.dbs) {
      if (stop.requested) break;
      const began = performance.now();
      let db;
      try {
        log(`stores: ${id}: setting up`);
        db = await DATABASES[id]({ prefix: `rkb_${process.pid}_`, algorithms: o.algorithms });
        log(`stores: ${db.server} (${db.settings}): ${db.contenders.map((c) => c.label).join(', ')}`);
        const measured = await runRounds(db.contenders, keySets, o, stop, log);
        const statements = await countStatements(db.contenders, keySets.lone, o.quick ? 20 : 100);
        const summary = summarise(db, measured, statements);
        summary.seconds = (performance.now() - began) / 1000;
        report.databases.push(summary);
        console.log(`\n${tables(summary)}\n\n(${db.server}, ${db.settings}; ${summary.seconds.toFixed(0)} s; load average now ${load()})`);
      } catch (error) {
        failed++;
        console.error(`stores: ${id} failed: ${error?.stack ?? error}`);
      } finally {
        await db?.close();
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    report.finished = new Date().toISOString();
    report.loadAverage.end = os.loadavg();
    writeFileSync(o.json, `${JSON.stringify(report, null, 1)}\n`);
    console.log(`\nJSON: ${o.json}`);
  }
  if (failed > 0) throw new Error(`stores: ${failed} of ${o.dbs.length} databases failed`);
  return report;
}

/** prefixed turns a direct run's flags (`--db postgres`, `--quick`) into the section's (`--stores-db=postgres`). */
function prefixed(argv) {
  const out = [];
  for (let i = 0; i < argv.length; i++) {
    const m = /^--(?:stores-)?([a-z][\w-]*)(=.*)?$/.exec(argv[i]);
    if (argv[i] === '--') continue;
    if (!m) throw new RangeError(`unexpected argument ${argv[i]}`);
    if (m[2] === undefined && VALUED.has(m[1]) && argv[i + 1] !== undefined && !argv[i + 1].startsWith('--')) out.push(`--stores-${m[1]}=${argv[++i]}`);
    else out.push(`--stores-${m[1]}${m[2] ?? ''}`);
  }
  return out;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await run(prefixed(process.argv.slice(2)));
  } catch (error) {
    console.error(error?.message ?? error);
    process.exitCode = 1;
  }
}
