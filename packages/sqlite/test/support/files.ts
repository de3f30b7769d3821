/** Database files for the tests: each test file gets a fresh directory under the system's temp dir. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir {
  readonly dir: string;
  /** file is a fresh database path in the directory. */
  file(name?: string): string;
  remove(): void;
}

let files = 0;

export function tempDir(): TempDir {
  const dir = mkdtempSync(join(tmpdir(), 'rk-sqlite-'));
  return {
    dir,
    file: (name) => join(dir, name ?? `db-${files++}.sqlite`),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
