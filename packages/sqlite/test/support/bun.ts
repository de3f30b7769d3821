/** bunBinary finds Bun's executable from this package's `bun` devDependency (../../../../scripts/bun-binary.mjs). */
import { bunBinary as find } from '../../../../scripts/bun-binary.mjs';

export function bunBinary(): string | undefined {
  return find(import.meta.url);
}
