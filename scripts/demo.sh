#!/usr/bin/env bash
# The main job on a fresh machine: install ncpgym (and Gymnasium for its humanoid.xml)
# and run the current end-to-end demo.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
$PY -m pip install -q --disable-pip-version-check . gymnasium
(cd /tmp && $PY -m ncpgym.demo "$@")
