#!/usr/bin/env bash
# Helpers of the test launcher scripts: a stand-in server that answers /health and /v1/models
# (python3's http.server over a folder), and a record of every pid started, so tests can check
# that none survives the row.
set -euo pipefail

record_pid() { echo "$1" >>"$RESULT_DIR/pids"; }
record_pid $$

start_server() {
  local www="$RESULT_DIR/www-$RESULT_FILENAME"
  mkdir -p "$www/v1"
  echo ok >"$www/health"
  echo '{"object":"list","data":[]}' >"$www/v1/models"
  python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$www" >"$RESULT_DIR/server.log" 2>&1 &
  SERVER_PID=$!
  record_pid "$SERVER_PID"
}

wait_ready() {
  until curl --silent --fail --max-time 2 "http://127.0.0.1:${PORT}/health" >/dev/null; do
    kill -0 "$SERVER_PID" || exit 1
    sleep 0.1
  done
}
