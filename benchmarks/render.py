"""Rendering speed on this CPU (MuJoCo's renderer on Mesa's llvmpipe through EGL).

    python benchmarks/render.py --json benchmarks/results/render.json

rows: {"task", "width", "height", "worlds", "frames_per_s", "render_ms", "step_ms"} for
ncpgym/Humanoid-v0 and ncpgym/PneuNetGrasp-v0 at 320x240 and 640x480, rendering 1 and 4
worlds: a vector env of ``worlds`` worlds made with ``render_mode="rgb_array"`` and
``render_worlds`` = all of them; render_ms is one ``render()`` call (``worlds`` frames),
step_ms one ``step()`` of the same env with random actions.

filming: {"task", "num_envs", "width", "height", "step_ms", "render_ms", "render_share"}:
a training-sized env (``--num-envs``) stepped with random actions while one world is
filmed every step (what ``RecordVectorVideo`` and ``train --video`` do); render_share =
render_ms / (step_ms + render_ms), the share of an env step spent rendering (a PPO update
adds learner time, so the share of a whole training step is lower).

Each figure is the median of ``--repeats`` timings of ``--calls`` calls after a warm-up.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym  # noqa: F401  (registers the ncpgym/ ids)

TASKS = ("ncpgym/Humanoid-v0", "ncpgym/PneuNetGrasp-v0")
SIZES = ((320, 240), (640, 480))


def _median_ms(fn, calls: int, repeats: int) -> float:
    fn()  # warm-up (the first render also makes the GL context)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t) / calls)
    return 1e3 * float(np.median(times))


def _env(task: str, num_envs: int, width: int, height: int, worlds: list[int]):
    envs = gym.make_vec(
        task,
        num_envs=num_envs,
        render_mode="rgb_array",
        render_worlds=worlds,
        width=width,
        height=height,
    )
    envs.reset(seed=0)
    envs.action_space.seed(0)
    return envs


def measure(calls: int, repeats: int, num_envs: int) -> dict:
    rows, filming = [], []
    for task in TASKS:
        for width, height in SIZES:
            for worlds in (1, 4):
                envs = _env(task, worlds, width, height, list(range(worlds)))
                render_ms = _median_ms(envs.render, calls, repeats)
                step_ms = _median_ms(lambda: envs.step(envs.action_space.sample()), calls, repeats)
                envs.close()
                rows.append(
                    {
                        "task": task,
                        "width": width,
                        "height": height,
                        "worlds": worlds,
                        "frames_per_s": round(1e3 * worlds / render_ms, 2),
                        "render_ms": round(render_ms, 2),
                        "step_ms": round(step_ms, 3),
                    }
                )
                print(rows[-1], flush=True)
            envs = _env(task, num_envs, width, height, [0])
            step_ms = _median_ms(lambda: envs.step(envs.action_space.sample()), calls, repeats)
            render_ms = _median_ms(envs.render, calls, repeats)
            envs.close()
            filming.append(
                {
                    "task": task,
                    "num_envs": num_envs,
                    "width": width,
                    "height": height,
                    "step_ms": round(step_ms, 3),
                    "render_ms": round(render_ms, 2),
                    "render_share": round(render_ms / (step_ms + render_ms), 3),
                }
            )
            print(filming[-1], flush=True)
    return {"rows": rows, "filming": filming}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path, default=Path("benchmarks/results/render.json"))
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--num-envs", type=int, default=64, help="worlds of the filmed training env")
    args = ap.parse_args()
    out = measure(args.calls, args.repeats, args.num_envs)
    out["machine"] = {"cpus": os.cpu_count(), "mujoco_gl": os.environ.get("MUJOCO_GL")}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, indent=1) + "\n")
    head = f"{'task':26s} {'size':>8s} {'worlds':>6s} {'frames/s':>9s} {'render ms':>10s}"
    print(f"\n{head} {'step ms':>8s}")
    for r in out["rows"]:
        print(
            f"{r['task']:26s} {r['width']:>4d}x{r['height']:<3d} {r['worlds']:>6d} "
            f"{r['frames_per_s']:>9.1f} {r['render_ms']:>10.1f} {r['step_ms']:>8.2f}"
        )
    print(f"\nfilming world 0 of {args.num_envs} every step:")
    print(f"{'task':26s} {'size':>8s} {'step ms':>8s} {'render ms':>10s} {'render share':>13s}")
    for r in out["filming"]:
        print(
            f"{r['task']:26s} {r['width']:>4d}x{r['height']:<3d} {r['step_ms']:>8.2f} "
            f"{r['render_ms']:>10.1f} {r['render_share']:>13.0%}"
        )
    print(f"\nwritten to {args.json}")


if __name__ == "__main__":
    main()
