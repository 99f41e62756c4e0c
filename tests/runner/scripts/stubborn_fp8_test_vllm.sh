#!/usr/bin/env bash
# Ignores SIGTERM (so only SIGKILL ends it) and never becomes ready.
source "$(dirname "$0")/lib.sh"
trap '' TERM
sleep 1000 &
record_pid $!
while true; do sleep 0.2; done
