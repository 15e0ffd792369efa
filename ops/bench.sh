#!/usr/bin/env bash
# `npm run bench`: prepares PostgreSQL (a fresh `laurel_bench` database) and a nats-server of its
# own, then runs every benchmark (BENCH_ONLY="badges webhooks" picks some): ops/bench/run.ts,
# badges.ts, webhooks.ts (which makes its own database and nats-server), lists.ts
# (list filters and the badge feed; prints its figures, writes no docs), web.ts
# (the public badge page against bare node:http; prints its figures only), idle.ts (npm start's
# CPU while idle and an API process's memory after start; prints its figures), console.ts (the
# console's webhook delivery log over 100,000 deliveries; prints its figures), dashboard.ts (the
# console's dashboard of an organization with 1,000,000 badges; prints its figures), employees.ts
# (employee lists and the CSV import; prints its figures), limits.ts
# (request limits on and off side by side), replication.ts (R1 against R3 streams on a three-node
# local cluster), scale.ts (relay poll, idle relay, /metrics figures and a filtered walk over
# 1,000,000 organizations and badges; prints its figures), pathways.ts (an acceptance's cost with
# pathways naming its template against none; prints its figures), real.ts (varied list reads, the
# webhook drain at its floor and 200 destinations with slow and dead ones; ends with a JSON line). Each full
# run writes its section of docs/benchmarks.md. About 5 minutes in all on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
# A benchmark shares the machine with nothing: a neighbour on 2 cores halves a figure. The 1-minute
# load average is printed before and after, and a busy machine is refused (BENCH_FORCE=1 runs anyway).
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "== load average before: $load_before"
if [ "${BENCH_FORCE:-0}" != 1 ] && awk -v l="${load_before%% *}" 'BEGIN { exit !(l > 1.0) }'; then
  echo "the 1-minute load average is ${load_before%% *} (above 1.0): something else is running. Stop it and wait, or set BENCH_FORCE=1." >&2
  exit 2
fi
report_load() { echo "== load average after: $(cut -d' ' -f1-3 /proc/loadavg) (before: $load_before)"; }
trap report_load EXIT
admin_url="$(bash ops/prepare.sh test | tail -1)"
port="$(sed -nE 's#.*:([0-9]+)/.*#\1#p' <<<"$admin_url")"
runuser -u postgres -- psql -q -p "$port" -c "drop database if exists laurel_bench with (force)" -c "create database laurel_bench owner laurel" >/dev/null
export DATABASE_URL="${admin_url%/*}/laurel_bench"
store="$(mktemp -d)"
nats_port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
nats-server -js -sd "$store" -a 127.0.0.1 -p "$nats_port" >/dev/null 2>&1 &
nats_pid=$!
trap 'kill $nats_pid 2>/dev/null; wait $nats_pid 2>/dev/null || true; rm -rf "$store"; report_load' EXIT
for _ in $(seq 1 50); do (echo > "/dev/tcp/127.0.0.1/$nats_port") 2>/dev/null && break; sleep 0.1; done
export NATS_URL="nats://127.0.0.1:$nats_port"
# Laurel's processes run what `npm start` runs: the JavaScript built in dist/.
bash ops/build.sh
export LAUREL_DIST=1
# A benchmark that misses a target exits non-zero; the others still run, and the run says which.
missed=""
for bench in ${BENCH_ONLY:-run badges webhooks lists web idle console dashboard employees imports limits replication scale pathways real}; do
  echo "== ops/bench/$bench.ts"
  node "ops/bench/$bench.ts" || missed="$missed $bench"
done
if [ -n "$missed" ]; then
  echo "== exited non-zero:$missed" >&2
  exit 1
fi
