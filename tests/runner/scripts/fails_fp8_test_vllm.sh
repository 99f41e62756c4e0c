#!/usr/bin/env bash
# Fails at start, as a server with a bad flag does.
source "$(dirname "$0")/lib.sh"
echo "error: unrecognized arguments: --bogus-flag" >&2
exit 3
