#!/usr/bin/env bash
# A private PostgreSQL server for the PostgreSQL results store's tests:
#   scripts/pg-test-server.sh start|stop|status
# Everything lives in one folder (INFERMARK_PG_TEST_DIR, /tmp/infermark-pg-test-<uid> by default):
# the cluster (initdb), its log, its unix socket (no TCP: listen_addresses is empty, so nothing
# else on the host can reach it and no port can clash) and the file `url` holding the store URL,
#   postgresql:///infermark?host=<folder>&port=<port>&user=infermark
# which tests read (or INFERMARK_TEST_PG_URL). Authentication is `trust` for the socket only.
# As root the server runs as the `postgres` user (PostgreSQL refuses root); otherwise as the caller.
# start: idempotent; creates the cluster and the database `infermark`, waits until it accepts
# connections, prints the URL. stop: stops the server (fast, then immediate, then the postmaster's
# pid killed), waits for every server process to end, removes the folder. status: prints the URL
# when it is running.
# Exit 0: done. Exit 1: it could not, or `status` found it not running (the message says why).
# Exit 2: bad usage.
set -euo pipefail

DIR="${INFERMARK_PG_TEST_DIR:-${TMPDIR:-/tmp}/infermark-pg-test-$(id -u)}"
PORT="${INFERMARK_PG_TEST_PORT:-5432}"
DATA="$DIR/data"
URL="postgresql:///infermark?host=$DIR&port=$PORT&user=infermark"

say() { echo "pg-test-server: $*"; }
die() {
  echo "pg-test-server: $*" >&2
  exit 1
}

# The newest installed PostgreSQL's server programs (Debian keeps them out of PATH).
bindir() {
  local dir
  dir="$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -type d -name bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then
    echo "$dir"
    return
  fi
  local initdb
  initdb="$(command -v initdb || true)"
  [ -n "$initdb" ] && dirname "$initdb"
}

# Runs a command as the server's owner.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

running() {
  local bin
  bin="$(bindir)" || return 1
  [ -f "$DATA/PG_VERSION" ] && as_owner "$bin/pg_ctl" -D "$DATA" status >/dev/null 2>&1
}

start() {
  local bin
  bin="$(bindir)" || die "PostgreSQL is not installed (no initdb under /usr/lib/postgresql; scripts/setup.sh installs it)"
  if running; then
    echo "$URL" >"$DIR/url"
    say "running: $URL"
    return
  fi
  if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
    die "running as root needs the postgres user (Debian's postgresql package creates it)"
  fi
  rm -rf "$DIR"
  mkdir -p "$DIR"
  chmod 700 "$DIR"
  [ "$(id -u)" -eq 0 ] && chown postgres: "$DIR"
  as_owner "$bin/initdb" -D "$DATA" -U infermark --auth=trust -E UTF8 --locale=C >"$DIR/initdb.log" 2>&1 ||
    die "initdb failed: $(tail -n 5 "$DIR/initdb.log")"
  as_owner "$bin/pg_ctl" -D "$DATA" -l "$DIR/server.log" -w -t 60 \
    -o "-c listen_addresses='' -k $DIR -p $PORT -c fsync=off -c max_connections=50" start >/dev/null ||
    die "the server did not start: $(tail -n 5 "$DIR/server.log")"
  as_owner "$bin/psql" -h "$DIR" -p "$PORT" -U infermark -d postgres -q -v ON_ERROR_STOP=1 \
    -c "CREATE DATABASE infermark" >/dev/null || die "cannot create the database"
  echo "$URL" >"$DIR/url"
  [ "$(id -u)" -eq 0 ] && chmod 755 "$DIR" && chmod 644 "$DIR/url"
  say "running: $URL"
}

stop() {
  [ -d "$DIR" ] || {
    say "not running"
    return
  }
  local bin pid=""
  bin="$(bindir)" || true
  [ -f "$DATA/postmaster.pid" ] && pid="$(head -n 1 "$DATA/postmaster.pid")"
  if [ -n "$bin" ] && [ -f "$DATA/PG_VERSION" ]; then
    as_owner "$bin/pg_ctl" -D "$DATA" -m fast -w -t 30 stop >/dev/null 2>&1 ||
      as_owner "$bin/pg_ctl" -D "$DATA" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
  fi
  # The postmaster's children end with it; whatever is left of it is killed.
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
  fi
  local waited=0
  while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 50 ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  rm -rf "$DIR"
  say "stopped"
}

status() {
  running || die "not running (start it: scripts/pg-test-server.sh start)"
  echo "$URL"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
