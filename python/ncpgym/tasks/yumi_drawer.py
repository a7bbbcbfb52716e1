"""``ncpgym/YuMiDrawer-v0``: an ABB YuMi opens a cabinet drawer with its right arm.

The seed's RL example (Macklin et al. 2019 §10.3, Fig. 15 left; Table 2 "Yumi
Cabinet": h = 0.0083 s, 5 Newton / 25 linear iterations): PPO learns to extend the arm,
grasp the handle and open the drawer through implicit PD controls on the joints, the
drawer moving only through the frictional forces of the fingers.

World (``ncpgym.envs.yumi``): YuMi from the installed rtb-data 1.0.1 URDF, implicit PD
servos on every joint (arm kp 1000 N m/rad, kv 100 N m s/rad; fingers kp 1000 N/m, kv 10
N s/m, the second finger coupled to the first), collision boxes on the fingers (mu = 1),
a cabinet with a drawer (slide 0-0.4 m, 1.5 kg, damping 3 N s/m) and a horizontal bar
handle (radius 1 cm) 0.30 m above the floor. h = 0.0083 s (the seed's), ncpgym's default 8 Newton / 50
linear iterations (with the seed's 5 / 25 the coupled fingers' two limit rows and their
coupling row, which are linearly dependent, end steps 2 mm beyond the finger limit), 2
physics steps per env step (60.2 Hz control).

Action (8, float32 in [-1, 1], clipped): the right arm's seven joint targets move by
0.05 rad x a_k per env step (kept inside the joint ranges); a_7 sets the finger target
0.025 (a_7 + 1) / 2 m (-1 closed, +1 open). The left arm holds its start pose.

Observation (35, float64): right-arm joint positions (7, rad) and velocities (7, rad/s),
finger opening (1, m), grip point minus handle centre (3, m, world axes), link-7
orientation quaternion (4, w x y z), handle centre relative to the robot base (3, m),
drawer opening and its rate (2), the eight servo targets (8).

Reward ``reach + grasp + open + action + velocity`` (named terms in
``info["reward_terms"]``, reweight with ``reward_weights``):
    reach     -|grip point - handle centre| (m)                               (weight 1)
    grasp     1 when both finger pads touch a moving body and the grip point is within
              3 cm of the handle centre, else 0                               (weight 0.5)
    open      min(drawer opening / 0.3, 1)                                   (weight 5)
    action    mean of a^2 over the 8 actions                                  (weight -0.01)
    velocity  mean of qdot^2 over the 7 arm joints                           (weight -0.001)
``info["is_success"]``: drawer opening >= 0.3 m; ``info["drawer_opening"]``. No
termination; truncation at 500 env steps (8.3 s).

Reset: arm joints at the home pose (both arms bent forward, grippers open) plus uniform
noise in [-0.05, 0.05] rad on the right arm; drawer closed; the cabinet shifted by uniform
[-0.03, 0.03] m along x and [-0.05, 0.05] m along y (a mocap body, so per world).
"""

from __future__ import annotations

import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Iterable

import gymnasium as gym
import numpy as np

from ..envs import yumi
from ..models import from_mujoco
from ..vector import Task, env_classes
from ..wrappers import RewardComposition, RewardTerm, StepContext

STEP_RAD = 0.05
OPEN_GOAL = 0.3
GRASP_RADIUS = 0.03
ARM_NOISE = 0.05
CABINET_NOISE = (0.03, 0.05)
H = 0.0083  # the seed's time step for this scene (Table 2)


@lru_cache(maxsize=1)
def _world():
    # the renderer reads the world as MJCF: one file per process (no two writers share one)
    xml = Path(tempfile.mkdtemp(prefix="ncpgym_yumi_")) / "drawer.xml"
    mj = yumi.drawer_world(H, xml_out=xml)
    return mj, from_mujoco(mj), xml


def default_terms() -> list[RewardTerm]:
    return [
        RewardTerm("reach", lambda c: -c.grip_dist, 1.0),
        RewardTerm("grasp", lambda c: c.grasped, 0.5),
        RewardTerm("open", lambda c: np.minimum(c.opening / OPEN_GOAL, 1.0), 5.0),
        RewardTerm("action", lambda c: np.mean(c.action ** 2, axis=1), -0.01),
        RewardTerm("velocity", lambda c: np.mean(c.arm_speed ** 2, axis=1), -0.001),
    ]


class YuMiDrawerTask(Task):
    frame_skip = 2
    max_episode_steps = 500

    def __init__(self, *, reward_weights: dict[str, float] | None = None,
                 extra_reward_terms: Iterable[RewardTerm] = ()):
        super().__init__()
        self.rewards = RewardComposition.configured(default_terms(), reward_weights, extra_reward_terms)
        self.targets = np.zeros((0, 16))

    def build_model(self):
        mj, model, _ = _world()
        self.mj = mj
        q = lambda name: int(mj.jnt_qposadr[mj.joint(name).id])  # noqa: E731
        v = lambda name: int(mj.jnt_dofadr[mj.joint(name).id])  # noqa: E731
        self.arm_q = np.array([q(n) for n in yumi.ARM["r"]])
        self.arm_v = np.array([v(n) for n in yumi.ARM["r"]])
        self.grip_q = q(yumi.GRIPPER["r"])
        self.slide_q, self.slide_v = q("drawer_slide"), v("drawer_slide")
        # each servo's joint (actuators are named act_<joint>)
        names = [mj.actuator(a).name.removeprefix("act_") for a in range(mj.nu)]
        self.act_q = np.array([q(n) for n in names])
        self.arm_act = np.array([names.index(n) for n in yumi.ARM["r"]])
        self.grip_act = names.index(yumi.GRIPPER["r"])
        lo, hi = mj.jnt_range[[mj.joint(n).id for n in yumi.ARM["r"]]].T
        self.arm_lo, self.arm_hi = lo, hi
        self.home = yumi.home_pose(mj)
        self.site = mj.site("grip_r").id
        self.handle_body = mj.body("drawer").id
        self.handle_local = np.array(mj.geom_pos[mj.geom("handle").id])
        self.pads = [mj.geom(f"{f}_pad").id for f in yumi.FINGERS["r"]]
        self.link7 = mj.body("yumi_link_7_r").id
        return model

    def spaces(self, model):
        obs = gym.spaces.Box(-np.inf, np.inf, shape=(35,), dtype=np.float64)
        act = gym.spaces.Box(-1.0, 1.0, shape=(8,), dtype=np.float32)
        return obs, act

    def _ensure(self, n: int) -> None:
        if self.targets.shape[0] != n:
            self.targets = np.tile(self.home[self.act_q], (n, 1))

    # -- geometry of the current states ---------------------------------------------------

    def handle(self, batch) -> np.ndarray:
        """Handle centre [N, 3] (the drawer body's frame is the cabinet's, axes aligned)."""
        return batch.xpos[:, self.handle_body] + self.handle_local

    def grip(self, batch) -> np.ndarray:
        return batch.site_xpos[:, self.site]

    # -- hooks ----------------------------------------------------------------------------

    def reset_states(self, batch, worlds):
        self._ensure(batch.num_worlds)
        n = len(worlds)
        q = np.tile(self.home, (n, 1))
        q[:, self.arm_q] += batch.uniform(worlds, 7, -ARM_NOISE, ARM_NOISE)
        shift = batch.uniform(worlds, 2, -1.0, 1.0) * np.array(CABINET_NOISE)
        batch.mocap_pos[worlds, 0, :2] = np.array(yumi.CABINET_POS[:2]) + shift
        self.targets[worlds] = q[:, self.act_q]
        return q, np.zeros((n, batch.model.nv))

    def apply_action(self, batch, action, dt):
        self._ensure(batch.num_worlds)
        arm = self.targets[:, self.arm_act] + STEP_RAD * action[:, :7]
        self.targets[:, self.arm_act] = np.clip(arm, self.arm_lo, self.arm_hi)
        self.targets[:, self.grip_act] = 0.025 * 0.5 * (action[:, 7] + 1.0)
        return self.targets.copy()

    def observe(self, batch):
        self._ensure(batch.num_worlds)
        q, u = batch.q, batch.u
        handle = self.handle(batch)
        return np.concatenate([
            q[:, self.arm_q], u[:, self.arm_v], q[:, [self.grip_q]], self.grip(batch) - handle,
            batch.xquat[:, self.link7], handle, q[:, [self.slide_q]], u[:, [self.slide_v]],
            self.targets[:, self.arm_act], self.targets[:, [self.grip_act]]], axis=1)

    def evaluate(self, batch, before, ctrl, dt):
        handle = self.handle(batch)
        dist = np.linalg.norm(self.grip(batch) - handle, axis=1)
        touching = batch.geom_dynamic_contact[:, self.pads].all(axis=1)
        grasped = (touching & (dist < GRASP_RADIUS)).astype(np.float64)
        opening = batch.q[:, self.slide_q].copy()
        ctx = StepContext(batch, ctrl, dt, {"grip_dist": dist, "grasped": grasped, "opening": opening,
                                            "arm_speed": batch.u[:, self.arm_v]})
        reward, terms = self.rewards(ctx)
        info = {"reward_terms": terms, "is_success": opening >= OPEN_GOAL, "drawer_opening": opening,
                "grip_distance": dist}
        return reward, np.zeros(batch.num_worlds, bool), info

    # -- pictures -------------------------------------------------------------------------

    def render_scene(self, model):
        from ..render import Camera, SceneSpec

        _, _, xml = _world()
        camera = Camera(lookat=(0.35, -0.12, 0.32), distance=1.35, azimuth=60.0, elevation=-20.0)  # from the robot's right, arm, handle and drawer in view
        return SceneSpec(source=xml, camera=camera)


YuMiDrawerVectorEnv, YuMiDrawerEnv = env_classes(YuMiDrawerTask, "YuMiDrawer")


# -- a scripted baseline: resolved-rate control of the grip point ---------------------------

# the gripper pointing down (link-7 z to -z) with its fingers closing along x, across the bar
TOP_GRASP = np.array([[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]])


def _rotation_vector(R: np.ndarray) -> np.ndarray:
    v = np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    n = np.linalg.norm(v)
    angle = np.arctan2(n / 2, (np.trace(R) - 1) / 2)
    return np.zeros(3) if n < 1e-12 else angle * v / n


def scripted_actions(task: YuMiDrawerTask, batch, step: int, start: np.ndarray) -> np.ndarray:
    """Actions [N, 8] of a scripted reach-grasp-pull at env step ``step`` (from the episode
    start; ``start`` [N, 3] holds each world's handle centre then): move the grip point
    10 cm above the handle with the gripper pointing down (150 steps, 2.5 s), descend (60),
    close (30), pull 0.36 m towards the robot at 0.002 m per step (0.12 m/s). Damped least
    squares on the grip site's Jacobian (ncpgym.dynamics.site_jacobian; gains 3/s), one
    world at a time."""
    from .. import dynamics as dyn

    n = batch.num_worlds
    a = np.zeros((n, 8))
    grip = task.grip(batch)
    R7 = batch.site_xmat[:, task.site]  # the grip site carries link 7's axes
    if step < 150:
        offset, close = np.array([0.0, 0.0, 0.10]), False
    elif step < 210:
        offset, close = np.array([0.0, 0.0, 0.10 * (210 - step) / 60]), False
    elif step < 240:
        offset, close = np.zeros(3), True
    else:
        offset, close = np.array([-min(0.36, 0.002 * (step - 240)), 0.0, 0.0]), True
    for i in range(n):
        J = dyn.site_jacobian(batch.model, batch.q[i], task.site)[:, task.arm_v]
        err = 3.0 * np.concatenate([start[i] + offset - grip[i], _rotation_vector(TOP_GRASP @ R7[i].T)])
        dq = J.T @ np.linalg.solve(J @ J.T + 0.05**2 * np.eye(6), err) * task.frame_skip * H
        a[i, :7] = np.clip(dq / STEP_RAD, -1.0, 1.0)
    a[:, 7] = -1.0 if close else 1.0
    return a
