#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer over ncpgym's C++: builds the C++ tests and
# the Python module with -fsanitize=address,undefined into build/asan (ccache makes
# rebuilds quick), runs the GoogleTest suite, then a Python smoke run under the sanitized
# module (every task a few hundred steps with random actions and autoresets, the loader on
# the shipped and third-party models, the contact and soft scenes briefly). Any report
# fails the run (UBSan is fatal; LeakSanitizer is off: CPython and NumPy keep their
# allocations to exit).
#
#   bash scripts/sanitize.sh            # everything
#   bash scripts/sanitize.sh --cpp      # the GoogleTest suite only
#   bash scripts/sanitize.sh --python   # the Python smoke run only (then FUZZ_CASES=300
#                                       # cases of scripts/fuzz.py, the loader and Builder fuzz)
#
# Not in CI (the build alone takes longer than CI's budget allows on 2 cores); run it before
# resolving an issue that touches the C++ core.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
BUILD=${BUILD:-build/asan}
FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -O1 -g"

cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNCPGYM_BUILD_TESTS=ON \
  -DSKBUILD=ON -DSKBUILD_PROJECT_VERSION="$($PY -c 'import tomllib;print(tomllib.load(open("pyproject.toml","rb"))["project"]["version"])')" \
  -Dpybind11_DIR="$($PY -m pybind11 --cmakedir)" -DPython_EXECUTABLE="$(command -v $PY)" \
  -DCMAKE_CXX_FLAGS="$FLAGS" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
cmake --build "$BUILD" -j2

export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:strict_init_order=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
if [ "${1:-}" != "--python" ]; then
  "$BUILD"/tests/cpp/ncpgym_tests --gtest_brief=1
fi
[ "${1:-}" = "--cpp" ] && exit 0

# The Python package with the sanitized module: a scratch copy of python/ncpgym whose
# _core is the one just built, run with the sanitizer runtimes preloaded.
REPO=$(pwd)
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
cp -r python/ncpgym "$SCRATCH/ncpgym"
rm -f "$SCRATCH"/ncpgym/_core*.so
cp "$BUILD"/_core*.so "$SCRATCH/ncpgym/"
PRELOAD="$($PY -c 'import subprocess as s;print(" ".join(s.check_output(["gcc","-print-file-name="+n],text=True).strip() for n in ("libasan.so","libubsan.so")))')"
(cd "$SCRATCH" && NCPGYM_REPO="$REPO" LD_PRELOAD="$PRELOAD" PYTHONPATH="$SCRATCH" $PY - <<'EOF'
import sys
# an editable install's import hook would hand out the installed ncpgym: use this copy
sys.meta_path = [f for f in sys.meta_path if "editable" not in type(f).__module__.lower()]
import numpy as np
import gymnasium as gym
import ncpgym
from ncpgym import scenes

assert ncpgym.__file__.startswith(__import__("os").getcwd()), ncpgym.__file__
for env_id in ncpgym.TASK_IDS:
    envs = gym.make_vec(env_id, num_envs=3, num_threads=2, max_episode_steps=40)
    envs.reset(seed=0)
    envs.action_space.seed(0)
    steps = 60 if "Allegro" in env_id or "PneuNet" in env_id else 200
    for _ in range(steps):
        envs.step(envs.action_space.sample())
    envs.close()
    print("ok", env_id, flush=True)
for name in ("heavy_stack", "pile", "arch", "hanging_chain"):
    model, q0 = getattr(scenes, name)() if name != "hanging_chain" else (scenes.hanging_chain(), None)
    b = ncpgym.Batch(model, 2)
    if q0 is not None:
        b.q[:] = q0
        b.forward()
    b.step(substeps=60)
    print("ok", name, flush=True)
print("sanitized smoke run: no reports")
# the loader and Builder fuzz (scripts/fuzz.py) under the sanitizers
import os, runpy
fuzz = runpy.run_path(os.path.join(os.environ["NCPGYM_REPO"], "scripts", "fuzz.py"), run_name="fuzz")
fuzz["main"](["--cases", os.environ.get("FUZZ_CASES", "300")])
print("sanitized fuzz run: no reports")
EOF
)
