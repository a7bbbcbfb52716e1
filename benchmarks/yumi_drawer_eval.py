"""YuMiDrawer-v0: a trained policy against random actions and the scripted baseline.

    python benchmarks/yumi_drawer_eval.py --policy DIR/final.pt [--episodes 32] [--json DIR/evaluation.json]

One full episode (500 env steps) per world for each controller, the same reset seed for
all: mean return, success rate (``info["is_success"]``, drawer opened >= 0.3 m, at the
episode's last step), largest opening reached, and how many worlds held the handle in both
fingers at some step.
"""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym  # noqa: F401  (registers the ids)
from ncpgym.tasks.yumi_drawer import ScriptedOpener

from policy_eval import cli, controller


def run(kind: str, episodes: int, seed: int, policy: Path | None) -> dict:
    envs = gym.make_vec("ncpgym/YuMiDrawer-v0", num_envs=episodes)
    obs, _ = envs.reset(seed=seed)
    task, batch = envs.unwrapped.task, envs.unwrapped.batch
    opener = ScriptedOpener(task, batch)
    act = controller(kind, envs, policy, lambda k: opener(batch), seed)
    ret = np.zeros(episodes)
    best = np.zeros(episodes)
    grasped = np.zeros(episodes, bool)
    for k in range(500):
        obs, r, term, trunc, info = envs.step(act(obs, k))
        ret += r
        best = np.maximum(best, info["drawer_opening"])
        grasped |= info["reward_terms"]["grasp"] > 0
    success = info["is_success"].astype(bool)
    envs.close()
    return {"controller": kind, "episodes": episodes, "mean_return": float(ret.mean()),
            "success_rate": float(success.mean()), "mean_max_opening_m": float(best.mean()),
            "grasped_rate": float(grasped.mean())}


def main(argv=None):
    cli("yumi_drawer_eval.py", __doc__, run, [("return", "mean_return", ".1f"), ("success", "success_rate", ".2f"),
        ("max open (m)", "mean_max_opening_m", ".3f"), ("grasped", "grasped_rate", ".2f")], argv)


if __name__ == "__main__":
    main()
