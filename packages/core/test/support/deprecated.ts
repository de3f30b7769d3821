/**
 * deprecatedAtRoot reads src/index.ts and lists the export names whose @deprecated tag sends the
 * reader to `entry` (`'@ratekeeper/core/adapter'`, `'@ratekeeper/core/store'`): the names the root
 * still re-exports for one minor version, read from the source rather than restated.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export function deprecatedAtRoot(entry: string): string[] {
  const file = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const marked: string[] = [];
  source.forEachChild(function visit(node) {
    const tag = ts.isExportSpecifier(node) ? ts.getJSDocDeprecatedTag(node) : undefined;
    if (tag !== undefined && String(tag.comment).includes(`'${entry}'`)) marked.push((node as ts.ExportSpecifier).name.text);
    node.forEachChild(visit);
  });
  return marked.sort();
}
