"""PneuNetGrasp-v0: the trained PPO policy against random actions and a scripted baseline
driven by the inverse method (issue 22 item 5; ncpgym.control.SoftInverse).

    python benchmarks/pneunet_inverse_eval.py --policy DIR/final.pt [--episodes 8] [--json DIR/inverse_eval.json]
    python benchmarks/pneunet_inverse_eval.py --actuation pressure --policy DIR/final.pt ...

The inverse baseline: each finger's seven chambers are one ActivationActuator (the task's
active strain, in [0, A_MAX]); the effectors are one tip particle per finger (the tip face's
corner nearest the gripper's axis at rest); every env step the controller plans (Steps I-III
from the batch's real activations, W by central differences of the step, DAQP) the
activations that put each tip on its grasp point, the ball's centre plus ``GRIP`` m along the
finger's horizontal direction (inside the ball by SQUEEZE: a squeeze) at the ball's equator,
and sends them as the chamber commands (the task lags them by 0.1 s). With ``--actuation
pressure`` (the task's pressure variant) each finger's supply line is one PressureActuator
in [0, P_MAX] and W comes from the step's factorisation (one back-substitution per finger).
The mount waits for
HOLD_STEPS steps, then moves the ball towards the target height 0.2 m (velocity command
(0.2 - z_ball) / 0.02, clipped to [-1, 1]). One episode (200 steps) per world, the same reset
seed for every controller: mean return, success rate (``info["is_success"]``: held at
0.2 m +- 0.03 at the last step), mean final ball height, wall time per env step.
"""

from __future__ import annotations

import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import ncpgym  # noqa: F401  (registers the ids)
from ncpgym.control import ActivationActuator, PressureActuator, SoftInverse
from ncpgym.envs.pneunet import BALL_RADIUS, CHAMBERS, FINGERS
from ncpgym.tasks.pneunet_grasp import A_MAX, P_MAX, TARGET_Z

from policy_eval import cli, controller

SQUEEZE = 0.01
HOLD_STEPS = 40


class InverseGrasp:
    """The scripted inverse controller for one PneuNetGrasp vector env."""

    def __init__(self, envs):
        self.task, self.batch = envs.unwrapped.task, envs.unwrapped.batch
        model = self.batch.model
        x0 = np.asarray(model.particle_pos0)
        # per finger, its tip face's particle nearest the axis, and the finger's horizontal
        # direction from the axis
        self.tips = np.array([t[np.argmin(np.hypot(x0[t, 0], x0[t, 1]))] for t in self.task.info["tips"]])
        d = x0[self.tips, :2]
        self.radial = np.c_[d / np.linalg.norm(d, axis=1, keepdims=True), np.zeros(FINGERS)]
        if self.task.actuation == "strain":
            acts = [ActivationActuator(tuple(range(CHAMBERS * f, CHAMBERS * (f + 1))), 0.0, A_MAX)
                    for f in range(FINGERS)]
            self.groups, self.full = [CHAMBERS * f for f in range(FINGERS)], A_MAX
        else:  # one supply line (activation group) per finger
            acts = [PressureActuator(f, 0.0, P_MAX) for f in range(FINGERS)]
            self.groups, self.full = list(range(FINGERS)), P_MAX
        self.ctl = SoftInverse(model, self.tips, acts, max_change=0.1 * self.full / A_MAX)

    def __call__(self, k: int) -> np.ndarray:
        b = self.batch
        centre = b.q[:, 1:4]
        targets = centre[:, None, :] + (BALL_RADIUS - SQUEEZE) * self.radial[None]
        current = b.activation[:, self.groups]
        plan = self.ctl.plan_batch(b, targets, current)
        act = np.empty((b.q.shape[0], FINGERS + 1), np.float32)
        act[:, :FINGERS] = np.clip(2.0 * plan.actuation / self.full - 1.0, -1.0, 1.0)
        # the mount: waits, then carries the ball to the target height and holds it there
        lift = np.clip((TARGET_Z - centre[:, 2]) / 0.02, -1.0, 1.0)
        act[:, FINGERS] = 0.0 if k < HOLD_STEPS else lift
        return act


def run(kind: str, episodes: int, seed: int, policy: Path | None, actuation: str = "strain") -> dict:
    envs = gym.make_vec("ncpgym/PneuNetGrasp-v0", num_envs=episodes, actuation=actuation)
    obs, _ = envs.reset(seed=seed)
    scripted = InverseGrasp(envs) if kind == "inverse" else None
    act = controller("scripted" if kind == "inverse" else kind, envs, policy, scripted, seed)
    ret = np.zeros(episodes)
    live = np.ones(episodes, bool)  # a world that drops the ball ends (and autoresets): its episode is over
    success = np.zeros(episodes, bool)
    height = np.zeros(episodes)
    steps = envs.unwrapped.task.max_episode_steps
    t0 = time.perf_counter()
    for k in range(steps):
        obs, r, term, trunc, info = envs.step(act(obs, k))
        ret += np.where(live, r, 0.0)
        ending = live & (term | trunc)
        success[ending] = info["is_success"][ending]
        height[ending] = info["ball_height"][ending]
        live &= ~(term | trunc)
    wall = (time.perf_counter() - t0) / steps
    envs.close()
    return {"controller": kind, "actuation": actuation, "episodes": episodes, "mean_return": float(ret.mean()),
            "success_rate": float(np.mean(success)), "final_ball_height_m": float(np.mean(height)),
            "ms_per_env_step": 1e3 * wall}


def main(argv=None):
    cli("pneunet_inverse_eval.py", __doc__, run, [("return", "mean_return", ".1f"), ("success", "success_rate", ".2f"),
        ("ball z (m)", "final_ball_height_m", ".3f"), ("ms/step", "ms_per_env_step", ".0f")], argv,
        controllers=("trained", "inverse", "random"),
        options={"actuation": {"choices": ("strain", "pressure"), "default": "strain",
                               "help": "the task's chamber model (PneuNetGrasp-v0's actuation)"}})


if __name__ == "__main__":
    main()
