#!/usr/bin/env bash
# Creates (once) bench/peers/.venv: Relate with its pinned dependencies plus the pinned peer systems
# of requirements.txt. A separate venv keeps the peers' transitive pins out of Relate's dev venv.
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=bench/peers/.venv
STAMP=$VENV/.installed
BASE=$(.venv/bin/python -c 'import sys; print(sys._base_executable)')
# Reinstall only when the pins changed.
WANT=$(cat pyproject.toml setup.py bench/peers/requirements.txt | sha256sum | cut -d' ' -f1)
if [[ -f $STAMP && $(cat "$STAMP") == "$WANT" ]]; then exit 0; fi
test -x $VENV/bin/python || "$BASE" -m venv $VENV
$VENV/bin/python -m pip install -q --upgrade pip
$VENV/bin/python -m pip install -q -e . -r bench/peers/requirements.txt pytest==9.2.0 pytest-timeout==2.4.0
$VENV/bin/python -m pip check
echo "$WANT" > "$STAMP"
