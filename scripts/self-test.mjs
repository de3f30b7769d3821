// What the house checks' self-tests share (scripts/check-architecture.mjs, check-comment-paths.mjs,
// check-manifests.mjs): each writes a small tree with known defects to a temporary folder, runs its
// check there, and fails when the check missed a defect or reported one that is not there, so a
// checker that stopped catching what it exists for fails too.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * selfTestOn makes a temporary folder (named after `name`), lets `run(write, root)` fill it and check
 * it, and answers one `self-test: …` line for each failure `run` expected but the check did not report
 * and each it reported unexpected. `write(path, value)` writes a text, or any other value as JSON. The
 * folder is removed after, whatever happens.
 */
export function selfTestOn(name, run) {
  const root = mkdtempSync(join(tmpdir(), `${name}-`));
  const write = (path, value) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), typeof value === 'string' ? value : JSON.stringify(value));
  };
  try {
    const { expected, failures } = run(write, root);
    const problems = [];
    for (const e of expected) if (!failures.includes(e)) problems.push(`self-test: expected "${e}"`);
    for (const f of failures) if (!expected.includes(f)) problems.push(`self-test: unexpected "${f}"`);
    return problems;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * runWhenMain runs a check script that was started itself (not imported): its self-test, then its
 * check of the repository (the folder above scripts/); prints each failure and exits 1 if any, else
 * prints `passed`.
 */
export function runWhenMain(scriptUrl, selfTest, check, passed) {
  if (process.argv[1] !== fileURLToPath(scriptUrl)) return;
  const failures = [...selfTest(), ...check(resolve(dirname(fileURLToPath(scriptUrl)), '..'))];
  for (const f of failures) console.error(f);
  if (failures.length > 0) process.exit(1);
  console.log(passed);
}
