"""Training speed of the main job: env steps per second with learning (PPO as
`scripts/train.sh` runs it) beside simulation-only env steps per second for the same task
and number of worlds, and where an update's time goes.

    python benchmarks/training_speed.py --json benchmarks/results/training_speed.json   # ~5 minutes

Per N (worlds): `sim_only` steps the vector env with the actions of a fixed random policy
network (so the worlds move as in training: upright at first, then falling and resetting)
for `--seconds`; `with_learning` runs `PPO.learn(seconds=...)` with the defaults of
`python -m ncpgym.train` and reports env steps per second and the split of its wall time
into rollout (simulation + task + policy inference) and update, measured by timing
`collect` and `update`. Rows: {task, num_envs, threads, sim_only_steps_per_s,
with_learning_steps_per_s, rollout_frac, update_frac, newton_iterations}.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
import torch

import ncpgym  # noqa: F401  (registers the ids)
from ncpgym.train.ppo import PPO, PPOConfig


def sim_only(task: str, n: int, seconds: float) -> float:
    envs = gym.make_vec(task, num_envs=n)
    agent = PPO(envs, PPOConfig(seed=1))  # an untrained policy: its actions, its resets
    obs = agent._obs
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, *_ = envs.step(agent.act(obs).astype(np.float32))
        steps += n
    rate = steps / (time.perf_counter() - t0)
    envs.close()
    return rate


def with_learning(task: str, n: int, seconds: float) -> dict:
    envs = gym.make_vec(task, num_envs=n)
    agent = PPO(envs, PPOConfig())
    split = {"collect": 0.0, "update": 0.0}
    for name in split:
        fn = getattr(agent, name)

        def timed(*a, _fn=fn, _name=name, **k):
            t = time.perf_counter()
            out = _fn(*a, **k)
            split[_name] += time.perf_counter() - t
            return out

        setattr(agent, name, timed)
    t0 = time.perf_counter()
    agent.learn(seconds=seconds, progress=False, log_every=None, checkpoint_every=0)
    wall = time.perf_counter() - t0
    envs.close()
    return dict(with_learning_steps_per_s=agent.env_steps / wall, rollout_frac=split["collect"] / wall,
                update_frac=split["update"] / wall)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--task", default="ncpgym/HumanoidFlagrun-v0")
    ap.add_argument("--num-envs", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--seconds", type=float, default=60.0, help="timed seconds of training per N")
    args = ap.parse_args()
    rows = []
    for n in args.num_envs:
        env = gym.make(args.task)
        newton = env.unwrapped.task.solver_options.get("newton_iterations")
        env.close()
        row = dict(task=args.task, num_envs=n, threads=torch.get_num_threads(), newton_iterations=newton,
                   sim_only_steps_per_s=sim_only(args.task, n, min(20.0, args.seconds)),
                   **with_learning(args.task, n, args.seconds))
        rows.append(row)
        print(f"N = {n:5d}: simulation only {row['sim_only_steps_per_s']:8.0f} steps/s, with learning "
              f"{row['with_learning_steps_per_s']:8.0f} steps/s (rollout {100 * row['rollout_frac']:.0f} %, "
              f"update {100 * row['update_frac']:.0f} %)", flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"rows": rows, "command": "python benchmarks/training_speed.py --json "
                                         + str(args.json)}, indent=1))


if __name__ == "__main__":
    main()
