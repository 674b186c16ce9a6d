#!/usr/bin/env bash
# npm test's first stage: the build, the linter and the type check side by side. None reads what
# another writes (Biome and tsc leave dist/ and scores/*/generated/ alone), and on two cores tsc's
# one thread no longer waits for Vite and Biome. Each one's output is printed whole, in this order,
# after all three end; exits non-zero when any failed, naming it.
set -uo pipefail

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
steps=(build lint typecheck)
pids=()
for step in "${steps[@]}"; do
  npm run "$step" >"$out/$step" 2>&1 &
  pids+=($!)
done

failed=()
for i in "${!steps[@]}"; do
  wait "${pids[$i]}" || failed+=("${steps[$i]}")
  cat "$out/${steps[$i]}"
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "npm test: npm run ${failed[*]} failed" >&2
  exit 1
fi
