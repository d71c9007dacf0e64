#!/usr/bin/env bash
# The main job for a newcomer: `staticconsumer demo` (a rolling restart of a stateful Streams-like
# app on a real local Kafka, static membership; pass --dynamic to see the same without it).
# Extra arguments go to `staticconsumer demo` (see `staticconsumer demo --help`).
set -euo pipefail
# The spark extra (pyspark, matplotlib) is only used by `--report`; the docker extra
# (testcontainers) lets the demo start Kafka in a container where there is Docker but no Java.
# Both install once.
EXTRAS="${EXTRAS:-spark,docker}"
source "$(dirname "$0")/_venv.sh"
cd "$root"
exec "$VENV/bin/staticconsumer" demo "$@"
