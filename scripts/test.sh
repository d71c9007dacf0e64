#!/usr/bin/env bash
# Run the whole test suite against a real Apache Kafka (started by the pytest plugin; see README).
# Extra arguments go to pytest, e.g. `bash scripts/test.sh tests/assignors -x`.
set -euo pipefail
source "$(dirname "$0")/_venv.sh"
cd "$root"
# Warm the jar cache first (Kafka broker, Kafka 3.9 for the compatibility test, kafka-clients for
# the Java peers, kafka-tools for kafka-streams-groups.sh), so that no test downloads anything. A
# second run finds them cached.
"$VENV/bin/staticconsumer" prefetch --kafka-version 4.4.0 --kafka-version 3.9.1 \
  --artifact org.apache.kafka:kafka-clients:4.4.0 \
  --artifact org.apache.kafka:kafka-tools:4.4.0 \
  --artifact "org.apache.spark:spark-sql-kafka-0-10_2.13:$("$VENV/bin/python" -c 'import pyspark; print(pyspark.__version__)')"
set +e
# --durations: the slowest tests, named in every run (CI keeps its time budget with them)
"$VENV/bin/python" -m pytest -ra --durations=25 "$@"
code=$?
set -e
if [ "$code" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure here" >&2
  exit 1
fi
exit "$code"
