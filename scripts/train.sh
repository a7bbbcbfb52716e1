#!/usr/bin/env bash
# The main job on a fresh machine: install ncpgym with its training extras and train PPO
# on ncpgym/HumanoidFlagrun-v0 (256 worlds, 10 minutes by default). Progress bar on the
# terminal; learning curve, CSV, checkpoints and final policy in runs/flagrun (or --out).
# Extra arguments go to `python -m ncpgym.train` (e.g. --minutes 30, --env, --num-envs).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
$PY -m pip install -q --disable-pip-version-check ".[train]"
OUT=${OUT:-$PWD/runs/flagrun}
(cd /tmp && $PY -m ncpgym.train --env ncpgym/HumanoidFlagrun-v0 --num-envs 256 --minutes 10 --out "$OUT" "$@")
