#!/usr/bin/env bash
# The main job for a newcomer: `staticconsumer demo` (a rolling restart of a stateful Streams-like
# app on a real local Kafka, static membership; pass --dynamic to see the same without it).
# Extra arguments go to `staticconsumer demo` (see `staticconsumer demo --help`).
set -euo pipefail
# The spark extra (pyspark, matplotlib) is only used by `--report`; it installs once.
EXTRAS="${EXTRAS:-spark}"
source "$(dirname "$0")/_venv.sh"
cd "$root"
exec "$VENV/bin/staticconsumer" demo "$@"
