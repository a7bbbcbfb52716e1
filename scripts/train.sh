#!/usr/bin/env bash
# The main job on a fresh machine: install ncpgym with its training extras and train PPO
# on ncpgym/HumanoidFlagrun-v0 (256 worlds, 10 minutes by default). Progress bar on the
# terminal; learning curve, CSV, checkpoints and final policy in runs/flagrun (or --out).
# Extra arguments go to `python -m ncpgym.train` (e.g. --minutes 30, --env, --num-envs).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
bash scripts/install.sh train  # the build scripts/test.sh shares
OUT=${OUT:-$PWD/runs/flagrun}
# --lr 6e-4: twice PPO's default; on this 10-minute budget it lets the humanoid run within
# the job (docs/benchmarks/training.md, "The main job": three seeds each way, benchmarks/tables/main_job_curves.py)
(cd /tmp && $PY -m ncpgym.train --env ncpgym/HumanoidFlagrun-v0 --num-envs 256 --minutes 10 --lr 6e-4 --out "$OUT" "$@")
