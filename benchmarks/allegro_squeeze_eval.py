"""AllegroSqueeze-v0: a trained policy against random actions and a scripted integral
controller.

    python benchmarks/allegro_squeeze_eval.py --policy DIR/final.pt [--episodes 32] [--json DIR/evaluation.json]

One episode (up to 90 env steps) per world for each controller, the same reset seed (so
the same target strains) for all: mean return, success rate (``info["is_success"]`` at the
episode's last step: within 1 % of the target for its last second), mean |c - c*| over
the last second, dropped and crushed balls.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym  # noqa: F401  (registers the ids)
from ncpgym.play import load_policy
from ncpgym.tasks.allegro_squeeze import scripted_actions


def run(kind: str, episodes: int, seed: int, policy: Path | None) -> dict:
    envs = gym.make_vec("ncpgym/AllegroSqueeze-v0", num_envs=episodes)
    obs, _ = envs.reset(seed=seed)
    task, batch = envs.unwrapped.task, envs.unwrapped.batch
    act = load_policy(policy, envs) if kind == "trained" else None
    envs.action_space.seed(seed)
    a = np.zeros((episodes, 16), np.float32)
    ret = np.zeros(episodes)
    live = np.ones(episodes, bool)  # the first episode of each world only
    success = np.zeros(episodes, bool)
    dropped = np.zeros(episodes, bool)
    crushed = np.zeros(episodes, bool)
    errors = [[] for _ in range(episodes)]
    for _ in range(90):
        if kind == "trained":
            a = act(obs)
        elif kind == "random":
            a = envs.action_space.sample()
        else:
            a = scripted_actions(task, batch).astype(np.float32)
        obs, r, term, trunc, info = envs.step(a)
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
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policy", type=Path, required=True)
    ap.add_argument("--episodes", type=int, default=32)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    rows = [run(k, args.episodes, args.seed, args.policy) for k in ("trained", "scripted", "random")]
    print(f"{'controller':<10}{'return':>10}{'success':>9}{'|c - c*|':>10}{'dropped':>9}{'crushed':>9}")
    for r in rows:
        print(f"{r['controller']:<10}{r['mean_return']:>10.1f}{r['success_rate']:>9.2f}"
              f"{r['mean_abs_error_last_second']:>10.4f}{r['dropped']:>9d}{r['crushed']:>9d}")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "command": "python benchmarks/allegro_squeeze_eval.py "
                                         f"--policy {args.policy} --episodes {args.episodes} --json {args.json}"},
                                        indent=1) + "\n")


if __name__ == "__main__":
    main()
