#!/usr/bin/env bash
# Installs and starts what Laurel needs on a Debian machine, idempotently.
#   ops/prepare.sh start   -> npm packages + nats-server (npm start uses PGlite unless DATABASE_URL is set)
#   ops/prepare.sh test    -> the above + chromium-headless-shell (browser tests) + a running PostgreSQL with a `laurel` role allowed to create databases
#   ops/prepare.sh cluster -> the above's packages for `npm run cluster`: nats-server, haproxy, PostgreSQL and pg_auto_failover
#                             (`npm run cluster` installs them too when missing; it starts its own servers)
# Only Debian's packages and the npm registry are used.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-start}"

say() { printf '[prepare] %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else say "need root for: $*"; return 1; fi; }

apt_updated=""
apt_install() {
  if [ -z "$apt_updated" ]; then as_root apt-get update -qq >&2; apt_updated=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

ensure_node_modules() {
  # `npm ci` installs exactly the lock file (which lists every platform's optional packages), and
  # only when node_modules is missing or older than the lock. It also brings the Node 24 binary
  # (the `node` package) that every npm script runs on, whatever Node the machine has.
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    say "installing npm packages (npm ci, from package-lock.json)"
    npm ci --no-audit --no-fund --loglevel=error >&2
    touch node_modules/.package-lock.json
  fi
}

ensure_nats_server() {
  if ! command -v nats-server >/dev/null && [ ! -x /usr/sbin/nats-server ]; then
    say "installing Debian's nats-server"
    apt_install nats-server
  fi
}

ensure_chromium() {
  # The browser tests drive Debian's chromium-headless-shell (Chromium's own headless build, the one
  # Playwright drives by default) through playwright-core, never a downloaded browser: the same
  # Blink as the full chromium package, for about 40% less CPU per browser test.
  if [ ! -x /usr/bin/chromium-headless-shell ]; then
    say "installing Debian's chromium-headless-shell (browser tests)"
    apt_install chromium-headless-shell
  fi
}

pg_version() { ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1; }

ensure_postgres() {
  if [ -z "$(pg_version)" ] || ! command -v pg_ctlcluster >/dev/null; then
    say "installing Debian's postgresql"
    apt_install postgresql
  fi
  local v; v="$(pg_version)"
  if ! pg_lsclusters -h 2>/dev/null | awk '{print $1" "$2}' | grep -qx "$v main"; then
    say "creating PostgreSQL $v cluster 'main'"
    as_root pg_createcluster "$v" main >&2
  fi
  if ! pg_lsclusters -h | awk -v v="$v" '$1==v && $2=="main" {print $4}' | grep -q online; then
    say "starting PostgreSQL $v"
    as_root pg_ctlcluster "$v" main start >&2
  fi
  local port; port="$(pg_lsclusters -h | awk -v v="$v" '$1==v && $2=="main" {print $3}')"
  for _ in $(seq 1 50); do pg_isready -q -h 127.0.0.1 -p "$port" && break; sleep 0.2; done
  as_root runuser -u postgres -- psql -q -p "$port" -v ON_ERROR_STOP=1 >&2 <<'SQL'
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'laurel') THEN
    CREATE ROLE laurel LOGIN CREATEDB PASSWORD 'laurel';
  END IF;
END $$;
SQL
  if ! as_root runuser -u postgres -- psql -p "$port" -tAc "select 1 from pg_database where datname='laurel'" | grep -q 1; then
    as_root runuser -u postgres -- createdb -p "$port" -O laurel laurel >&2
  fi
  echo "postgres://laurel:laurel@127.0.0.1:${port}/laurel"
}

ensure_cluster_packages() {
  command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || { say "installing Debian's haproxy"; apt_install haproxy; }
  if [ -z "$(pg_version)" ]; then say "installing Debian's postgresql"; apt_install postgresql; fi
  if ! command -v pg_autoctl >/dev/null; then
    say "installing Debian's postgresql-$(pg_version)-auto-failover (pg_autoctl)"
    apt_install "postgresql-$(pg_version)-auto-failover"
  fi
}

# `npm ci` (the npm registry and a core's worth of unpacking) runs beside Debian's packages and
# PostgreSQL's start (apt's mirror, dpkg): on a fresh machine neither waits for the other.
# A failed step still lets `npm ci` finish (no install left half-written behind a stopped script).
beside_node_modules() {
  ensure_node_modules &
  npm_pid=$!
  trap 'wait "$npm_pid" 2>/dev/null || true' EXIT
  "$@"
  wait "$npm_pid"
  trap - EXIT
}
debian_for_start() { ensure_nats_server; }
debian_for_test() {
  ensure_nats_server
  ensure_chromium
  ensure_postgres
}
debian_for_cluster() {
  ensure_nats_server
  ensure_cluster_packages
}

case "$mode" in
  start) beside_node_modules debian_for_start ;;
  test) beside_node_modules debian_for_test ;;
  postgres) ensure_postgres ;;
  cluster) beside_node_modules debian_for_cluster ;;
  *) say "usage: ops/prepare.sh start|test|postgres|cluster"; exit 2 ;;
esac
