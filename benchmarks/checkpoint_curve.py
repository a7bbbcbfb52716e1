"""A run's checkpoints evaluated on the task as defined: success and return against env steps.

    python benchmarks/checkpoint_curve.py benchmarks/results/training/<run> --episodes 64 \\
        --json benchmarks/results/training/<run>/checkpoint_curve.json

The training curve (progress.csv) averages the training episodes, which carry the run's
training aids (e.g. ShadowHandBlock's ``near_goals``, FetchTomato's ``demo_starts``) and the
policy's sampling noise; this evaluates every ``checkpoint_*.pt`` the run kept (and
``final.pt``) with its mean action on the task's own episodes, the same starts for each, so
one can see whether a run was still improving when its budget ended and at what rate.
Checkpoints are not committed (.gitignore): run this on the machine that trained, and commit
the JSON and the plot (``--plot``, default next to the JSON).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym
from ncpgym.play import load_policy
from ncpgym.train.ppo import evaluate

sys.path.insert(0, str(Path(__file__).resolve().parent))
from policy_eval import judged_task  # noqa: E402


def env_steps(run: Path) -> dict[int, int]:
    """The env steps at the end of each update, from the run's progress.csv."""
    with open(run / "progress.csv", newline="") as fh:
        return {int(r["update"]): int(r["env_steps"]) for r in csv.DictReader(fh)}


def checkpoints(run: Path, last: int) -> list[tuple[int, Path]]:
    """(update, path) of the run's checkpoints in update order, final.pt last as update
    ``last`` (the run's last update)."""
    found = sorted((int(re.search(r"(\d+)", p.stem).group(1)), p) for p in run.glob("checkpoint_*.pt"))
    if (run / "final.pt").is_file():
        found = [(u, p) for u, p in found if u != last] + [(last, run / "final.pt")]
    if not found:
        raise FileNotFoundError(f"{run}: no checkpoint_*.pt or final.pt (checkpoints stay on the machine that trained)")
    return found


def curve(run: Path, episodes: int, seed: int, threads: int) -> dict:
    env_id, kwargs = judged_task(run)
    steps = env_steps(run)
    todo = checkpoints(run, max(steps))
    envs = gym.make_vec(env_id, num_envs=episodes, num_threads=threads, **kwargs)
    rows = []
    try:
        from tqdm import tqdm

        for update, path in tqdm(todo, desc=run.name, unit="checkpoint"):
            t0 = time.perf_counter()
            ret, ok = evaluate(envs, load_policy(path, envs, deterministic=True), episodes, seed=seed,
                               with_success=True)
            rows.append({"update": update, "env_steps": steps[update], "checkpoint": path.name,
                         "return": float(np.mean(ret)), "return_sem": float(np.std(ret) / np.sqrt(len(ret))),
                         "success": None if np.isnan(ok).any() else float(np.mean(ok)),
                         "seconds": round(time.perf_counter() - t0, 1)})
    finally:
        envs.close()
    return {"run": run.name, "env": env_id, "env_kwargs": kwargs, "episodes": episodes, "seed": seed, "rows": rows,
            "ncpgym": ncpgym.__version__}


def plot(data: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = np.array([r["env_steps"] for r in data["rows"]]) / 1e6
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.errorbar(x, [r["return"] for r in data["rows"]], yerr=[r["return_sem"] for r in data["rows"]],
                marker="o", ms=3, color="C0", label="return (mean action)")
    ax.set_xlabel("environment steps (millions)")
    ax.set_ylabel("mean return", color="C0")
    if all(r["success"] is not None for r in data["rows"]):
        ax2 = ax.twinx()
        ax2.plot(x, [100 * r["success"] for r in data["rows"]], marker="s", ms=3, color="C3")
        ax2.set_ylabel("success (%)", color="C3")
        ax2.set_ylim(0, 100)
    ax.set_title(f"{data['run']}: checkpoints on the task as defined ({data['episodes']} episodes)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", type=Path, help="a training output folder (config.json, progress.csv, checkpoints)")
    ap.add_argument("--episodes", type=int, default=64)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--threads", type=int, default=0, help="physics threads (0: all cores)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--plot", type=Path, help="PNG (default: the JSON's name with .png)")
    args = ap.parse_args(argv)
    data = curve(args.run, args.episodes, args.seed, args.threads)
    data["command"] = f"python benchmarks/checkpoint_curve.py {args.run} --episodes {args.episodes}" + (
        f" --json {args.json}" if args.json else "")
    for r in data["rows"]:
        success = "" if r["success"] is None else f", success {100 * r['success']:.0f} %"
        print(f"update {r['update']:5d} ({r['env_steps'] / 1e6:.2f} M steps): return {r['return']:.1f}{success}")
    if args.json is not None:
        args.json.write_text(json.dumps(data, indent=1) + "\n")
        plot(data, args.plot or args.json.with_suffix(".png"))


if __name__ == "__main__":
    main()
