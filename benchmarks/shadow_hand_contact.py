"""Contact on the Shadow hand, ncpgym against MuJoCo on the same model and the same scripts
(issue 62): Gymnasium-Robotics' ``hand/manipulate_block.xml`` from the installed package.

    python benchmarks/shadow_hand_contact.py --json benchmarks/results/shadow_hand_contact.json

Both engines start from ncpgym/ShadowHandBlock-v0's resting state (the block settled in the
palm) and run two scripts of servo targets (``shadow_hand_block.grasp_controls``):

* rest: the fingers open (1 s... 2 s), then 2 s with nothing commanded to move: how far the
  block moves over those last 2 s;
* grasp: open 1 s, close 1.5 s, then gravity turned over (+z: the hand palm down) for 2 s:
  how far the block moves over the last second (held: little), and relative to where it was
  at the turn.

Per script: the deepest penetration over every step after the first second (ncpgym:
``Batch.contact_depth``; MuJoCo: -min ``contact.dist`` over its contacts), the mean depth
of the deepest contact per step. ncpgym runs at the task's settings (h = 8 ms, 8 Newton
iterations); MuJoCo at the model's own (h = 2 ms, its soft contacts, Newton solver) and at
ncpgym's time step.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path

import numpy as np

warnings.filterwarnings("ignore", message=".*Adroit.*")

import mujoco  # noqa: E402

import ncpgym  # noqa: E402
from ncpgym.tasks import shadow_hand_block as sh  # noqa: E402

SCRIPTS = {"rest": 4.0, "grasp": 4.5}


def controls(task, script: str, t: float) -> tuple[np.ndarray, tuple[float, float, float]]:
    open_, closed = sh.grasp_controls(task)
    if script == "rest":
        return open_, (0.0, 0.0, -9.81)
    return (open_ if t < 1.0 else closed), ((0.0, 0.0, -9.81) if t < 2.5 else (0.0, 0.0, 9.81))


def run_ncpgym(task, script: str) -> tuple[np.ndarray, np.ndarray]:
    b = ncpgym.Batch(task.model, 1, num_threads=1, **task.solver_options)
    b.reset(None, task.q_rest[None].copy(), np.zeros((1, task.model.nv)))
    o, pos, depth = task.object_q, [], []
    for k in range(int(round(SCRIPTS[script] / sh.H))):
        ctrl, g = controls(task, script, k * sh.H)
        b.ctrl[:], b.gravity[:] = ctrl, g
        b.step()
        pos.append(b.q[0, o:o + 3].copy())
        depth.append(float(b.contact_depth.max()))
    return np.array(pos), np.array(depth)


def run_mujoco(task, script: str, h: float) -> tuple[np.ndarray, np.ndarray]:
    m = mujoco.MjModel.from_xml_path(sh.model_path())
    m.opt.timestep = h
    d = mujoco.MjData(m)
    d.qpos[:] = task.q_rest
    mujoco.mj_forward(m, d)
    o, pos, depth = task.object_q, [], []
    every = int(round(sh.H / h))  # record at ncpgym's step times, the deepest contact in between
    deepest = 0.0
    for k in range(int(round(SCRIPTS[script] / h))):
        d.ctrl[:], m.opt.gravity[:] = controls(task, script, k * h)
        mujoco.mj_step(m, d)
        if d.ncon:
            deepest = max(deepest, -float(np.min(d.contact.dist[:d.ncon])))
        if (k + 1) % every == 0:
            pos.append(d.qpos[o:o + 3].copy())
            depth.append(deepest)
            deepest = 0.0
    return np.array(pos), np.array(depth)


def figures(script: str, pos: np.ndarray, depth: np.ndarray) -> dict:
    per_s = int(round(1.0 / sh.H))
    out = {"max_depth_mm": 1e3 * float(depth[per_s:].max()), "mean_depth_mm": 1e3 * float(depth[per_s:].mean())}
    if script == "rest":
        half = len(pos) // 2
        out["block_moves_last_2s_mm"] = 1e3 * float(np.linalg.norm(pos[-1] - pos[half]))
    else:
        turn = int(round(2.5 / sh.H))
        out["block_moves_last_1s_mm"] = 1e3 * float(np.linalg.norm(pos[-1] - pos[-per_s]))
        out["block_moves_since_turn_mm"] = 1e3 * float(np.linalg.norm(pos[-1] - pos[turn - 1]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    task = sh.ShadowHandBlockTask()
    task.model = task.build_model()
    rows = []
    for script in SCRIPTS:
        for engine, h in (("ncpgym", sh.H), ("mujoco", 0.002), ("mujoco", sh.H)):
            t = time.perf_counter()
            pos, depth = run_ncpgym(task, script) if engine == "ncpgym" else run_mujoco(task, script, h)
            row = {"engine": engine, "script": script, "timestep": h, "finite": bool(np.isfinite(pos).all()),
                   **figures(script, pos, depth), "wall_s": time.perf_counter() - t}
            rows.append(row)
            print(f"{engine:7s} h={h:.3f} {script:5s} " + "  ".join(
                f"{k} {v:.3f}" for k, v in row.items() if isinstance(v, float) and k != "timestep"), flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"rows": rows, "command": f"python benchmarks/shadow_hand_contact.py "
                                         f"--json {args.json}", "mujoco": mujoco.__version__}, indent=1))
        print("wrote", args.json)


if __name__ == "__main__":
    main()
