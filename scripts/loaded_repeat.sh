#!/usr/bin/env bash
# Issue 52, item 4: the faust and FastStream broker tests, run ROUNDS times in a row with the
# machine loaded (HOGS busy processes beside them, one per core by default), each round bounded
# in time. Prints each round's pytest summary and duration, then the counts: rounds passed,
# failed and hung (a round over ROUND_TIMEOUT_S is a hang: timeout kills it). Extra arguments
# go to pytest (default: the tests below).
#   ROUNDS=5 bash scripts/loaded_repeat.sh
set -euo pipefail
source "$(dirname "$0")/_venv.sh"
cd "$root"
rounds="${ROUNDS:-5}"
hogs="${HOGS:-$(nproc)}"
round_timeout="${ROUND_TIMEOUT_S:-1200}"
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
  tests=(tests/faust/test_worker_broker.py tests/faststream/test_service_broker.py
         tests/faststream/test_workers_broker.py)
fi
hog_pids=()
stop_hogs() { [ ${#hog_pids[@]} -eq 0 ] || kill "${hog_pids[@]}" 2>/dev/null || true; }
trap stop_hogs EXIT
for _ in $(seq "$hogs"); do
  "$VENV/bin/python" -c 'while True: pass' &
  hog_pids+=($!)
done
echo "loaded: $hogs busy processes beside the tests; $rounds rounds of: ${tests[*]}"
passed=0 failed=0 hung=0
for round in $(seq "$rounds"); do
  started=$SECONDS
  out="$(mktemp)"
  set +e
  timeout --kill-after=30 "$round_timeout" "$VENV/bin/python" -m pytest -q \
    -p no:cacheprovider "${tests[@]}" >"$out" 2>&1
  code=$?
  set -e
  summary=$(tail -1 "$out")
  if [ "$code" -ne 0 ]; then  # what failed, and why: the end of each failure's report
    grep -E "^(FAILED|ERROR)|^E  " "$out" | head -40 || true
  fi
  rm -f "$out"
  if [ "$code" -eq 0 ]; then passed=$((passed + 1));
  elif [ "$code" -eq 124 ] || [ "$code" -eq 137 ]; then hung=$((hung + 1)); summary="HUNG ($summary)";
  else failed=$((failed + 1)); fi
  echo "round $round: $summary [$((SECONDS - started)) s]"
done
echo "rounds: $rounds; passed $passed, failed $failed, hung $hung"
[ "$failed" -eq 0 ] && [ "$hung" -eq 0 ]
