#!/usr/bin/env bash
# npm test's first stage, side by side: the build, the linter, the type check, and the pinned
# Artillery installed for the smoke at the end when it is missing (a clean clone: `npm ci` in
# artillery/, network-bound; artillery/lib/env.js). None reads what another writes (Biome and tsc
# leave dist/, scores/*/generated/ and node_modules/ alone), and on two cores tsc's one thread no
# longer waits for Vite and Biome. Each one's output is printed whole, in this order, after all
# of them end; exits non-zero when any failed, naming it.
set -uo pipefail

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
names=(build lint typecheck artillery)
commands=(
  'npm run build'
  'npm run lint'
  'npm run typecheck'
  "node --input-type=module -e \"import { ensureInstalled } from './artillery/lib/env.js'; ensureInstalled();\""
)
pids=()
for i in "${!names[@]}"; do
  bash -c "${commands[$i]}" >"$out/${names[$i]}" 2>&1 &
  pids+=($!)
done

failed=()
for i in "${!names[@]}"; do
  wait "${pids[$i]}" || failed+=("${names[$i]}")
  cat "$out/${names[$i]}"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "npm test: ${failed[*]} failed" >&2
  exit 1
fi
