#!/usr/bin/env bash
# `npm test`: installs what is missing and prepares PostgreSQL and nats-server, then checks types
# and lint beside the tap tests (or the test files given as arguments): a failed check stops the
# tests and fails the run.
# Tests make their own databases (laurel_test_*, copies of a migrated template laurel_tmpl_*) and start
# their own nats-server processes; tap runs seven files at a time (.taprc).
set -euo pipefail
cd "$(dirname "$0")/.."
url="$(bash ops/prepare.sh test | tail -1)"
# npm puts node_modules/.bin first on the PATH, so `node` is the Node 24 the project brings.
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 24 ]; then
  echo "Node $(node -v) on the PATH; run the tests with npm test, which brings Node 24" >&2
  exit 1
fi
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-$url}"
# Every process of the run (test files, the servers, workers and CLIs they start) loads the same
# modules; Node's compile cache compiles each once for all of them.
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$PWD/node_modules/.cache/laurel-compile}"

# The checks run beside the tests, whose first files (test/alone) mostly wait on timers.
checks_log="$(mktemp)"
trap 'rm -f "$checks_log"' EXIT
(npm run -s typecheck && npm run -s lint) >"$checks_log" 2>&1 &
checks=$!
echo "[test] Node $(node -v): typecheck and lint beside tap" >&2
# tap queues each test file once a stat of it returns, and a file of a serial folder (test/alone)
# waits for every file queued before it and holds back every file after it. With libuv's four
# threads those stats can return out of order, and test/alone then waits behind the cluster soaks'
# minutes of timers with the machine nearly idle. One thread returns them in file order. The test
# processes get libuv's default back (.taprc, test-env).
UV_THREADPOOL_SIZE=1 tap "$@" &
tests=$!
if ! wait "$checks"; then
  kill "$tests" 2>/dev/null || true
  wait "$tests" 2>/dev/null || true
  cat "$checks_log" >&2
  echo "[test] typecheck or lint failed (above): the tests were stopped" >&2
  exit 1
fi
echo "[test] typecheck and lint passed" >&2
wait "$tests"
