#!/usr/bin/env bash
# `npm test`: installs what is missing and prepares PostgreSQL and nats-server, checks types and lint
# (failing fast), then runs every tap test against them (or the test files given as arguments).
# Tests make their own databases (laurel_test_*, copies of a migrated template laurel_tmpl_*) and start
# their own nats-server processes; tap runs five files at a time (.taprc).
set -euo pipefail
cd "$(dirname "$0")/.."
url="$(bash ops/prepare.sh test | tail -1)"
# npm puts node_modules/.bin first on the PATH, so `node` is the Node 24 the project brings.
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 24 ]; then
  echo "Node $(node -v) on the PATH; run the tests with npm test, which brings Node 24" >&2
  exit 1
fi
echo "[test] Node $(node -v): typecheck, lint, then tap" >&2
npm run -s typecheck
npm run -s lint
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-$url}"
exec npx tap "$@"
