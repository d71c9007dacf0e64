#!/usr/bin/env bash
# FastStream's own Kafka tests (tests/brokers/kafka, marker "kafka": 425 tests at FastStream's
# main, 2026-08) with StaticKafkaBroker swapped in for faststream.kafka.KafkaBroker, against the
# broker the staticconsumer pytest plugin starts (docs/faststream.md, "FastStream's own tests").
#
#   flock /tmp/staticconsumer-broker.lock \
#     bash scripts/faststream_suite.sh PATH_TO_FASTSTREAM [--plain | --without-intended] \
#       [pytest args...]
#
# PATH_TO_FASTSTREAM: a checkout of ag2ai/faststream, or a git directory holding it (a bare
# mirror: its FASTSTREAM_REF, default HEAD, is taken). Its tests/ and pyproject.toml (their
# pytest settings) are copied to a temporary folder with scripts/faststream_suite/conftest.py
# beside them: it swaps the broker class (SWAP=1; --plain runs FastStream's own KafkaBroker for
# the side-by-side count), sets the base instance id, and relays localhost:9092, where
# FastStream's tests look for Kafka, to our broker (the port must be free). --without-intended
# deselects, and prints, the tests that fail by design (scripts/faststream_suite/
# intended_differences.txt, with why). The tests run in
# their own virtualenv (VENV, default .ci-venv-faststream: staticconsumer[test-core,faststream]
# and FastStream's test dependencies), the FastStream the faststream extra pins (0.7.x).
# SESSION_TIMEOUT_MS=6000 gives every swapped-in subscriber that session (the remedy
# docs/faststream.md gives for tests that reuse a group id). Prints pytest's summary (-rfEx
# lists what failed and what is expected to). Takes about 10 minutes swapped (the 45 s waits of
# the group ids FastStream's tests reuse), 2 with --plain or SESSION_TIMEOUT_MS=6000.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${VENV:-$root/.ci-venv-faststream}"
EXTRAS="test-core,faststream"
source "$root/scripts/_venv.sh"
stamp="$VENV/.faststream-suite-deps"
if [ ! -f "$stamp" ]; then
  "$VENV/bin/python" -m pip install --quiet "faststream[kafka,cli,nats,rabbit]>=0.7,<0.8" \
    dirty-equals pytest-rerunfailures freezegun fastapi httpx >&2
  touch "$stamp"
fi
checkout="${1:?usage: faststream_suite.sh PATH_TO_FASTSTREAM [--plain] [pytest args...]}"
shift
swap=1
deselect=()
if [ "${1:-}" = "--plain" ]; then swap=0; shift
elif [ "${1:-}" = "--without-intended" ]; then
  shift
  echo "FastStream's tests that fail with StaticKafkaBroker by design, not run:"
  while read -r node reason; do
    case "$node" in ''|'#'*) continue ;; esac
    deselect+=(--deselect "$node")
    echo "  ${node##*::}: $reason"
  done < "$root/scripts/faststream_suite/intended_differences.txt"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -d "$checkout/tests" ]; then
  cp -r "$checkout/tests" "$checkout/pyproject.toml" "$work/"
else
  git --git-dir="$checkout" archive "${FASTSTREAM_REF:-HEAD}" tests pyproject.toml | tar -x -C "$work"
fi
cp "$root/scripts/faststream_suite/conftest.py" "$work/conftest.py"
cd "$work"
echo "FastStream $("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("faststream"))'),"\
  "tests of $(git --git-dir="$checkout" rev-parse --short "${FASTSTREAM_REF:-HEAD}" 2>/dev/null \
  || echo "$checkout"), StaticKafkaBroker swapped in: $([ $swap = 1 ] && echo yes || echo no)"
# (their pytest settings already ask for -q)
SWAP=$swap "$VENV/bin/python" -m pytest -p no:cacheprovider -rfEx tests/brokers/kafka -m kafka \
  ${deselect[@]+"${deselect[@]}"} "$@"
