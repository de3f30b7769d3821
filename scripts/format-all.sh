#!/usr/bin/env bash
# Formats the whole tree once with Biome (biome.jsonc at the root), in a commit of its own, so that
# `pnpm lint` (lint + format check) passes from then on. Run it on a clean checkout after every branch
# is merged: `scripts/format-all.sh` (add `--no-commit` to leave the changes staged for review).
# Formatting only: lint findings are not auto-fixed (Biome's unsafe fix for an unused import also
# deletes the file's opening contract comment), so the script stops with the list if any remain.
set -euo pipefail
cd "$(dirname "$0")/.."

commit=true
[ "${1:-}" = "--no-commit" ] && commit=false

if [ -n "$(git status --porcelain)" ]; then
  echo "format-all: the work tree has uncommitted changes; commit or stash them first" >&2
  exit 1
fi

[ -x node_modules/.bin/biome ] || pnpm install --frozen-lockfile
# Biome's formatter is not always idempotent in one pass (a member chain it splits, then joins on the
# next pass), so write until the format check passes, three passes at most.
for pass in 1 2 3; do
  pnpm exec biome format --write . >/dev/null
  if pnpm exec biome format . >/dev/null 2>&1; then break; fi
  [ "$pass" -eq 3 ] && { echo "format-all: the formatter did not settle after 3 passes" >&2; pnpm exec biome format .; exit 1; }
done
git add -A

if $commit && ! git diff --cached --quiet; then
  git commit -q -m "all: format the tree with Biome (formatting only, no code change)"
  echo "format-all: committed $(git show --stat --format= HEAD | tail -1)"
fi

# What is left is lint: real findings to fix by hand.
pnpm exec biome check . || { echo "format-all: formatted, but lint findings remain (above)" >&2; exit 1; }
echo "format-all: pnpm lint passes"
