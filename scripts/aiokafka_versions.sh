#!/usr/bin/env bash
# The aiokafka releases besides the newest (issue 42): for each, a venv of a Python that release
# supports with the project and that aiokafka, then the broker-free suite, the conformance suite
# and a broker smoke test (KIP-345's worked example) on it. Prints each step's duration.
#
#   bash scripts/aiokafka_versions.sh                  # aiokafka 0.12 on 3.12, 0.13 on 3.13
#   bash scripts/aiokafka_versions.sh 0.13:3.12 ...    # other RELEASE:PYTHON pairs
#
# Pythons come from pyenv (as .ci/run's 3.12 and 3.13 steps); aiokafka 0.12 supports 3.9-3.13,
# 0.13 and 0.14 3.10-3.14 (their classifiers), staticconsumer 3.11 and newer. A venv
# (.ci-venv-aiokafka-RELEASE-pyPYTHON) is reused while its stamp matches: the Python, the
# aiokafka release, pyproject.toml and the compiled record path's sources; else it is made anew.
# The broker-free list is .ci/run's (one list); the broker is the one the pytest plugin starts.
# LOCK=/tmp/staticconsumer-broker.lock serializes the pytest runs on that lock file (a shared
# machine); unset, nothing is locked (CI), and the releases' broker-free runs go side by side
# (one core each: about 2.5 minutes for both instead of 5 on the 2-core CI machine).
# STATICCONSUMER_REQUIRE_COMPILED=1 (the default here, as in .ci/run): the compiled record path
# must be built on each release, or tests/compat/fetch/test_seam.py fails.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export STATICCONSUMER_REQUIRE_COMPILED="${STATICCONSUMER_REQUIRE_COMPILED:-1}"
pairs=("$@")
[ ${#pairs[@]} -gt 0 ] || pairs=(0.12:3.12 0.13:3.13)

broker_free_tests=$(sed -n 's/^broker_free_tests="\(.*\)"$/\1/p' .ci/run)
if [ -z "$broker_free_tests" ]; then
  echo ".ci/run has no broker_free_tests=\"...\" line" >&2
  exit 1
fi
smoke="tests/integration/test_static_membership.py::test_kip345_worked_example_restart_keeps_partitions_and_generation"

started=$SECONDS
step_started=$SECONDS
step() {
  echo "+ [$((SECONDS - started))s] $* (previous step: $((SECONDS - step_started))s)"
  step_started=$SECONDS
}
locked() {
  if [ -n "${LOCK:-}" ]; then flock "$LOCK" "$@"; else "$@"; fi
}

stamp_of() {  # the venv's wanted state: Python, aiokafka release, what the install builds from
  local python_bin=$1 release=$2
  {
    "$python_bin" -VV
    echo "aiokafka $release"
    sha256sum pyproject.toml staticconsumer/_compat/fetch/_records.pyx \
      staticconsumer/_compat/fetch/_crc32c.h
  } | sha256sum | cut -c1-32
}

failed=()
venvs=()
for pair in "${pairs[@]}"; do
  release=${pair%%:*}
  python=${pair#*:}
  python_bin=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$python".*/bin/python 2>/dev/null \
    | sort -V | tail -1 || true)
  if [ -z "$python_bin" ]; then
    echo "Python $python is not installed (pyenv): aiokafka $release needs it here" >&2
    exit 1
  fi
  venv="$root/.ci-venv-aiokafka-$release-py$python"
  venvs+=("$venv")
  stamp=$(stamp_of "$python_bin" "$release")
  step "aiokafka $release on Python $python: venv"
  # reused only if the stamp matches and the compiled path still imports (an editable install
  # builds it into the worktree, which a clean checkout does not keep)
  if [ "$(cat "$venv/.aiokafka-stamp" 2>/dev/null)" = "$stamp" ] \
      && "$venv/bin/python" -c 'import staticconsumer._compat.fetch._records' 2>/dev/null; then
    echo "  reusing $venv"
  else
    rm -rf "$venv"
    "$python_bin" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip
    "$venv/bin/python" -m pip install --quiet -e ".[test-core]" "aiokafka[lz4,snappy,zstd]==$release.*"
    echo "$stamp" >"$venv/.aiokafka-stamp"
  fi
  "$venv/bin/python" -c 'import aiokafka, sys
from staticconsumer._compat import features, fetch as records
print(f"  aiokafka {aiokafka.__version__}, Python {sys.version.split()[0]}, record path "
      f"{records.record_path()}, refused arguments: {sorted(features.LACKING_ARGUMENTS) or None}")'
done

# The broker-free runs, one per release: side by side when nothing is locked (CI: each is one
# process on one core, and they start no broker of note), one after the other under LOCK. Each
# run's output is printed whole, in order, when it ends.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
step "broker-free tests: ${pairs[*]}"
for i in "${!pairs[@]}"; do
  (
    set +e
    # shellcheck disable=SC2086
    locked "${venvs[i]}/bin/python" -m pytest -q -p no:cacheprovider -m "not java" \
      $broker_free_tests >"$logs/$i.log" 2>&1
    echo $? >"$logs/$i.status"
  ) &
  [ -z "${LOCK:-}" ] || wait
done
wait
for i in "${!pairs[@]}"; do
  echo "  aiokafka ${pairs[i]%%:*} on Python ${pairs[i]#*:}:"
  if [ "$(cat "$logs/$i.status")" = 0 ]; then
    grep -E "[0-9]+ passed" "$logs/$i.log" | tail -1 | sed 's/^/    /'
  else
    cat "$logs/$i.log"
    failed+=("aiokafka ${pairs[i]%%:*}: broker-free tests")
  fi
done

for i in "${!pairs[@]}"; do
  release=${pairs[i]%%:*}
  step "aiokafka $release on Python ${pairs[i]#*:}: conformance suite and broker smoke test"
  locked "${venvs[i]}/bin/python" -m pytest -q -p no:cacheprovider tests/conformance "$smoke" \
    || failed+=("aiokafka $release: conformance suite and smoke test")
done
step "done"
echo "aiokafka releases took $((SECONDS - started))s"
if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
