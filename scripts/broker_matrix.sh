#!/usr/bin/env bash
# The broker matrix (issue 30): the smoke suite tests/matrix on each Kafka line users run, one
# broker at a time, each launched from Maven Central by the pytest plugin (ZooKeeper mode for 2.8,
# KRaft from 3.3). Prints each version's duration. Kafka 4.4.0, the default broker, runs tests/matrix
# with the whole suite (scripts/test.sh). docs/compatibility.md is what this run checks.
#
#   bash scripts/broker_matrix.sh                 # 2.8.2 3.5.2 3.9.1 4.0.2 4.3.1
#   bash scripts/broker_matrix.sh 3.7.2 4.1.1     # any other lines, 2.8.x and newer
set -euo pipefail
# .ci/run exports VENV (with the test extras); alone, a virtualenv with test-core is enough.
if [ -z "${VENV:-}" ]; then
  export EXTRAS="${EXTRAS:-test-core}"
fi
source "$(dirname "$0")/_venv.sh"
cd "$root"
versions=("$@")
if [ "${#versions[@]}" -eq 0 ]; then
  versions=(2.8.2 3.5.2 3.9.1 4.0.2 4.3.1)
fi
prefetch=()
for version in "${versions[@]}"; do
  prefetch+=(--kafka-version "$version")
done
"$VENV/bin/staticconsumer" prefetch "${prefetch[@]}"

failed=()
summary=()
for version in "${versions[@]}"; do
  started=$SECONDS
  echo "+ broker matrix: Apache Kafka $version"
  # Apache Kafka's own jars, never a running cluster or a Docker engine: there is no official
  # image before 3.7, and KAFKA_BOOTSTRAP_SERVERS would say nothing of the version under test.
  if env -u KAFKA_BOOTSTRAP_SERVERS DOCKER_HOST=unix:///nonexistent/docker.sock \
    STATICCONSUMER_KAFKA_VERSION="$version" \
    "$VENV/bin/python" -m pytest -q -p no:cacheprovider -m broker_matrix tests/matrix; then
    outcome="passed"
  else
    outcome="FAILED"
    failed+=("$version")
  fi
  line="kafka $version: $outcome in $((SECONDS - started))s"
  echo "+ $line"
  summary+=("$line")
done
printf '%s\n' "broker matrix:" "${summary[@]/#/  }"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "broker matrix failed on Kafka ${failed[*]}" >&2
  exit 1
fi
