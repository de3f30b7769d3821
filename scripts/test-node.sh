#!/usr/bin/env bash
# The suites that depend on the runtime, on the Node versions users run beside the installed one:
# Node 22 and 24, the official builds from the npm registry's `node` package (`npx -y node@24`).
# What runs: core (the clock, the memory store, the adapters' shared path), every HTTP adapter on its
# real framework, and the SQLite store on node:sqlite (the workspace's better-sqlite3 addon is built
# for the installed Node, so 'auto' takes node:sqlite here): its api test and its whole contract
# suite, 8-process bursts included. The stores' server suites do not depend on
# the Node version beyond what these cover, and run once, on the installed Node, in `pnpm test`.
# Needs a build (`pnpm build`). Usage: scripts/test-node.sh [version ...] (default: 22 24).
set -euo pipefail
cd "$(dirname "$0")/.."
versions=("$@")
[ "${#versions[@]}" -gt 0 ] || versions=(22 24)
packages=(core express fastify koa fetch hono sqlite)
failed=()
for version in "${versions[@]}"; do
  node_bin=$(npx -y "node@$version" -p process.execPath)
  echo "test-node: Node $("$node_bin" --version) ($node_bin)"
  for pkg in "${packages[@]}"; do
    echo "test-node: $pkg on Node $version"
    # The rest of SQLite's files break better-sqlite3 on purpose (a write that never finishes, a file
    # moved under it) or run Bun: driver-specific, they run in `pnpm test`.
    files=()
    [ "$pkg" = sqlite ] && files=(test/api.test.ts test/store-contract.test.ts)
    (cd "packages/$pkg" && PATH="$(dirname "$node_bin"):$PATH" "$node_bin" ../../node_modules/vitest/vitest.mjs run "${files[@]}") || failed+=("$pkg on Node $version")
  done
done
if [ "${#failed[@]}" -gt 0 ]; then
  printf 'test-node: failed: %s\n' "${failed[@]}"
  exit 1
fi
