"""``ncpgym/InvertedPendulum-v0``: Gymnasium's InvertedPendulum-v5 on ncpgym's physics.

Gymnasium's ``inverted_pendulum.xml`` (cart on a rail, pole on a hinge; motor gear 100,
ctrlrange [-3, 3]). Observation (4): qpos (cart position, pole angle), qvel. Action (1):
float32 in [-3, 3], clipped. Reward: 1 for every step the pole stays within 0.2 rad of
upright: the term ``survive`` in ``info["reward_terms"]`` (weight 1; reweight with
``reward_weights``, add with ``extra_reward_terms``), also ``info["reward_survive"]`` as
in InvertedPendulum-v5. Termination: |angle| > 0.2 rad. Truncation: 1000 steps. Reset: uniform noise in
[-0.01, 0.01] on qpos and qvel. Control period 0.04 s (two 0.02 s steps, semi-implicit
where MuJoCo integrates with RK4). The easy task ncpgym's training test learns.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Iterable

import gymnasium as gym
import mujoco
import numpy as np

from .. import _core
from ..models import load_model
from ..vector import Task, env_classes
from ..wrappers import RewardComposition, RewardTerm, StepContext


@lru_cache(maxsize=2)
def _model(path: str) -> _core.Model:
    return load_model(path)


def _xml() -> str:
    assets = os.path.join(os.path.dirname(gym.__file__), "envs", "mujoco", "assets")
    return os.path.join(assets, "inverted_pendulum.xml")


class InvertedPendulumTask(Task):
    frame_skip = 2
    solver_options: dict = {}
    max_episode_steps = 1000

    def __init__(self, *, reset_noise_scale: float = 0.01, reward_weights: dict[str, float] | None = None,
                 extra_reward_terms: Iterable[RewardTerm] = ()):
        super().__init__()
        self.reset_noise_scale = reset_noise_scale
        terms = [RewardTerm("survive", lambda c: (~c.terminated).astype(np.float64), 1.0)]
        self.rewards = RewardComposition.configured(terms, reward_weights, extra_reward_terms)

    def build_model(self):
        return _model(_xml())

    def render_scene(self, model):
        from ..render import Camera, SceneSpec

        def floor(spec):  # the file has none; a visual one below the rail gives depth
            spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[4.0, 4.0, 0.1],
                                    pos=[0.0, 0.0, -0.4], contype=0, conaffinity=0)

        camera = Camera(lookat=(0.0, 0.0, 0.2), distance=3.0, azimuth=90.0, elevation=-12.0)
        return SceneSpec(source=_xml(), camera=camera, edit=floor)

    def spaces(self, model):
        lo, hi = np.asarray(model.actuator_ctrlrange, dtype=np.float32).reshape(-1, 2).T
        obs = gym.spaces.Box(-np.inf, np.inf, shape=(model.nq + model.nv,), dtype=np.float64)
        return obs, gym.spaces.Box(lo, hi, dtype=np.float32)

    def action_bounds(self, model):
        lo, hi = np.asarray(model.actuator_ctrlrange, dtype=np.float64).reshape(-1, 2).T
        return lo, hi

    def reset_states(self, batch, worlds):
        m, s = batch.model, self.reset_noise_scale
        return np.asarray(m.qpos0) + batch.uniform(worlds, m.nq, -s, s), batch.uniform(worlds, m.nv, -s, s)

    def observe(self, batch):
        return np.concatenate([batch.q, batch.u], axis=1)

    def evaluate(self, batch, before, ctrl, dt):
        terminated = np.abs(batch.q[:, 1]) > 0.2
        reward, terms = self.rewards(StepContext(batch, ctrl, dt, {"terminated": terminated}))
        return reward, terminated, {"reward_survive": terms["survive"], "reward_terms": terms}


InvertedPendulumVectorEnv, InvertedPendulumEnv = env_classes(InvertedPendulumTask, "InvertedPendulum")
