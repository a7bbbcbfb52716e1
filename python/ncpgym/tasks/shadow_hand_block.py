"""``ncpgym/ShadowHandBlock-v0``: the Shadow hand turns a block in its palm to a target
orientation (Gymnasium-Robotics' HandManipulateBlockRotateZ, on hard contact).

World: Gymnasium-Robotics' ``hand/manipulate_block.xml``, loaded strictly from the installed
package (never copied): the Shadow hand's 24 joints (the distal J0 of four fingers coupled to J1
by fixed tendons), its 20 position servos, a 5 cm block (condim 4: torsional friction) and the
target's ghost block (no contacts; each env step puts it beside the block at the goal's
orientation, as theirs does, for pictures). Physics steps of h = 8 ms, 5 per env step
(0.04 s: their 25 Hz), 8 Newton iterations started from the motion above 0.05 m/s
(``start_from_motion``; from rest a non-converged step launched the block in 1 of 8 worlds).

Goal: ``target="z"`` (the default, their RotateZ): the block's orientation q* = Rz(theta),
theta uniform in [-pi, pi]; ``target="full"``: a rotation by an angle uniform in [-pi, pi]
about an axis uniform in [-1, 1]^3 (normalised), their RotateXYZ. The block's position is
not part of the goal (theirs "ignore"). Distance d = the angle of q q*^-1, 2 arccos |w| in
[0, pi] (theirs takes w without the absolute value, so the same orientation can read 2 pi).

Action (20, float32 in [-1, 1], clipped): servo targets. ``control="absolute"`` (the
default, theirs too): target_i = (lo_i + hi_i) / 2 + a_i (hi_i - lo_i) / 2 over the servo's
range [lo_i, hi_i]. ``control="relative"`` (theirs ``relative_control=True``): target_i =
x_i + a_i (hi_i - lo_i) / 2 clipped to [lo_i, hi_i], x_i the actuated joint's position
(J1 + J0 for the coupled fingers); a zero action then lets the hand sag under gravity step
by step.

Observation (88, float64), as theirs plus three helpers: the 24 joint positions (rad) and
velocities (rad/s), the block's velocity (6: linear m/s, angular rad/s, world), its pose (7:
position m, quaternion w >= 0), the goal (7: the block's position, q* with w >= 0); then
the rotation still to make q^-1 q* (4, w >= 0), d (rad), and the five fingertips relative to
the block's centre (15, m; thumb last).

Reward ``rotation + progress + success + dropped + action`` (named terms in
``info["reward_terms"]``, reweight with ``reward_weights``):
    rotation  1 - d / pi, in [0, 1]                                (weight 1)
    progress  d before the step - d after it                       (weight 5)
    success   1 when d < 0.1 rad, else 0                           (weight 2)
    dropped   1 on the step the block falls off the palm           (weight -20)
    action    mean of a^2 over the 20 actions                      (weight -0.01)
``info["is_success"]``: d < 0.1 rad (theirs); ``info["rotation_error"]`` (d),
``info["dropped"]``. Termination: the block's centre falls 5 cm below where it rests
(``dropped``). Truncation: 100 env steps (4 s), theirs. Their dense reward is -d; the
rotation term is -d / pi shifted by 1 so that a step is worth more than none: with -d and a
termination, dropping the block early ends the negative rewards and pays (the first PPO run,
session 40, learned to drop it in about one episode in eight).

Reset: the hand at the pose its servos hold at mid-range with the block resting in the palm
(settled once at build: 0.6 s from their start), the block turned about its own z by an
angle uniform in [-pi, pi] (``target="full"``: about a random axis, lifted clear of the palm
by 1 cm) and moved by N(0, 5 mm) in x and y; at rest.

Training aid ``near_goals`` (default 0, in [0, 1]; a ``training_aids`` option, so
evaluations and ``ncpgym.play`` leave it out): that share of episodes draws its goal near
where the block starts, a rotation by delta uniform in [-pi/4, pi/4] away from it: for
``target="z"`` q* = Rz(psi + delta) with psi the block's start yaw (the heading of its x
axis in the world's xy plane), so the goal stays one of RotateZ's; for ``"full"`` q* = q0
R(axis, delta) about an axis uniform in [-1, 1]^3. Drawn after the reset's own numbers
(choice, delta, then the axis), so with 0 every episode is bitwise the task's.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Iterable

import gymnasium as gym
import numpy as np

from ..vector import Task, env_classes
from ..wrappers import RewardComposition, RewardTerm, StepContext
from .options import share

H = 0.008                  # physics step (s)
FRAME_SKIP = 5             # 0.04 s per env step: Gymnasium-Robotics' 20 x 2 ms
ROTATION_THRESHOLD = 0.1   # rad, theirs
POSITION_NOISE = 0.005     # m, theirs (x and y here: z would push the block into the palm)
DROP_HEIGHT = 0.05         # m below the resting height
NEAR_GOAL_ANGLE = np.pi / 4  # the near_goals training aid's largest rotation
TARGET_OFFSET = np.array([0.15, 0.0, 0.0])  # the ghost beside the block (theirs for position "ignore")
SETTLE_SECONDS = 0.6
TIPS = ["robot0:S_fftip", "robot0:S_mftip", "robot0:S_rftip", "robot0:S_lftip", "robot0:S_thtip"]
COUPLED = ["FF", "MF", "RF", "LF"]  # J1 actuators drive J1 + J0 (a fixed tendon couples them)


def model_path() -> str:
    """Gymnasium-Robotics' ``hand/manipulate_block.xml`` in the installed package."""
    import gymnasium_robotics

    return os.path.join(os.path.dirname(gymnasium_robotics.__file__), "envs", "assets", "hand", "manipulate_block.xml")


@lru_cache(maxsize=1)
def _world():
    import mujoco

    from ..models import load_model

    path = model_path()
    return mujoco.MjModel.from_xml_path(path), load_model(path)  # strict


# -- quaternions (w, x, y, z) on the last axis ---------------------------------------------------

def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    aw, ax, ay, az = np.moveaxis(a, -1, 0)
    bw, bx, by, bz = np.moveaxis(b, -1, 0)
    return np.stack([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw], axis=-1)


def quat_conj(q: np.ndarray) -> np.ndarray:
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def axis_angle_quat(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    axis = axis / np.linalg.norm(axis, axis=-1, keepdims=True)
    return np.concatenate([np.cos(angle / 2)[..., None], np.sin(angle / 2)[..., None] * axis], axis=-1)


def canonical(q: np.ndarray) -> np.ndarray:
    """The same rotation with w >= 0."""
    return np.where(q[..., :1] < 0, -q, q)


def rotation_angle(q: np.ndarray, goal: np.ndarray) -> np.ndarray:
    """Angle (rad, in [0, pi]) of the rotation q goal^-1 between two unit quaternions."""
    w = np.abs(quat_mul(q, quat_conj(goal))[..., 0])
    return 2.0 * np.arccos(np.clip(w, 0.0, 1.0))


def default_terms() -> list[RewardTerm]:
    return [
        RewardTerm("rotation", lambda c: 1.0 - c.distance / np.pi, 1.0),
        RewardTerm("progress", lambda c: c.distance_before - c.distance, 5.0),
        RewardTerm("success", lambda c: (c.distance < ROTATION_THRESHOLD).astype(np.float64), 2.0),
        RewardTerm("dropped", lambda c: c.dropped.astype(np.float64), -20.0),
        RewardTerm("action", lambda c: np.mean(c.action ** 2, axis=1), -0.01),
    ]


class ShadowHandBlockTask(Task):
    frame_skip = FRAME_SKIP
    solver_options = {"timestep": H, "newton_iterations": 8, "start_from_motion": 0.05}
    max_episode_steps = 100
    training_aids = ("near_goals",)

    def __init__(self, *, target: str = "z", control: str = "absolute",
                 reward_weights: dict[str, float] | None = None, extra_reward_terms: Iterable[RewardTerm] = (),
                 near_goals: float = 0.0):
        super().__init__()
        self.near_goals = share("near_goals", near_goals)
        if target not in ("z", "full"):
            raise ValueError(f"target: expected 'z' (rotate about z) or 'full' (any rotation), got {target!r}")
        if control not in ("relative", "absolute"):
            raise ValueError(f"control: expected 'relative' or 'absolute', got {control!r}")
        self.target, self.control = target, control
        self.rewards = RewardComposition.configured(default_terms(), reward_weights, extra_reward_terms)
        self.goal = np.zeros((0, 4))
        self.distance = np.zeros(0)

    def build_model(self):
        mj, model = _world()
        self.mj = mj
        robot = [j for j in range(mj.njnt) if mj.joint(j).name.startswith("robot0:")]
        self.robot_q = np.array([mj.jnt_qposadr[j] for j in robot])
        self.robot_v = np.array([mj.jnt_dofadr[j] for j in robot])
        obj, tgt = mj.joint("object:joint").id, mj.joint("target:joint").id
        self.object_q, self.object_v = int(mj.jnt_qposadr[obj]), int(mj.jnt_dofadr[obj])
        self.target_q, self.target_v = int(mj.jnt_qposadr[tgt]), int(mj.jnt_dofadr[tgt])
        self.lo, self.hi = mj.actuator_ctrlrange[:, 0].copy(), mj.actuator_ctrlrange[:, 1].copy()
        # each servo's joint (and the coupled J0 its J1 actuator also moves)
        self.servo_q = np.array([mj.jnt_qposadr[mj.joint(mj.actuator(a).name.replace(":A_", ":")).id]
                                 for a in range(mj.nu)])
        self.coupled_act = np.array([mj.actuator(f"robot0:A_{f}J1").id for f in COUPLED])
        self.coupled_q = np.array([mj.jnt_qposadr[mj.joint(f"robot0:{f}J0").id] for f in COUPLED])
        self.tips = np.array([mj.site(s).id for s in TIPS])
        self.q_rest, self.rest_height = _settled(model, mj, self.object_q, (self.lo + self.hi) / 2)
        return model

    def spaces(self, model):
        obs = gym.spaces.Box(-np.inf, np.inf, shape=(88,), dtype=np.float64)
        act = gym.spaces.Box(-1.0, 1.0, shape=(20,), dtype=np.float32)
        return obs, act

    def _ensure(self, n: int) -> None:
        if self.goal.shape[0] != n:
            self.goal = np.tile([1.0, 0.0, 0.0, 0.0], (n, 1))
            self.distance = np.zeros(n)

    def _random_rotation(self, batch, worlds) -> np.ndarray:
        angle = batch.uniform(worlds, 1, -np.pi, np.pi)[:, 0]
        if self.target == "z":
            axis = np.tile([0.0, 0.0, 1.0], (len(worlds), 1))
        else:
            axis = batch.uniform(worlds, 3, -1.0, 1.0)
        return axis_angle_quat(axis, angle)

    # -- hooks ----------------------------------------------------------------------------

    def reset_states(self, batch, worlds):
        self._ensure(batch.num_worlds)
        n = len(worlds)
        q = np.tile(self.q_rest, (n, 1))
        o = self.object_q
        q[:, o + 3:o + 7] = quat_mul(q[:, o + 3:o + 7], self._random_rotation(batch, worlds))  # about its own axes
        q[:, o:o + 2] += POSITION_NOISE * batch.normal(worlds, 2)
        if self.target == "full":
            q[:, o + 2] += 0.01  # a turned cube's corners reach below its resting face
        self.goal[worlds] = canonical(self._random_rotation(batch, worlds))
        if self.near_goals > 0.0:  # (no extra draws without: default episodes stay bitwise)
            self._near_goals(batch, worlds, q[:, o + 3:o + 7])
        q[:, self.target_q:self.target_q + 3] = q[:, o:o + 3] + TARGET_OFFSET
        q[:, self.target_q + 3:self.target_q + 7] = self.goal[worlds]
        self.distance[worlds] = rotation_angle(q[:, o + 3:o + 7], self.goal[worlds])
        return q, np.zeros((n, batch.model.nv))

    def _near_goals(self, batch, worlds, start) -> None:
        """Give a near_goals share of ``worlds`` a goal within NEAR_GOAL_ANGLE of the block's
        start orientation ``start`` [n, 4] (the docstring's training aid)."""
        draw = batch.uniform(worlds, 2, 0.0, 1.0)
        chosen = draw[:, 0] < self.near_goals
        delta = (2.0 * draw[:, 1] - 1.0) * NEAR_GOAL_ANGLE
        if self.target == "z":
            w, x, y, z = start.T  # the block's x axis in the world: first column of R(start)
            yaw = np.arctan2(2 * (x * y + w * z), 1 - 2 * (y * y + z * z))
            near = axis_angle_quat(np.tile([0.0, 0.0, 1.0], (len(worlds), 1)), yaw + delta)
        else:
            near = quat_mul(start, axis_angle_quat(batch.uniform(worlds, 3, -1.0, 1.0), delta))
        self.goal[worlds[chosen]] = canonical(near[chosen])

    def apply_action(self, batch, action, dt):
        self._ensure(batch.num_worlds)
        half = (self.hi - self.lo) / 2
        if self.control == "relative":
            centre = batch.q[:, self.servo_q].copy()
            centre[:, self.coupled_act] += batch.q[:, self.coupled_q]
        else:
            centre = (self.lo + self.hi) / 2
        # the ghost block shows the goal beside the block; it has no contacts and is held still
        o, t = self.object_q, self.target_q
        batch.q[:, t:t + 3] = batch.q[:, o:o + 3] + TARGET_OFFSET
        batch.q[:, t + 3:t + 7] = self.goal
        batch.u[:, self.target_v:self.target_v + 6] = 0.0
        return np.clip(centre + action * half, self.lo, self.hi)

    def observe(self, batch):
        self._ensure(batch.num_worlds)
        o = self.object_q
        pos, quat = batch.q[:, o:o + 3], canonical(batch.q[:, o + 3:o + 7])
        remaining = canonical(quat_mul(quat_conj(quat), self.goal))
        tips = batch.site_xpos[:, self.tips] - pos[:, None, :]
        return np.concatenate([
            batch.q[:, self.robot_q], batch.u[:, self.robot_v], batch.u[:, self.object_v:self.object_v + 6],
            pos, quat, pos, self.goal, remaining, rotation_angle(quat, self.goal)[:, None],
            tips.reshape(len(pos), 15)], axis=1)

    def before_step(self, batch):
        self._ensure(batch.num_worlds)
        o = self.object_q
        return rotation_angle(batch.q[:, o + 3:o + 7], self.goal)  # d before the step, from the state

    def evaluate(self, batch, before, ctrl, dt):
        o = self.object_q
        self.distance = rotation_angle(batch.q[:, o + 3:o + 7], self.goal)
        dropped = batch.q[:, o + 2] < self.rest_height - DROP_HEIGHT
        ctx = StepContext(batch, ctrl, dt, {"distance": self.distance, "distance_before": before, "dropped": dropped})
        reward, terms = self.rewards(ctx)
        info = {"reward_terms": terms, "is_success": self.distance < ROTATION_THRESHOLD,
                "rotation_error": self.distance.copy(), "dropped": dropped}
        return reward, dropped, info

    def reset_info(self, batch):
        return {"rotation_error": self.distance.copy()}

    def render_scene(self, model):
        from ..render import Camera, SceneSpec

        # Gymnasium-Robotics' default view, moved to show the goal's ghost beside the block
        camera = Camera(lookat=(1.05, 0.93, 0.15), distance=0.45, azimuth=55.0, elevation=-30.0)
        return SceneSpec(source=model_path(), camera=camera)


def _settled(model, mj, object_q: int, ctrl: np.ndarray) -> tuple[np.ndarray, float]:
    """The state their reset settles into: from qpos0 (the block above the palm), the servos at
    mid-range for SETTLE_SECONDS. Returns (q, the block's resting height); each episode then
    turns the block about its own axes from there."""
    from .. import Batch

    b = Batch(model, 1, num_threads=1, **ShadowHandBlockTask.solver_options)
    b.reset(None, mj.qpos0[None, :].copy(), np.zeros((1, model.nv)))
    b.ctrl[:] = ctrl
    target = mj.jnt_qposadr[mj.joint("target:joint").id]
    for _ in range(int(round(SETTLE_SECONDS / H))):
        b.q[0, target:target + 7] = mj.qpos0[target:target + 7]
        b.u[0, mj.jnt_dofadr[mj.joint("target:joint").id]:][:6] = 0.0
        b.step()
    q = np.array(b.q[0])
    q[object_q + 3:object_q + 7] = canonical(q[object_q + 3:object_q + 7] / np.linalg.norm(q[object_q + 3:object_q + 7]))
    return q, float(q[object_q + 2])


ShadowHandBlockVectorEnv, ShadowHandBlockEnv = env_classes(ShadowHandBlockTask, "ShadowHandBlock")


def grasp_controls(task: ShadowHandBlockTask) -> tuple[np.ndarray, np.ndarray]:
    """Servo targets (nu) of a scripted power grasp on the block in the palm: (open, closed).
    Open: every joint at 0 (inside its range): a flat palm, fingers straight. Closed: the four
    fingers' J2 at 1.2 rad and J1 (+ J0) at 1.4 rad, the thumb turned under the block (THJ4
    1.0, THJ3 1.222, THJ1 0.524, THJ0 -0.5 rad)."""
    mj = task.mj
    act = {mj.actuator(a).name.split(":A_")[1]: a for a in range(mj.nu)}
    open_ = np.clip(0.0, task.lo, task.hi)
    closed = open_.copy()
    for f in COUPLED:
        closed[act[f + "J2"]], closed[act[f + "J1"]] = 1.2, 1.4
    for name, value in dict(THJ4=1.0, THJ3=1.222, THJ2=0.0, THJ1=0.524, THJ0=-0.5).items():
        closed[act[name]] = value
    return open_, closed
