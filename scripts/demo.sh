#!/usr/bin/env bash
# The main job for a newcomer. Extra arguments go to the command it runs.
set -euo pipefail
EXTRAS="${EXTRAS:-test}"
source "$(dirname "$0")/_venv.sh"
cd "$root"
# Until the Streams-like demo lands (issue 6) the main job starts a real local Kafka and prints
# BOOTSTRAP_SERVERS=...; Ctrl-C stops it and removes its data.
exec "$VENV/bin/staticconsumer" local-kafka "$@"
