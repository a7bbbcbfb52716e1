#!/usr/bin/env bash
# The one build both README commands share: `bash scripts/install.sh EXTRAS` installs the
# Python build requirements and then ncpgym with those extras (test, train, ...) from the
# persistent build folder build/ncpgym (ccache-accelerated when present), with the C++
# GoogleTest suite when GoogleTest is installed, every dependency at the version in
# constraints.txt (the versions this project is tested with: scripts/lock.py;
# NCPGYM_CONSTRAINTS=none installs without them). scripts/test.sh and scripts/train.sh both
# call it, so whichever runs second finds the core compiled and only packages it.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
EXTRAS=${1:?usage: scripts/install.sh EXTRAS (e.g. test or train)}
PIN=(-c constraints.txt)
[ "${NCPGYM_CONSTRAINTS:-}" = none ] && PIN=()
TESTS=OFF
[ -f /usr/include/gtest/gtest.h ] && TESTS=ON
# (setuptools and wheel build sdists among the test requirements, e.g. rtb-data, in this
# same environment: the build below reuses it, no isolated environment)
$PY -m pip install -q --disable-pip-version-check "${PIN[@]}" "scikit-build-core>=0.10" "pybind11>=2.12" "cmeel-eigen>=3.4" ninja \
  setuptools wheel
$PY -m pip install -q --disable-pip-version-check --no-build-isolation "${PIN[@]}" \
  -Cbuild-dir=build/ncpgym -Ccmake.define.NCPGYM_BUILD_TESTS=$TESTS ".[$EXTRAS]"
