// Timed loops. Each operation row gets its own loop function compiled from source with `new Function`,
// once per row and key set, so that each loop has its own type feedback and its own optimised code:
// one shared loop calling `fn(k)` would see every contender at one call site, go megamorphic and stop
// inlining, which would charge every contender the same indirect call and squash the ratios toward 1.
// Every loop has the same shape (walk the key array round-robin, ask for one decision, count it), so
// the loop's own cost is the same for every row; with a one-key array the walk is the hot-key case.
//
// A loop `(c, keys, n, start)` makes n decisions on keys[start], keys[start + 1], … (wrapping around)
// and returns how many were allowed; callers check that against the row's `expect`.
//
// Async rows (promises) are observed in batches of BATCH calls: each promise gets one `.then(ok, no)`
// with handlers made once per loop; after a batch the loop awaits once, which lets every reaction of
// that batch run (they were queued first, the promises being already settled), then checks the count.
// So each async decision is charged its own promise, one reaction and 1/BATCH of an await: the least
// that any caller, middleware included, must pay to read the answer.

export const BATCH = 1000;

const syncBody = (call) => `
  let allowed = 0;
  let j = start;
  const m = keys.length;
  for (let i = 0; i < n; i++) {
    const k = keys[j];
    if (++j === m) j = 0;
    if (${call}) allowed++;
  }
  return allowed;`;

const asyncBody = (call, allowedIf) => `
  let allowed = 0;
  let settled = 0;
  const ok = (v) => { settled++; if (${allowedIf}) allowed++; };
  const no = () => { settled++; };
  let j = start;
  const m = keys.length;
  for (let i = 0; i < n; ) {
    const end = Math.min(n, i + ${BATCH});
    for (; i < end; i++) {
      const k = keys[j];
      if (++j === m) j = 0;
      (${call}).then(ok, no);
    }
    await null;
    if (settled !== i) throw new Error('loop: ' + (i - settled) + ' promises of the batch were still pending');
  }
  return allowed;`;

const AsyncFunction = (async () => {}).constructor;

/**
 * compileLoop returns a fresh `(c, keys, n, start) => allowed` (a promise of it for async rows) for
 * one operation row.
 */
export function compileLoop(row) {
  return row.kind === 'sync' ? new Function('c', 'keys', 'n', 'start', syncBody(row.call)) : new AsyncFunction('c', 'keys', 'n', 'start', asyncBody(row.call, row.allowedIf));
}

/** checkCount throws unless a loop of `n` decisions came out as the row expects. */
export function checkCount(row, n, allowed) {
  const want = row.expect === 'allowed' ? n : 0;
  if (allowed !== want) throw new Error(`${row.id}: ${allowed} of ${n} decisions allowed, expected ${want}`);
}
