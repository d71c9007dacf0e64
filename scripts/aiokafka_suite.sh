#!/usr/bin/env bash
# aiokafka's own consumer tests with StaticConsumer swapped in for AIOKafkaConsumer (issue 28's
# "drop-in" reference), against the broker the staticconsumer pytest plugin starts.
#
#   bash scripts/aiokafka_suite.sh PATH_TO_AIOKAFKA_CHECKOUT [--plain | --without-intended]
#       [pytest args...]
#
# PATH_TO_AIOKAFKA_CHECKOUT: a checkout of aio-libs/aiokafka at the installed version, or a git
# directory holding its tag (v0.14.0 for aiokafka 0.14.0: the tests are taken from the tag of
# the aiokafka in $VENV, so VENV=.ci-venv-aiokafka-0.12-py3.12 runs v0.12.0's); its sdist does not ship the tests (.ci/run runs this when it finds one). Its
# tests/ are copied to a temporary folder with our conftest.py (scripts/aiokafka_suite/
# conftest.py) in place of theirs, which needs Docker.
# --plain runs them on AIOKafkaConsumer itself, for the side-by-side count. --without-intended
# deselects the tests that fail with StaticConsumer by design, listed with their reasons in
# scripts/aiokafka_suite/intended_differences.txt (those of the record path in force: "kept",
# the kept-buffer fetch path, by default with aiokafka 0.14; "compiled" with
# STATICCONSUMER_KEPT_FETCH=0 or aiokafka 0.12/0.13; STATICCONSUMER_PURE_RECORDS=1 aiokafka's
# own, "pure"), and prints them. AIOKAFKA_TESTS picks
# other files of theirs (default: the three consumer files), e.g. the producer and admin tests
# that read back through a consumer: AIOKAFKA_TESTS="tests/test_producer.py tests/test_admin.py".
# Tests that reach into the private consumer._coordinator are expected to fail with StaticConsumer
# (its coordinator is ours by design): test_kafka_consumer_sets_coordinator_values,
# test_consumer_propagates_{coordinator,heartbeat,commit_refresh}_errors and
# test_rebalance_listener_with_coroutines (it asserts on _rejoin_needed_fut). The SSL, SASL and
# Kerberos tests need aiokafka's Docker image and fail here for both classes.
set -euo pipefail
source "$(dirname "$0")/_venv.sh"
checkout="${1:?usage: aiokafka_suite.sh PATH_TO_AIOKAFKA_CHECKOUT [--plain] [pytest args...]}"
shift
swap=1
deselect=()
if [ "${1:-}" = "--plain" ]; then swap=0; shift
elif [ "${1:-}" = "--without-intended" ]; then
  shift
  # the path the consumers will run: the package's own answer (the extension, the variable)
  path=$("$VENV/bin/python" -c 'from staticconsumer._compat import fetch as r
print("kept" if r.kept_fetch() else r.record_path())')
  echo "aiokafka's tests that fail by design (record path: $path), not run:"
  while read -r node paths reason; do
    case "$node" in ''|'#'*) continue ;; esac
    if [ "$paths" = both ] || [[ ",$paths," == *",$path,"* ]]; then
      deselect+=(--deselect "$node")
      echo "  ${node##*::}: $reason"
    fi
  done < "$root/scripts/aiokafka_suite/intended_differences.txt"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -d "$checkout/tests" ]; then
  cp -r "$checkout/tests" "$work/tests"
else  # a git directory (a bare mirror): the tests of the installed aiokafka's tag
  tag=v$("$VENV/bin/python" -c 'import aiokafka; print(aiokafka.__version__)')
  git --git-dir="$checkout" archive "$tag" tests | tar -x -C "$work"
fi
cp "$root/scripts/aiokafka_suite/conftest.py" "$work/tests/conftest.py"
cd "$work"
files="${AIOKAFKA_TESTS:-tests/test_consumer.py tests/test_pep492.py tests/test_transactional_consumer.py}"
# shellcheck disable=SC2086
SWAP=$swap "$VENV/bin/python" -m pytest -p no:cacheprovider -q --timeout 90 $files \
  ${deselect[@]+"${deselect[@]}"} "$@"
