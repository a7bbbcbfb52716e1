"""YuMiDrawer-v0: a trained policy against random actions and the scripted baseline.

    python benchmarks/yumi_drawer_eval.py --policy DIR/final.pt [--episodes 32] [--json DIR/evaluation.json]

One full episode (500 env steps) per world for each controller, the same reset seed for
all: mean return, success rate (``info["is_success"]``, drawer opened >= 0.3 m, at the
episode's last step), largest opening reached, and how many worlds held the handle in both
fingers at some step.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym  # noqa: F401  (registers the ids)
from ncpgym.play import load_policy
from ncpgym.tasks.yumi_drawer import scripted_actions


def run(kind: str, episodes: int, seed: int, policy: Path | None) -> dict:
    envs = gym.make_vec("ncpgym/YuMiDrawer-v0", num_envs=episodes)
    obs, _ = envs.reset(seed=seed)
    task, batch = envs.unwrapped.task, envs.unwrapped.batch
    act = load_policy(policy, envs) if kind == "trained" else None
    envs.action_space.seed(seed)
    start = task.handle(batch).copy()
    ret = np.zeros(episodes)
    best = np.zeros(episodes)
    grasped = np.zeros(episodes, bool)
    for k in range(500):
        if kind == "trained":
            a = act(obs)
        elif kind == "random":
            a = envs.action_space.sample()
        else:
            a = scripted_actions(task, batch, k, start).astype(np.float32)
        obs, r, term, trunc, info = envs.step(a)
        ret += r
        best = np.maximum(best, info["drawer_opening"])
        grasped |= info["reward_terms"]["grasp"] > 0
    success = info["is_success"].astype(bool)
    envs.close()
    return {"controller": kind, "episodes": episodes, "mean_return": float(ret.mean()),
            "success_rate": float(success.mean()), "mean_max_opening_m": float(best.mean()),
            "grasped_rate": float(grasped.mean())}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policy", type=Path, required=True)
    ap.add_argument("--episodes", type=int, default=32)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    rows = [run(k, args.episodes, args.seed, args.policy) for k in ("trained", "scripted", "random")]
    print(f"{'controller':<10}{'return':>10}{'success':>9}{'max open (m)':>14}{'grasped':>9}")
    for r in rows:
        print(f"{r['controller']:<10}{r['mean_return']:>10.1f}{r['success_rate']:>9.2f}"
              f"{r['mean_max_opening_m']:>14.3f}{r['grasped_rate']:>9.2f}")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "command": "python benchmarks/yumi_drawer_eval.py "
                                         f"--policy {args.policy} --episodes {args.episodes} --json {args.json}"},
                                        indent=1) + "\n")


if __name__ == "__main__":
    main()
