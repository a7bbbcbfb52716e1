"""MantaSwim-v0: a trained policy against random actions and the seed's gait, and the trained
policy again with 30 Newton iterations per step (does its speed come from the model's
physics or from the solver's unconverged iterations?).

    python benchmarks/manta_swim_eval.py --policy DIR/final.pt [--episodes 16] [--unlimited] [--json DIR/evaluation.json]

One full episode (200 env steps, 5 s) per world for each controller, the same reset seed for
all: mean return, success rate (``info["is_success"]``: 1 m forward at the episode's last
step), mean forward distance (m), mean speed (m/s over the episode; body lengths/s for the
1 m body), the motors' mean power (W) and the stroke frequency (Hz, the median over the
worlds of ``manta_swim.stroke_frequency``: the peak of the motors' positions' spectrum).
``--unlimited``: the natural angles driven directly, as the task did before its motors (how
policies trained then are evaluated in their own task).
"""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym  # noqa: F401  (registers the ids)
from ncpgym.tasks import manta_swim as ms

from policy_eval import cli, controller


def run(kind: str, episodes: int, seed: int, policy: Path | None, unlimited: bool = False) -> dict:
    base = kind.split("-")[0]
    saved = ms.MantaSwimTask.solver_options
    if kind == "trained-30it":
        ms.MantaSwimTask.solver_options = {"newton_iterations": 30}
    limits = {"max_torque": np.inf, "max_speed": np.inf} if unlimited else {}
    try:
        envs = gym.make_vec("ncpgym/MantaSwim-v0", num_envs=episodes, **limits)
    finally:
        ms.MantaSwimTask.solver_options = saved
    obs, _ = envs.reset(seed=seed)
    task, batch = envs.unwrapped.task, envs.unwrapped.batch
    act = controller(base, envs, policy, lambda k: ms.scripted_actions(task, batch), seed)
    ret, power, positions = np.zeros(episodes), np.zeros(episodes), []
    for k in range(ms.EPISODE_STEPS):
        obs, r, term, trunc, info = envs.step(act(obs, k))
        ret += r
        power += info["reward_terms"]["power"]
        positions.append(task.targets.copy())
    envs.close()
    distance = info["distance"]
    dt = ms.FRAME_SKIP * ms.H
    return {"controller": kind, "episodes": episodes, "mean_return": float(ret.mean()),
            "success_rate": float(np.mean(info["is_success"])), "mean_distance_m": float(distance.mean()),
            "mean_speed_m_s": float(distance.mean() / (ms.EPISODE_STEPS * dt)),
            "mean_power_w": float(power.mean() / ms.EPISODE_STEPS),
            "stroke_hz": float(np.median(ms.stroke_frequency(np.asarray(positions), dt))),
            "unlimited": unlimited}


def main(argv=None):
    cli("manta_swim_eval.py", __doc__, run, [("return", "mean_return", ".1f"), ("success", "success_rate", ".2f"),
        ("distance (m)", "mean_distance_m", ".2f"), ("speed (m/s)", "mean_speed_m_s", ".2f"), ("power (W)", "mean_power_w", ".0f"),
        ("stroke (Hz)", "stroke_hz", ".1f")], argv,
        controllers=("trained", "trained-30it", "scripted", "random"),
        options={"unlimited": {"action": "store_true", "help": "no motor limits (the task before its motors)"}})


if __name__ == "__main__":
    main()
