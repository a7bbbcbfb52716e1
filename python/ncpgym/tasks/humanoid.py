"""``ncpgym/Humanoid-v0``: Gymnasium's Humanoid-v5 task on ncpgym's physics.

Same model file (Gymnasium's ``humanoid.xml``, compiled by MuJoCo), same control period
(0.015 s), same observation layout, reward and termination as ``Humanoid-v5`` with its
default arguments, so that learning curves can be compared directly:

Observation (348 = 22 + 23 + 130 + 78 + 17 + 78), float64:
    qpos[2:] (the torso's x, y excluded), qvel, cinert[1:] (com-based inertia of the 13
    bodies), cvel[1:] (com-based velocities), qfrc_actuator[6:] (actuator joint forces),
    cfrc_ext[1:] (contact wrenches on each body), with MuJoCo's definitions of those
    quantities (mjData fields of the same names), computed by the C++ batch.
Action (17), float32 in [-0.4, 0.4] (the actuators' ctrlrange; out-of-range actions are
    clipped), motor torques gear x action.
Reward: 1.25 x_velocity of the centre of mass + 5 (healthy: 1 < torso z < 2)
    - 0.1 |action|^2 - min(5e-7 |cfrc_ext|^2, 10), as named terms in
    ``info["reward_terms"]`` (unweighted values; reweight with ``reward_weights``, add
    with ``extra_reward_terms``):
        forward  x_velocity of the centre of mass (m/s)                 (weight 1.25)
        healthy  1 when 1 < torso z < 2, else 0                         (weight 5)
        ctrl     |action|^2                                             (weight -0.1)
        contact  min(5e-7 |cfrc_ext|^2, 10), already weighted and capped (weight -1)
    Gymnasium's keyword arguments (``forward_reward_weight``, ``healthy_reward``,
    ``ctrl_cost_weight``, ``contact_cost_weight``, ``contact_cost_range``) set the same,
    and ``info`` carries Humanoid-v5's ``reward_survive``, ``reward_forward``,
    ``reward_ctrl`` and ``reward_contact`` too.
Termination: the torso leaves 1 < z < 2. Truncation: 1000 steps.
Reset: qpos0 and zero velocity plus uniform noise in [-0.01, 0.01] on every coordinate
    (quaternion included, as Gymnasium does), from each world's own random stream.

What differs from Humanoid-v5: the physics. ncpgym steps h = 0.0075 s twice per action
(MuJoCo: 0.003 s five times) with hard non-smooth Newton contact instead of MuJoCo's soft
contact; contact forces, hence cfrc_ext and the contact cost, follow from that solver.
Steps with contact run 4 Newton iterations, as the flag-run tasks (the work-precision
benchmark's humanoid: feet within 1.2 mm of the floor at 4, 0.2 mm at 8, MuJoCo's
defaults 21 mm; pass ``solver_options={"newton_iterations": 8}`` for the tighter contact).
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any, Iterable

import gymnasium as gym
import numpy as np

from .. import _core
from ..models import load_model
from ..vector import Task, env_classes
from ..wrappers import RewardComposition, RewardTerm, StepContext


def humanoid_xml() -> str:
    """Path of Gymnasium's humanoid.xml (the file Humanoid-v5 loads)."""
    return os.path.join(os.path.dirname(gym.__file__), "envs", "mujoco", "assets", "humanoid.xml")


@lru_cache(maxsize=4)
def _model(path: str) -> _core.Model:
    return load_model(path)


@lru_cache(maxsize=4)
def _fixed_tendons(path: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The file's fixed tendons from MuJoCo's compile (length = sum of coef x qpos of its
    joints): for "q" and "v", the columns of qpos / qvel they read and the coefficients
    [ncolumns, ntendon]."""
    import mujoco

    mj = mujoco.MjModel.from_xml_path(path)
    Tq, Tv = np.zeros((mj.ntendon, mj.nq)), np.zeros((mj.ntendon, mj.nv))
    for t in range(mj.ntendon):
        for w in range(mj.tendon_adr[t], mj.tendon_adr[t] + mj.tendon_num[t]):
            if mj.wrap_type[w] != mujoco.mjtWrap.mjWRAP_JOINT:
                raise ValueError(f"{path}: tendon {t} is not a fixed tendon")
            j = mj.wrap_objid[w]
            Tq[t, mj.jnt_qposadr[j]] += mj.wrap_prm[w]
            Tv[t, mj.jnt_dofadr[j]] += mj.wrap_prm[w]
    # kept as (the columns the tendons read, their coefficients transposed): a step reads a
    # few joints, not all of q
    return {k: (np.flatnonzero(T.any(axis=0)), np.ascontiguousarray(T[:, T.any(axis=0)].T)) for k, T in
            (("q", Tq), ("v", Tv))}


class HumanoidTask(Task):
    frame_skip = 2
    solver_options = {"timestep": 0.0075, "newton_iterations": 4}
    max_episode_steps = 1000

    def __init__(
        self,
        *,
        xml_file: str | None = None,
        forward_reward_weight: float = 1.25,
        ctrl_cost_weight: float = 0.1,
        contact_cost_weight: float = 5e-7,
        contact_cost_range: tuple[float, float] = (-np.inf, 10.0),
        healthy_reward: float = 5.0,
        terminate_when_unhealthy: bool = True,
        healthy_z_range: tuple[float, float] = (1.0, 2.0),
        reset_noise_scale: float = 1e-2,
        frame_skip: int | None = None,
        solver_options: dict[str, Any] | None = None,
        reward_weights: dict[str, float] | None = None,
        extra_reward_terms: Iterable[RewardTerm] = (),
    ):
        super().__init__()
        self.xml_file = xml_file or humanoid_xml()
        self.contact_cost_weight = contact_cost_weight
        self.contact_cost_range = contact_cost_range
        self.terminate_when_unhealthy = terminate_when_unhealthy
        self.healthy_z_range = healthy_z_range
        self.reset_noise_scale = reset_noise_scale
        if frame_skip is not None:
            if frame_skip < 1:
                raise ValueError(f"frame_skip must be >= 1, got {frame_skip}")
            self.frame_skip = int(frame_skip)
        if solver_options is not None:
            self.solver_options = {**type(self).solver_options, **solver_options}
        terms = [
            RewardTerm("forward", lambda c: c.x_velocity, forward_reward_weight),
            RewardTerm("healthy", lambda c: c.healthy.astype(np.float64), healthy_reward),
            RewardTerm("ctrl", lambda c: np.einsum("ij,ij->i", c.action, c.action), -ctrl_cost_weight),
            RewardTerm("contact", lambda c: c.contact_cost, -1.0),
        ]
        self.rewards = RewardComposition.configured(terms, reward_weights, extra_reward_terms)

    def build_model(self) -> _core.Model:
        m = _model(self.xml_file)
        self._qpos0 = np.asarray(m.qpos0)
        self._tendons = _fixed_tendons(self.xml_file)
        return m

    def _tendon_info(self, batch) -> dict[str, np.ndarray]:
        """Humanoid-v5's tendon_length and tendon_velocity [N, ntendon]: the file's fixed
        tendons (sums of coef x joint coordinate; they do not act on the dynamics)."""
        (cq, Tq), (cv, Tv) = self._tendons["q"], self._tendons["v"]
        return {"tendon_length": batch.q[:, cq] @ Tq, "tendon_velocity": batch.u[:, cv] @ Tv}

    def spaces(self, model):
        rng = np.asarray(model.actuator_ctrlrange, dtype=np.float32).reshape(-1, 2)
        act = gym.spaces.Box(low=rng[:, 0], high=rng[:, 1], dtype=np.float32)
        n = (model.nq - 2) + model.nv + 10 * (model.nbody - 1) + 6 * (model.nbody - 1) + (model.nv - 6) + 6 * (model.nbody - 1)
        obs = gym.spaces.Box(low=-np.inf, high=np.inf, shape=(n,), dtype=np.float64)
        return obs, act

    def action_bounds(self, model):
        rng = np.asarray(model.actuator_ctrlrange, dtype=np.float64).reshape(-1, 2)
        return rng[:, 0], rng[:, 1]  # exactly the ctrlrange, not its float32 rounding

    def reset_states(self, batch, worlds):
        m = batch.model
        s = self.reset_noise_scale
        q = self._qpos0 + batch.uniform(worlds, m.nq, -s, s)
        u = batch.uniform(worlds, m.nv, -s, s)
        return q, u

    @staticmethod
    def observation_segments(model) -> list[tuple[str, int, int]]:
        """The observation as slices of each world's rows: q[2:], u, cinert, cvel,
        qfrc_actuator and cfrc_ext of the bodies after the world body (Humanoid-v5's),
        gathered in C++ by each world's step (Task.observe returns a copy)."""
        b = model.nbody - 1
        return [("q", 2, model.nq - 2), ("u", 0, model.nv), ("cinert", 10, 10 * b), ("cvel", 6, 6 * b),
                ("qfrc_actuator", 6, model.nv - 6), ("cfrc_ext", 6, 6 * b)]

    def reset_info(self, batch):
        q = batch.q  # Humanoid-v5's reset info
        return {"x_position": q[:, 0].copy(), "y_position": q[:, 1].copy(), **self._tendon_info(batch),
                "distance_from_origin": np.hypot(q[:, 0], q[:, 1])}

    def before_step(self, batch):
        # Humanoid-v5's mass_center (x, y): computed by the batch with the other derived data
        return batch.mass_centre[:, :2].copy()

    def evaluate(self, batch, before, ctrl, dt):
        vel = (batch.mass_centre[:, :2] - before) / dt
        z = batch.q[:, 2]
        healthy = (self.healthy_z_range[0] < z) & (z < self.healthy_z_range[1])
        f = batch.cfrc_ext.reshape(len(z), -1)[:, 6:]  # the bodies after the world body
        contact = self.contact_cost_weight * np.einsum("ij,ij->i", f, f)
        contact_cost = np.clip(contact, *self.contact_cost_range)
        ctx = StepContext(batch, ctrl, dt, {"x_velocity": vel[:, 0], "healthy": healthy, "contact_cost": contact_cost})
        reward, terms = self.rewards(ctx)
        w = {t.name: t.weight for t in self.rewards.terms}
        terminated = ~healthy if self.terminate_when_unhealthy else np.zeros_like(healthy)
        q = batch.q
        info = {
            "x_position": q[:, 0].copy(),
            "y_position": q[:, 1].copy(),
            **self._tendon_info(batch),
            "distance_from_origin": np.hypot(q[:, 0], q[:, 1]),
            "x_velocity": vel[:, 0],
            "y_velocity": vel[:, 1],
            "reward_survive": w["healthy"] * terms["healthy"],
            "reward_forward": w["forward"] * terms["forward"],
            "reward_ctrl": w["ctrl"] * terms["ctrl"],
            "reward_contact": w["contact"] * terms["contact"],
            "reward_terms": terms,
        }
        return reward, terminated, info

    def render_scene(self, model):
        from ..render import Camera, SceneSpec

        # Gymnasium's file (its floor, sky and colours), seen from the side, following the torso
        camera = Camera(track="torso", lookat=(0.0, 0.0, 1.0), distance=4.0, azimuth=90.0,
                        elevation=-15.0)
        return SceneSpec(source=self.xml_file, camera=camera)


HumanoidVectorEnv, HumanoidEnv = env_classes(HumanoidTask, "Humanoid")
