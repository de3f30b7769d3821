/** bunBinary finds Bun's executable from the `bun` devDependency of the package `from` (an import.meta.url) is in (./bun-binary.mjs). */
export function bunBinary(from: string | URL): string | undefined;
