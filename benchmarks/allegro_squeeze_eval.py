"""AllegroSqueeze-v0: a trained policy against random actions and a scripted integral
controller.

    python benchmarks/allegro_squeeze_eval.py --policy DIR/final.pt [--episodes 32] [--json DIR/evaluation.json]

One episode (up to 90 env steps) per world for each controller, the same reset seed (so
the same target strains) for all: mean return, success rate (``info["is_success"]`` at the
episode's last step: within 1 % of the target for its last second), mean |c - c*| over
the last second, dropped and crushed balls.
"""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym  # noqa: F401  (registers the ids)
from ncpgym.tasks.allegro_squeeze import scripted_actions

from policy_eval import cli, controller


def run(kind: str, episodes: int, seed: int, policy: Path | None) -> dict:
    envs = gym.make_vec("ncpgym/AllegroSqueeze-v0", num_envs=episodes)
    obs, _ = envs.reset(seed=seed)
    task, batch = envs.unwrapped.task, envs.unwrapped.batch
    act = controller(kind, envs, policy, lambda k: scripted_actions(task, batch), seed)
    ret = np.zeros(episodes)
    live = np.ones(episodes, bool)  # the first episode of each world only
    success = np.zeros(episodes, bool)
    dropped = np.zeros(episodes, bool)
    crushed = np.zeros(episodes, bool)
    errors = [[] for _ in range(episodes)]
    for k in range(90):
        obs, r, term, trunc, info = envs.step(act(obs, k))
        ret += np.where(live, r, 0.0)
        for i in np.flatnonzero(live):
            errors[i].append(abs(info["strain"][i] - info["target_strain"][i]))
        done = live & (term | trunc)
        success[done] = info["is_success"][done]
        dropped[done] = info["dropped"][done]
        crushed[done] = info["crushed"][done]
        live &= ~done
        if not live.any():
            break
    envs.close()
    last_second = [np.mean(e[-30:]) for e in errors]
    return {"controller": kind, "episodes": episodes, "mean_return": float(ret.mean()),
            "success_rate": float(success.mean()), "mean_abs_error_last_second": float(np.mean(last_second)),
            "dropped": int(dropped.sum()), "crushed": int(crushed.sum())}


def main(argv=None):
    cli("allegro_squeeze_eval.py", __doc__, run, [("return", "mean_return", ".1f"), ("success", "success_rate", ".2f"),
        ("|c - c*|", "mean_abs_error_last_second", ".4f"), ("dropped", "dropped", "d"), ("crushed", "crushed", "d")],
        argv)


if __name__ == "__main__":
    main()
