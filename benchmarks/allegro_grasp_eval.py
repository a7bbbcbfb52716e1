"""AllegroGrasp-v0: a trained policy against random actions and the scripted pinch, on the
held-out object set (``objects="test"``: object_set(8, seed=1), never seen in training)
and on the training set.

    python benchmarks/allegro_grasp_eval.py --policy DIR/final.pt [--episodes 32] [--json DIR/evaluation.json]

One episode (up to 180 env steps) per world for each controller and object set, the same
reset seed (so the same objects, poses and yaws) for all: mean return, success rate
(``info["is_success"]`` at the episode's end: 10 cm up for its last 2 s), objects lost
off the table, mean highest lift.
"""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym  # noqa: F401  (registers the ids)
from ncpgym.tasks.allegro_grasp import scripted_actions

from policy_eval import cli, controller


def episode(kind: str, episodes: int, seed: int, policy: Path | None, objects: str) -> dict:
    envs = gym.make_vec("ncpgym/AllegroGrasp-v0", num_envs=episodes, objects=objects)
    obs, _ = envs.reset(seed=seed)
    task, batch = envs.unwrapped.task, envs.unwrapped.batch
    act = controller(kind, envs, policy, lambda k: scripted_actions(task, batch, k), seed)
    ret, top = np.zeros(episodes), np.zeros(episodes)
    live = np.ones(episodes, bool)  # the first episode of each world only
    success, lost = np.zeros(episodes, bool), np.zeros(episodes, bool)
    for k in range(180):
        obs, r, term, trunc, info = envs.step(act(obs, k))
        ret += np.where(live, r, 0.0)
        top = np.where(live, np.maximum(top, info["lift_height"]), top)
        done = live & (term | trunc)
        success[done] = info["is_success"][done]
        lost[done] = term[done]
        live &= ~done
        if not live.any():
            break
    envs.close()
    return {"return": float(ret.mean()), "success_rate": float(success.mean()), "lost": int(lost.sum()),
            "mean_top_lift_m": float(top.mean())}


def run(kind: str, episodes: int, seed: int, policy: Path | None) -> dict:
    held_out = episode(kind, episodes, seed, policy, "test")
    train = episode(kind, episodes, seed, policy, "train")
    return {"controller": kind, "episodes": episodes, "mean_return": held_out["return"],
            "success_rate": held_out["success_rate"], "lost": held_out["lost"],
            "mean_top_lift_m": held_out["mean_top_lift_m"], "train_set_success_rate": train["success_rate"],
            "train_set_mean_return": train["return"]}


def main(argv=None):
    cli("allegro_grasp_eval.py", __doc__, run, [("return (held-out)", "mean_return", ".1f"),
        ("success (held-out)", "success_rate", ".2f"), ("success (train set)", "train_set_success_rate", ".2f"),
        ("lost", "lost", "d"), ("top lift (m)", "mean_top_lift_m", ".3f")], argv)


if __name__ == "__main__":
    main()
