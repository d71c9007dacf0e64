# Sourced by the scripts: make (or reuse) a virtualenv with the project installed.
# VENV picks the directory (default .venv at the repository root); EXTRAS the pip extras (docs:
# tests/docs builds the site).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$root/.venv}"
EXTRAS="${EXTRAS:-test,dev,docs}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "creating virtualenv $VENV" >&2
  python3 -m venv "$VENV"
fi
stamp="$VENV/.staticconsumer-installed-$EXTRAS"
if [ ! -f "$stamp" ] || [ "$root/pyproject.toml" -nt "$stamp" ]; then
  echo "installing staticconsumer[$EXTRAS] into $VENV" >&2
  "$VENV/bin/python" -m pip install --quiet --upgrade pip >&2
  "$VENV/bin/python" -m pip install --quiet -e "$root[$EXTRAS]" >&2
  touch "$stamp"
fi
