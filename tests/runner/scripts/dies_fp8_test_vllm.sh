#!/usr/bin/env bash
# Dies mid-run: the server becomes ready, then is killed while the client runs; the client
# fails and the script exits 1 without a result, leaving a stray background process behind.
source "$(dirname "$0")/lib.sh"
start_server
wait_ready
sleep 1000 &
record_pid $!
( sleep 0.5; kill -9 "$SERVER_PID" ) &
while curl --silent --fail --max-time 2 "http://127.0.0.1:${PORT}/health" >/dev/null; do sleep 0.1; done
echo "client: server connection refused" >&2
exit 1
