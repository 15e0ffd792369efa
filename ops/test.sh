#!/usr/bin/env bash
# `npm test`: prepares PostgreSQL and nats-server, then runs every tap test against them.
# Tests make their own databases (laurel_test_*) and start their own nats-server processes.
set -euo pipefail
cd "$(dirname "$0")/.."
url="$(bash ops/prepare.sh test | tail -1)"
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-$url}"
exec npx tap "$@"
