#!/usr/bin/env bash
# The architecture check (scripts/check-architecture.mjs: no import circle in any package's src, every
# path ARCHITECTURE.md names exists) and the comment-path check (scripts/check-comment-paths.mjs: every
# path a comment in packages/*/src, packages/*/test or knip.jsonc names exists), then packaging checks for every published package (each
# packages/*/ whose package.json is not private, so a new package is covered the day it lands), then
# knip over the workspace. `pnpm check` runs it; so
# does .ci/run. Needs the packages built (it builds them; turbo's cache makes that free after a build).
#   check-pack  npm pack --dry-run holds LICENSE, README.md, package.json and dist/ only, every path
#               package.json names (main, types, exports) is in it, and it unpacks within the package's
#               budget in scripts/size-budgets.json (the script checks itself on fixture packages first)
#   publint     package.json fields agree with the files (--strict: suggestions fail too)
#   attw        @arethetypeswrong/cli on the tarball pnpm would publish (workspace: ranges rewritten):
#               types resolve under node16 from CommonJS, node16 from ESM, and bundler (--profile node16;
#               node10 resolution is not checked: every package needs Node ^20.19.0 || >=22.12.0, for require(esm))
#   manifests   node scripts/check-manifests.mjs (it checks itself on fixtures first): repository,
#               homepage, bugs and keywords in every published package, agreeing with the root
#               package.json's repository URL; peer ranges that hold the version the tests run, bounded
#               above, optional where the package only duck-types the client
#   versions    node scripts/check-versions.mjs: one version for every published package (none 0.0.0),
#               one changesets "fixed" group holding them all
#   readmes     node scripts/check-readmes.mjs: each published README links to MIGRATING.md by its absolute
#               GitHub address, names its peers in Install, and has a Usage code block
#   knip        unused files, exports and dependencies (knip.jsonc)
#   architecture  node scripts/check-architecture.mjs (it checks itself on fixtures first)
#   comment paths node scripts/check-comment-paths.mjs (it checks itself on fixtures first)
# Offline except for what pnpm install already fetched. Exits 1 if any check failed, after running all.
set -uo pipefail
cd "$(dirname "$0")/.."

failed=()
# step runs one check quietly: one line when it passes, its whole output when it fails.
step() {
  local name=$1 out
  shift
  if out=$("$@" 2>&1); then
    echo "ok      $name"
  else
    echo "FAILED  $name"
    printf '%s\n' "$out" | sed 's/^/    /'
    failed+=("$name")
  fi
}

step "architecture" node scripts/check-architecture.mjs
step "comment paths" node scripts/check-comment-paths.mjs

pnpm build --output-logs=errors-only >/dev/null || { echo "check-packages: the build failed"; exit 1; }

tarballs=$(mktemp -d)
trap 'rm -rf "$tarballs"' EXIT

published=()
for dir in packages/*/; do
  dir=${dir%/}
  [ -f "$dir/package.json" ] || continue
  [ "$(node -p "require('./$dir/package.json').private === true" 2>/dev/null)" = "true" ] && continue
  published+=("$dir")
done
echo "check-packages: ${#published[@]} published packages: ${published[*]}"
step "manifests" node scripts/check-manifests.mjs
step "versions" node scripts/check-versions.mjs
step "readmes" node scripts/check-readmes.mjs

attw_on() {
  local dir=$1 tgz
  tgz=$(cd "$dir" && pnpm pack --pack-destination "$tarballs" 2>/dev/null | tail -1) || return 1
  pnpm exec attw --profile node16 --format ascii --no-emoji "$tgz"
}

step "check-pack self-test" node scripts/check-pack.mjs --self-test
for dir in "${published[@]}"; do
  step "check-pack $dir" node scripts/check-pack.mjs "$dir"
  step "publint $dir" bash -c "cd '$dir' && pnpm exec publint --strict"
  step "attw $dir" attw_on "$dir"
done
step "knip" pnpm exec knip

if [ "${#failed[@]}" -gt 0 ]; then
  echo "check-packages: ${#failed[@]} failed: ${failed[*]}"
  exit 1
fi
echo "check-packages: all passed"
