#!/usr/bin/env bash
# Hangs at start-up: its "server" never listens; a helper process runs beside it.
source "$(dirname "$0")/lib.sh"
sleep 1000 &
record_pid $!
echo "Loading weights..." >"$RESULT_DIR/server.log"
sleep 1000 &
record_pid $!
wait
