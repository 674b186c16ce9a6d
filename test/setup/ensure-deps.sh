#!/usr/bin/env bash
# Installs what the test suite needs when it is missing: Debian's Chromium for Playwright
# (Playwright cannot download its own browser here), and redis-server and nginx for the cluster
# tests (test/server/cluster/*.test.js; README, "Several machines"). Run by `npm test`;
# idempotent and quiet.
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
# nginx is in /usr/sbin, which a user's PATH may not hold.
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx)

if [ ${#need[@]} -gt 0 ]; then
  echo "test setup: installing ${need[*]} from Debian's packages" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
