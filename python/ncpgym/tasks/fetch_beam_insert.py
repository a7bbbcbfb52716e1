"""``ncpgym/FetchBeamInsert-v0``: Fetch inserts the tip of a flexible beam it holds into a
square hole, keeping the beam straight.

The seed's Fetch Beam scene (Macklin et al. 2019 §10.1.2, Fig. 7; Table 2: h = 0.0083 s,
6 Newton / 50 linear iterations): a beam of 16 rigid bodies of 3 g joined with 250 N m/rad
bending springs, which relaxation solvers cannot keep stiff and PCR can (Fig. 18; here
``benchmarks/contact_scenes.py``, fetch_beam rows).

World (``ncpgym.envs.fetch.beam``): Gymnasium-Robotics' Fetch (installed package) with
implicit PD servos and resolved-rate control of its grip site (``envs.fetch``), the gripper
pointing down; the beam welded to the gripper (a 4 cm handle between the fingers, then 16
links of 3 g, 1.25 cm long, 6 mm square, 20 cm in all, two 250 N m/rad bending hinges
between links, the springs solved as compliant rows of the NCP solve:
``implicit_springs=False``); a fixture on the table, 8 cm wide and 4 cm tall, with a 14 mm
square hole (4 mm of clearance around the beam). h = 0.0083 s, 4 physics steps per env
step (30.1 Hz), the seed's 6 Newton / 50 linear iterations.

Action (3, float32 in [-1, 1], clipped): the grip goal moves by 0.005 m x a (world x, y,
z; kept in x 1.05-1.55, y 0.40-1.10, z 0.624-0.85 m: the tip no lower than the hole's
floor); the fingers stay on the handle.

Observation (30, float64): grip site position (3, m), arm joint positions (7) and
velocities (7), beam tip minus the hole's top centre (3), tip velocity (3), tip minus where
a straight beam would put it (3; its bending), grip goal minus grip site (3), insertion
depth d (1).

Let t be the beam's tip, c the centre of the hole's top, d = c_z - t_z when the tip is
inside the hole's outline (|t_x - c_x|, |t_y - c_y| < 7 mm), else 0, and b the beam's
bend, the angle between its handle and its last link (rad). Reward ``reach + insert +
success + bend + action`` (named terms in ``info["reward_terms"]``, reweight with
``reward_weights``):
    reach    -|t - c| (m)                                     (weight 5)
    insert   min(max(d, 0) / 0.03, 1) if b < 0.05, else 0     (weight 5)
    success  1 if d >= 0.03 and b < 0.05, else 0              (weight 5)
    bend     b (rad)                                          (weight -5)
    action   mean of a^2                                      (weight -0.01)
``info["is_success"]``: d >= 0.03 m (three quarters of the hole's depth) with b < 0.05
rad (the success term). Depth counts only while the beam is straight: a beam forced into
the hole bent (jammed on the rim) earns nothing for it (a first version rewarded depth
alone, and PPO learned to jam the tip in: 3 cm deep, bent 0.11 rad, 0 % success). Also ``info["depth"]`` (d) and ``info["bend"]`` (b). No termination; truncation at
150 env steps (5 s).

Reset: arm joints at the beam home pose (grip site at (1.25, 0.75, 0.74), the tip 8 cm
above the hole) plus uniform noise in [-0.03, 0.03] rad; the beam straight and at rest;
the fixture shifted by uniform [-0.03, 0.03] m in x and y from (1.25, 0.75).
"""

from __future__ import annotations

import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Iterable

import gymnasium as gym
import numpy as np

from ..envs import fetch
from ..envs.fetch import beam
from ..models import from_mujoco
from ..vector import Task, env_classes
from ..wrappers import RewardComposition, RewardTerm, StepContext

H = 0.0083
STEP_POS = 0.005
# z: the tip (0.22 m below the grip site) reaches the hole's floor and no lower
WORKSPACE = (np.array([1.05, 0.40, fetch.TABLE_TOP + 0.004 + beam.tip_offset() - 0.02]), np.array([1.55, 1.10, 0.85]))
INSERT_GOAL = 0.03
STRAIGHT = 0.05
ARM_NOISE = 0.03
FIXTURE_NOISE = 0.03


@lru_cache(maxsize=1)
def _world():
    # the renderer reads the world as MJCF: one file per process (no two writers share one)
    xml = Path(tempfile.mkdtemp(prefix="ncpgym_fetch_beam_")) / "beam.xml"
    mj = fetch.compile_spec(beam.beam_spec(H), xml)
    return mj, from_mujoco(mj, source="ncpgym.envs.fetch.beam"), xml


def default_terms() -> list[RewardTerm]:
    return [
        RewardTerm("reach", lambda c: -c.reach, 5.0),
        RewardTerm("insert", lambda c: np.where(c.bend < STRAIGHT, np.clip(c.depth / INSERT_GOAL, 0.0, 1.0), 0.0), 5.0),
        RewardTerm("success", lambda c: c.success.astype(float), 5.0),
        RewardTerm("bend", lambda c: c.bend, -5.0),
        RewardTerm("action", lambda c: np.mean(c.action ** 2, axis=1), -0.01),
    ]


def quat_angle(qa: np.ndarray, qb: np.ndarray) -> np.ndarray:
    """Angles [N] of the rotations between unit quaternions qa and qb [N, 4] (w x y z)."""
    dot = np.abs(np.sum(qa * qb, axis=1))
    return 2.0 * np.arccos(np.clip(dot, 0.0, 1.0))


class FetchBeamInsertTask(Task):
    frame_skip = 4
    solver_options = {"newton_iterations": 6, "linear_iterations": 50, "implicit_springs": False}
    max_episode_steps = 150

    def __init__(self, *, reward_weights: dict[str, float] | None = None,
                 extra_reward_terms: Iterable[RewardTerm] = ()):
        super().__init__()
        self.rewards = RewardComposition.configured(default_terms(), reward_weights, extra_reward_terms)
        self.targets = np.zeros((0, 12))
        self.goal = np.zeros((0, 3))

    def build_model(self):
        mj, model, _ = _world()
        self.mj = mj
        self.idx = fetch.indices(mj)
        self.home = beam.home_pose(mj)
        self.home_targets = self.home[self.idx.act_q]
        self.tip = mj.site("beam_tip").id
        self.last = mj.body(f"beam{beam.BEAM_LINKS - 1}").id
        self.handle = mj.body("beam_handle").id
        self.beam_q = beam.beam_joints(mj)
        return model

    def spaces(self, model):
        obs = gym.spaces.Box(-np.inf, np.inf, shape=(30,), dtype=np.float64)
        act = gym.spaces.Box(-1.0, 1.0, shape=(3,), dtype=np.float32)
        return obs, act

    def _ensure(self, n: int) -> None:
        if self.targets.shape[0] != n:
            self.targets = np.tile(self.home_targets, (n, 1))
            self.goal = np.zeros((n, 3))

    # -- state of the scene ---------------------------------------------------------------

    def hole_top(self, batch) -> np.ndarray:
        """Centre of the hole's top [N, 3] (the fixture is mocap body 0)."""
        return batch.mocap_pos[:, 0] + [0.0, 0.0, beam.HOLE_DEPTH]

    def tip_pos(self, batch) -> np.ndarray:
        return batch.site_xpos[:, self.tip]

    def straight_tip(self, batch) -> np.ndarray:
        """Where the tip of a straight beam would be: along the handle's axis."""
        R = batch.site_xmat[:, self.idx.grip_site].reshape(-1, 3, 3)  # the grip site has the gripper's axes
        return batch.xpos[:, self.handle] + R[:, :, 0] * beam.tip_offset()

    def depth(self, batch) -> np.ndarray:
        t, c = self.tip_pos(batch), self.hole_top(batch)
        inside = np.all(np.abs(t[:, :2] - c[:, :2]) < beam.HOLE / 2, axis=1)
        return np.where(inside, c[:, 2] - t[:, 2], 0.0)

    def bend(self, batch) -> np.ndarray:
        return quat_angle(batch.xquat[:, self.handle], batch.xquat[:, self.last])

    def grip(self, batch):
        return fetch.grip_frame(batch, self.idx)

    # -- hooks ----------------------------------------------------------------------------

    def reset_states(self, batch, worlds):
        self._ensure(batch.num_worlds)
        n = len(worlds)
        q = fetch.noisy_home(self.home, self.idx, batch, worlds, ARM_NOISE)
        batch.mocap_pos[worlds, 0, :2] = np.array(beam.FIXTURE_POS) + batch.uniform(
            worlds, 2, -FIXTURE_NOISE, FIXTURE_NOISE)
        self.targets[worlds] = q[:, self.idx.act_q]
        return q, np.zeros((n, batch.model.nv))

    def after_reset(self, batch, worlds):
        self.goal[worlds] = batch.site_xpos[worlds, self.idx.grip_site]

    def apply_action(self, batch, action, dt):
        self._ensure(batch.num_worlds)
        goal = np.clip(self.goal + STEP_POS * action, *WORKSPACE)
        step, self.goal = goal - self.goal, goal
        pos, R = self.grip(batch)
        down = fetch.yaw_frame(np.zeros(batch.num_worlds))
        self.targets[:, self.idx.arm_act] = fetch.ik_targets(
            batch.model, batch.q, self.idx, self.targets[:, self.idx.arm_act], self.goal, down, pos, R,
            goal_step=step)
        self.targets[:, self.idx.finger_act] = beam.HANDLE_GRIP
        return self.targets.copy()

    def observe(self, batch):
        self._ensure(batch.num_worlds)
        pos, _ = self.grip(batch)
        t = self.tip_pos(batch)
        vt = self._tip_velocity(batch)
        i = self.idx
        return np.concatenate([
            pos, batch.q[:, i.arm_q], batch.u[:, i.arm_v], t - self.hole_top(batch), vt,
            t - self.straight_tip(batch), self.goal - pos, self.depth(batch)[:, None]], axis=1)

    def _tip_velocity(self, batch) -> np.ndarray:
        """Linear velocity of the tip [N, 3] (its site Jacobian times u)."""
        from .. import dynamics as dyn

        J = dyn.site_jacobian(batch.model, batch.q, self.tip)[:, :3]
        return np.einsum("nij,nj->ni", J, batch.u)

    def evaluate(self, batch, before, ctrl, dt):
        t, c = self.tip_pos(batch), self.hole_top(batch)
        depth = self.depth(batch)
        bend = self.bend(batch)
        success = (depth >= INSERT_GOAL) & (bend < STRAIGHT)
        ctx = StepContext(batch, ctrl, dt, {"reach": np.linalg.norm(t - c, axis=1), "depth": depth, "bend": bend,
                                            "success": success})
        reward, terms = self.rewards(ctx)
        info = {"reward_terms": terms, "is_success": success, "depth": depth, "bend": bend}
        return reward, np.zeros(batch.num_worlds, bool), info

    # -- pictures -------------------------------------------------------------------------

    def render_scene(self, model):
        from ..render import Camera, SceneSpec

        _, _, xml = _world()
        camera = Camera(lookat=(1.25, 0.75, 0.55), distance=0.9, azimuth=35.0, elevation=-15.0)  # beam and fixture in view
        return SceneSpec(source=xml, camera=camera)


FetchBeamInsertVectorEnv, FetchBeamInsertEnv = env_classes(FetchBeamInsertTask, "FetchBeamInsert")


SCRIPTED_DEPTH = 0.033  # m: short of the hole's floor (3.6 cm down)


def scripted_actions(task: FetchBeamInsertTask, batch, step: int) -> np.ndarray:
    """Actions [N, 3] of a scripted insertion: the grip goal is sent where it would put the
    tip on a target (the grip site plus the target minus the tip): 2 cm over the hole's
    centre until the tip is within 3 mm of it horizontally, then SCRIPTED_DEPTH down into
    it, at up to 2.5 mm per step. Reads only the tip, the hole and the grip site."""
    t, c = task.tip_pos(batch), task.hole_top(batch)
    pos, _ = task.grip(batch)
    aligned = (np.linalg.norm((c - t)[:, :2], axis=1) < 0.003) | (task.depth(batch) > 0)
    target = c + np.where(aligned[:, None], [0.0, 0.0, -SCRIPTED_DEPTH], [0.0, 0.0, 0.02])
    return np.clip((pos + target - t - task.goal) / STEP_POS, -0.5, 0.5)
