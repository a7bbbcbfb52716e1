#!/usr/bin/env bash
# Every test against the newest releases of ncpgym's dependencies (no scheduled job runs
# here: run it by hand, e.g. before regenerating constraints.txt): a fresh virtual environment
# in .venv-latest, the build requirements and the test extras at their newest versions (no
# constraints.txt), its own build folder (build/latest), then ctest and pytest as
# scripts/test.sh runs them. When it passes, `python scripts/lock.py` in that environment
# writes the new pins. A golden-trajectory failure naming a new build (another Eigen) wants
# `python tests/python/golden_trajectories.py --write` there.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=${VENV:-.venv-latest}
$PY -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip
"$VENV/bin/python" -m pip install -q --upgrade "scikit-build-core>=0.10" "pybind11>=2.12" "cmeel-eigen>=3.4" ninja setuptools wheel
TESTS=OFF
[ -f /usr/include/gtest/gtest.h ] && TESTS=ON
"$VENV/bin/python" -m pip install -q --upgrade --upgrade-strategy eager --no-build-isolation \
  -Cbuild-dir=build/latest -Ccmake.define.NCPGYM_BUILD_TESTS=$TESTS ".[test]"
"$VENV/bin/python" -m pip list --format=freeze | grep -iE "^(numpy|mujoco|gymnasium|torch|ray|cmeel-eigen|scipy)=" || true
[ "$TESTS" = ON ] && ctest --test-dir build/latest --output-on-failure -j2
(cd tests/python && "../../$VENV/bin/python" -m pytest -q -p no:cacheprovider "$@")
