"""``ncpgym/HumanoidFlagrun-v0``: Roboschool's HumanoidFlagrun on ncpgym's physics.

The exact definition implemented here (Roboschool's, transcribed; departures noted):

Model: ``ncpgym/envs/humanoid/humanoid_flagrun.xml``, 13 bodies (the two feet are
    jointless bodies welded to the shins), 17 hinges, capsules of the published radii;
    body geoms collide with the floor, not with each other.
Control: period 0.0165 s (two physics steps of 0.00825 s, 4 Newton iterations each); 17
    actions in [-1, 1] (clipped), motor torque 0.41 * power * a (power: abdomen 100, hip
    x/z 100, hip y 300, knee 200, shoulders and elbows 75).
Observation (44, float32 values clipped to [-5, 5]):
    [z - z0, sin(angle to flag), cos(angle to flag), 0.3 * (vx, vy, vz) of the torso in
    the yaw frame, roll, pitch] (8), then per joint (in actuator order) the position
    scaled to [-1, 1] over its range and 0.1 * its speed (34, interleaved: position,
    speed, position, ...), then the right and left foot contact flags (2: 1 when the foot
    touches the ground). The robot's x, y is the mean of its bodies' origins; z is the
    torso's; z0 is z at reset. Roll, pitch, yaw are the torso's ZYX Euler angles
    (orientation = Rz(yaw) Ry(pitch) Rx(roll)); the angle to the flag is the bearing of
    the flag from the robot's x, y minus yaw (positive: the flag is to the left); the yaw
    frame velocity is the torso's world linear velocity rotated by -yaw (forward, left, up).
Flag: uniform in x in [-13.125, 13.125], y in [-6.25, 6.25] (Roboschool's stadium halved);
    the first flag of an episode lies ahead (x in [2, 13.125]) half of the time; a new flag
    is drawn when the robot comes within 1 m of it or after 150 steps.
Reward terms (``info["reward_terms"]``, unweighted; reward = weighted sum):
    alive        +2 if z > 0.78 else -1                                  (weight 1)
    progress     (distance before - distance after) / 0.0165, i.e. the change of the
                 potential -distance/dt (no jump when the flag moves)     (weight 1)
    electricity  mean |a * 0.1 qdot| (weight -8.5) and stall: mean a^2 (weight -0.425)
    joints_at_limit  number of joints with |scaled position| > 0.99        (weight -0.1)
    feet_collision   feet touching something that is not the ground (Harder's cube, the other
                 leg) (weight -1), also while the foot stands on the ground
Termination: alive < 0 (torso at or below 0.78 m) or a non-finite q. Truncation: 1000 steps.
Reset: qpos0 with every hinge offset uniformly in [-0.03, 0.03] rad, zero velocity, torso
    yaw uniform in [-pi, pi] (Roboschool spawns facing +x; a random heading makes the
    first flag's direction uniform).
Random draws: each world's own stream (``Batch.uniform``), in this order at a reset: the
    hinge offsets (one per hinge, in actuator order), the yaw, then the flag's three numbers
    r0, r1, r2 in [0, 1): x = (2 r0 - 1) 13.125, y = (2 r1 - 1) 6.25, and for the first flag
    x = 2 + r0 (13.125 - 2) when r2 < 0.5; a later flag draws r0, r1, r2 the same way.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Iterable

import gymnasium as gym
import numpy as np

from .. import _core
from ..models import load_model
from ..vector import Task, env_classes
from ..wrappers import RewardComposition, RewardTerm, StepContext
from .curriculum import FailureWeightedDraw
from .options import share

DT = 0.0165
HALF_X, HALF_Y = 0.5 * 105 * 0.25, 0.5 * 50 * 0.25


def flagrun_xml() -> str:
    return os.path.join(os.path.dirname(os.path.dirname(__file__)), "envs", "humanoid", "humanoid_flagrun.xml")


@lru_cache(maxsize=2)
def _model(path: str) -> _core.Model:
    return load_model(path)


def _rpy(quat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Roll, pitch, yaw (ZYX, as Bullet's getEulerFromQuaternion) of [N, 4] wxyz quaternions."""
    w, x, y, z = quat.T
    roll = np.arctan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    pitch = np.arcsin(np.clip(2 * (w * y - z * x), -1, 1))
    yaw = np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    return roll, pitch, yaw


def _feet_collision(c: StepContext) -> np.ndarray:
    """Feet touching something that is not the ground (a thrown cube): 1 per foot."""
    feet = c.feet
    # a contact with a moving body: counted also while the foot stands on the ground
    return c.batch.geom_dynamic_contact[:, feet].sum(axis=1).astype(float)


def default_terms() -> list[RewardTerm]:
    return [
        RewardTerm("alive", lambda c: np.where(c.z > 0.78, 2.0, -1.0), 1.0),
        RewardTerm("progress", lambda c: (c.dist_before - c.dist_after) / c.dt, 1.0),
        RewardTerm("electricity", lambda c: np.abs(c.action * c.joint_speed).mean(axis=1), -8.5),
        RewardTerm("stall_torque", lambda c: np.square(c.action).mean(axis=1), -0.425),
        RewardTerm("joints_at_limit", lambda c: (np.abs(c.joint_pos) > 0.99).sum(axis=1).astype(float), -0.1),
        RewardTerm("feet_collision", _feet_collision, -1.0),
    ]


class HumanoidFlagrunTask(Task):
    frame_skip = 2
    # 4 Newton iterations, picked from benchmarks/work_precision.py (humanoid, h = 1/120): the
    # deepest foot penetration 1.2 mm at 4 iterations against 0.22 mm at 8, for 0.61 of the
    # wall time; MuJoCo at its defaults sinks 21 mm at this step for about the same cost
    solver_options = {"timestep": DT / 2, "newton_iterations": 4}
    max_episode_steps = 1000

    def __init__(self, *, reward_weights: dict[str, float] | None = None,
                 extra_reward_terms: Iterable[RewardTerm] = (), flag_timeout: int = 150):
        super().__init__()
        self.rewards = RewardComposition.configured(default_terms(), reward_weights, extra_reward_terms)
        self.flag_timeout = flag_timeout

    model_file = "humanoid_flagrun.xml"

    def build_model(self):
        m = _model(os.path.join(os.path.dirname(flagrun_xml()), self.model_file))
        self._hinge_q = np.array([m.jnt_qposadr[j] for j in m.actuator_joint])
        self._hinge_v = np.array([m.jnt_dofadr[j] for j in m.actuator_joint])
        rng = np.asarray(m.jnt_range).reshape(-1, 2)[np.asarray(m.actuator_joint)]
        self._mid, self._half = rng.mean(axis=1), 0.5 * (rng[:, 1] - rng[:, 0])
        self._feet = np.array([m.geom_id("right_foot"), m.geom_id("left_foot")])
        self._qpos0 = np.asarray(m.qpos0)
        return m

    def spaces(self, model):
        obs = gym.spaces.Box(-5.0, 5.0, shape=(44,), dtype=np.float32)
        act = gym.spaces.Box(-1.0, 1.0, shape=(model.nu,), dtype=np.float32)
        return obs, act

    # -- per-world task state (flag, timers, z0), arrays over worlds ----------------------

    def _ensure_state(self, n: int) -> None:
        if getattr(self, "_n", None) != n:
            self._n = n
            self.flag = np.zeros((n, 2))
            self.timer = np.zeros(n, np.int64)
            self.z0 = np.full(n, 1.4)

    def _new_flags(self, batch, worlds: np.ndarray, first: bool) -> None:
        r = batch.uniform(worlds.astype(np.int32), 3, 0.0, 1.0)
        x = (2 * r[:, 0] - 1) * HALF_X
        y = (2 * r[:, 1] - 1) * HALF_Y
        if first:  # ahead of the spawn point half of the time
            ahead = r[:, 2] < 0.5
            x = np.where(ahead, 2.0 + r[:, 0] * (HALF_X - 2.0), x)
        self.flag[worlds] = np.stack([x, y], axis=1)
        self.timer[worlds] = self.flag_timeout

    def reset_states(self, batch, worlds):
        self._ensure_state(batch.num_worlds)
        m = batch.model
        k = len(worlds)
        q = np.tile(self._qpos0, (k, 1))
        q[:, self._hinge_q] += batch.uniform(worlds, len(self._hinge_q), -0.03, 0.03)
        yaw = batch.uniform(worlds, 1, -np.pi, np.pi)[:, 0]
        q[:, 3:7] = np.stack([np.cos(yaw / 2), 0 * yaw, 0 * yaw, np.sin(yaw / 2)], axis=1)
        self._new_flags(batch, np.asarray(worlds), first=True)
        self.z0[worlds] = q[:, 2]
        return q, np.zeros((k, m.nv))

    # -- observation ----------------------------------------------------------------------

    def _xy(self, batch) -> np.ndarray:
        return batch.xpos[:, 1:, :2].mean(axis=1)

    def _dist(self, batch) -> np.ndarray:
        return np.linalg.norm(self.flag - self._xy(batch), axis=1)

    def observe(self, batch):
        self._ensure_state(batch.num_worlds)
        q, u = batch.q, batch.u
        roll, pitch, yaw = _rpy(batch.xquat[:, 1])
        d = self.flag - self._xy(batch)
        angle = np.arctan2(d[:, 1], d[:, 0]) - yaw
        c, s = np.cos(-yaw), np.sin(-yaw)
        v = u[:, 0:3]
        vx, vy = c * v[:, 0] - s * v[:, 1], s * v[:, 0] + c * v[:, 1]
        jp = (q[:, self._hinge_q] - self._mid) / self._half
        js = 0.1 * u[:, self._hinge_v]
        joints = np.empty((batch.num_worlds, 2 * len(self._hinge_q)))
        joints[:, 0::2], joints[:, 1::2] = jp, js
        more = np.stack([q[:, 2] - self.z0, np.sin(angle), np.cos(angle), 0.3 * vx, 0.3 * vy, 0.3 * v[:, 2], roll, pitch], axis=1)
        feet = batch.geom_static_contact[:, self._feet].astype(np.float64)
        return np.clip(np.concatenate([more, joints, feet], axis=1), -5, 5).astype(np.float32)

    # -- reward and termination -----------------------------------------------------------

    def before_step(self, batch):
        self._ensure_state(batch.num_worlds)
        return self._dist(batch)

    def evaluate(self, batch, before, ctrl, dt):
        after = self._dist(batch)
        q, u = batch.q, batch.u
        ctx = StepContext(batch, ctrl, dt, {
            "z": q[:, 2].copy(), "dist_before": before, "dist_after": after,
            "joint_pos": (q[:, self._hinge_q] - self._mid) / self._half,
            "joint_speed": 0.1 * u[:, self._hinge_v], "feet": self._feet,
        })
        reward, terms = self.rewards(ctx)
        terminated = (q[:, 2] <= 0.78) | ~np.isfinite(q).all(axis=1)
        return reward, terminated, self._flag_step(batch, after, terms)

    def _flag_step(self, batch, after, terms) -> dict:
        """The flag moves when reached (< 1 m) or after its timeout, and the potential
        restarts there; returns the step's info (Harder's adds its own entries)."""
        self.timer -= 1
        move = (after < 1.0) | (self.timer <= 0)
        if move.any():
            self._new_flags(batch, np.flatnonzero(move), first=False)
        return {"reward_terms": terms, "distance_to_flag": after, "flag_x": self.flag[:, 0].copy(),
                "flag_y": self.flag[:, 1].copy(), "flags_reached": (after < 1.0).astype(np.float64)}

    # -- pictures -------------------------------------------------------------------------

    def render_scene(self, model):
        from ..render import Camera, SceneSpec

        def heading(batch, world):  # look past the robot towards its flag
            d = self.flag[world] - self._xy(batch)[world]
            return float(np.degrees(np.arctan2(d[1], d[0]))) + 25.0  # aside: flag beside robot

        camera = Camera(track="torso", lookat=(0.0, 0.0, 0.9), distance=4.5, elevation=-18.0,
                        heading=heading)
        source = os.path.join(os.path.dirname(flagrun_xml()), self.model_file)
        # extent: Harder's cube parked 2 km up would otherwise push the near clipping plane away
        return SceneSpec(source=source, camera=camera, geom_rgba={"cube": (0.9, 0.15, 0.1, 1.0)},
                         extent=3.0)

    def render_frame(self, batch, world, frame):
        x, y = self.flag[world]
        frame.add_geom("cylinder", (0.03, 0.8), (x, y, 0.8), rgba=(0.9, 0.9, 0.9, 1.0))
        frame.add_geom("box", (0.3, 0.015, 0.2), (x + 0.3, y, 1.4), rgba=(0.9, 0.1, 0.1, 1.0))


HumanoidFlagrunVectorEnv, HumanoidFlagrunEnv = env_classes(HumanoidFlagrunTask, "HumanoidFlagrun")



# -- Harder ---------------------------------------------------------------------------------

START_TASKS = ("walk", "stand_up", "roll_over")
GRAVITY_LEVELS = (0.25, 0.5, 0.75)  # weak_gravity's scales of the model's gravity
THROW_RULES = ("up", "counter_zero")  # throw_when: the torso up at the throw frame / Roboschool's


class HumanoidFlagrunHarderTask(HumanoidFlagrunTask):
    """``ncpgym/HumanoidFlagrunHarder-v0``: Roboschool's HumanoidFlagrunHarder, as implemented:

    Everything of HumanoidFlagrun-v0, with these changes.
    Start tasks: each episode starts standing ("walk"), lying on its back ("stand_up") or
        face down ("roll_over"), torso yaw uniform. The start task is drawn with
        probability proportional to 0.1 + its recent failure rate (an exponential moving
        average, factor 0.05, over finished episodes of whether the episode ended by
        termination; n episodes of a task ending at once count as n steps of their mean),
        so the task the policy fails at most is practised most; initial rates 0.5. The
        draw is one more number r from the world's stream, after Flagrun's: the first task
        k whose cumulative probability exceeds r. Lying: torso at z = 0.3 m, orientation
        Rz(yaw) Ry(-pi/2) on the back, Rz(yaw) Ry(pi/2) face down (yaw as drawn).
    Cube: after frame 100 of an episode, every 30th frame (120, 150, ...) at which the torso
        is up (z >= 0.8 m after the step), the 0.1 m, 1.2 kg cube is thrown from 4 m away
        (random bearing, 1 m above the torso) at the robot's position predicted from its
        velocity, at 20-30 m/s plus uniform [-1, 1] m/s noise per axis. One cube per world,
        parked 2 km above the field between throws. ``throw_when="counter_zero"`` throws
        as Roboschool does, only while the on-ground counter is 0: under it a policy learned
        to dip below 0.8 m every few frames, which kept the counter positive and so dodged
        most throws (a bobbing gait instead of standing); the default ``"up"`` judges the
        throw frame alone.
    Reward terms: alive = 0.5 + 1.5 clip(z, 0, h) / h (never negative), h = ``stand_height``
        (default 1.2 m, about the torso's height in Flagrun's trained gait, 1.12-1.23 m: standing
        pays more than a squat at the 0.8-m threshold; under the former 0.7 m, policies learned
        to squat at 0.81 m); progress as in
        Flagrun but 0 whenever the torso is below 0.8 m before or after the step (no
        crawling); electricity and stall costs at a quarter of Flagrun's weights.
    Termination: the on-ground counter (+1 per frame with z < 0.8, -1 otherwise while
        positive) reaches 170 frames, or a non-finite state. z0 for the height observation
        is 0.8. Truncation: 1000 steps.

    Training aid ``weak_gravity`` (default 0, in [0, 1]; a ``training_aids`` option, so
    ``ncpgym.train``'s evaluation and ``ncpgym.play`` leave it out): that share of episodes
    runs under a weaker gravity, the model's scaled by one of GRAVITY_LEVELS (0.25, 0.5,
    0.75), drawn with probability proportional to 0.1 + the level's recent failure rate
    (``curriculum.FailureWeightedDraw``, as the start tasks; failure: ended by the
    on-ground counter), so the level the policy fails under most often is practised
    most. Getting up is a matter of torque against weight: at a quarter of g the motors
    lift the body four times as easily, and what is learned there carries to full g
    through the levels between (a strength curriculum). Everything else is unchanged; the
    start-task rates learn from full-gravity episodes only. Two numbers from the world's
    stream after the start task's (share, level); with weak_gravity 0 none are drawn and
    episodes stay bitwise those of the task without the option. Trajectories then depend
    on the batch, not only on the seed (as the start tasks'). Not for use with
    ``DomainRandomization(gravity=...)``, whose draw, made after the task's reset, would
    replace the level's gravity while the level's failure rate still learned from it.
    """

    training_aids = ("weak_gravity",)

    def __init__(self, *, weak_gravity: float = 0.0, stand_height: float = 1.2, throw_when: str = "up", **kwargs):
        weak_gravity = share("weak_gravity", weak_gravity)
        if throw_when not in THROW_RULES:
            raise ValueError(f"throw_when: expected one of {THROW_RULES}, got {throw_when!r}")
        self.throw_when = throw_when
        if isinstance(stand_height, bool) or not isinstance(stand_height, (int, float)) \
                or not 0.0 < stand_height <= 1.4:
            raise ValueError(f"stand_height: expected a torso height in (0, 1.4] m, got {stand_height!r}")
        self.stand_height = h = float(stand_height)
        super().__init__(**kwargs)
        self.weak_gravity = weak_gravity
        self.gravity_curriculum = FailureWeightedDraw(len(GRAVITY_LEVELS))
        self.rewards.reweight({"electricity": -8.5 / 4, "stall_torque": -0.425 / 4, **kwargs.get("reward_weights", {})})
        for t in self.rewards.terms:
            if t.name == "alive":
                t.fn = lambda c: 0.5 + 1.5 * np.clip(c.z, 0.0, h) / h
            if t.name == "progress":
                t.fn = lambda c: np.where((c.z >= 0.8) & (c.z_before >= 0.8), (c.dist_before - c.dist_after) / c.dt, 0.0)
        self.curriculum = FailureWeightedDraw(len(START_TASKS))

    model_file = "humanoid_flagrun_harder.xml"

    @property
    def failure(self) -> np.ndarray:
        """The start tasks' recent failure rates (the curriculum's, not a copy)."""
        return self.curriculum.failure

    def build_model(self):
        m = super().build_model()
        cube = m.joint_id("cube")
        self._cube_q, self._cube_v = m.jnt_qposadr[cube], m.jnt_dofadr[cube]
        self._robot_bodies = np.array([b for b in range(1, m.nbody) if b != m.body_id("cube")])
        return m

    def _ensure_state(self, n: int) -> None:
        if getattr(self, "_n", None) != n:
            super()._ensure_state(n)
            self.frame = np.zeros(n, np.int64)
            self.ground = np.zeros(n, np.int64)
            self.start = np.zeros(n, np.int64)
            self.ended_by_fall = np.zeros(n, bool)
            self.started = np.zeros(n, bool)
            self.gravity_level = np.full(n, -1, np.int64)  # index into GRAVITY_LEVELS, -1: full gravity

    def _xy(self, batch):
        return batch.xpos[:, self._robot_bodies, :2].mean(axis=1)

    def abandon_episodes(self, worlds):
        self.started[worlds] = False  # not an outcome: the curricula leave them out

    def reset_states(self, batch, worlds):
        self._ensure_state(batch.num_worlds)
        worlds = np.asarray(worlds)
        done = worlds[self.started[worlds]]  # their episodes update the failure rates
        full = done[self.gravity_level[done] < 0]
        self.curriculum.record(self.start[full], self.ended_by_fall[full])
        weak = done[self.gravity_level[done] >= 0]
        self.gravity_curriculum.record(self.gravity_level[weak], self.ended_by_fall[weak])
        q, u = super().reset_states(batch, worlds)
        task = self.curriculum.draw(batch.uniform(worlds.astype(np.int32), 1, 0.0, 1.0)[:, 0])
        if self.weak_gravity > 0.0:  # (no extra draws without: default episodes stay bitwise)
            self._draw_gravity(batch, worlds)
        yaw = 2 * np.arctan2(q[:, 6], q[:, 3])
        lying = task > 0
        pitch = np.where(task == 1, -np.pi / 2, np.pi / 2)  # on the back / face down
        # torso orientation: yaw about z, then pitch about the body y axis
        cy, sy, cp, sp = np.cos(yaw / 2), np.sin(yaw / 2), np.cos(pitch / 2), np.sin(pitch / 2)
        quat = np.stack([cy * cp, -sy * sp, cy * sp, sy * cp], axis=1)
        q[lying, 3:7] = quat[lying]
        q[lying, 2] = 0.3
        q[:, self._cube_q:self._cube_q + 3] = [0.0, 0.0, 2000.0]
        q[:, self._cube_q + 3:self._cube_q + 7] = [1.0, 0.0, 0.0, 0.0]
        self.start[worlds] = task
        self.frame[worlds] = 0
        self.ground[worlds] = 0
        self.ended_by_fall[worlds] = False
        self.started[worlds] = True
        self.z0[worlds] = 0.8
        return q, u

    def _draw_gravity(self, batch, worlds: np.ndarray) -> None:
        """A weak_gravity share of ``worlds`` gets a weaker gravity level, the rest full gravity."""
        r = batch.uniform(worlds.astype(np.int32), 2, 0.0, 1.0)
        level = np.where(r[:, 0] < self.weak_gravity, self.gravity_curriculum.draw(r[:, 1]), -1)
        scale = np.where(level >= 0, np.asarray(GRAVITY_LEVELS)[level.clip(0)], 1.0)
        batch.gravity[worlds] = scale[:, None] * np.asarray(batch.model.gravity)[None, :]
        self.gravity_level[worlds] = level

    def before_step(self, batch):
        self._ensure_state(batch.num_worlds)
        return self._dist(batch), batch.q[:, 2].copy()

    def evaluate(self, batch, before, ctrl, dt):
        dist_before, z_before = before
        after = self._dist(batch)
        q, u = batch.q, batch.u
        z = q[:, 2].copy()
        ctx = StepContext(batch, ctrl, dt, {
            "z": z, "z_before": z_before, "dist_before": dist_before, "dist_after": after,
            "joint_pos": (q[:, self._hinge_q] - self._mid) / self._half,
            "joint_speed": 0.1 * u[:, self._hinge_v], "feet": self._feet,
        })
        reward, terms = self.rewards(ctx)
        self.frame += 1
        self.ground = np.where(z < 0.8, self.ground + 1, np.maximum(self.ground - 1, 0))
        terminated = (self.ground >= 170) | ~np.isfinite(q).all(axis=1)
        self.ended_by_fall |= terminated
        up = (z >= 0.8) if self.throw_when == "up" else (self.ground == 0)
        self._throw(batch, (self.frame > 100) & (self.frame % 30 == 0) & up)
        info = self._flag_step(batch, after, terms)
        info.update(start_task=self.start.astype(np.float64), on_ground_frames=self.ground.astype(np.float64))
        return reward, terminated, info

    def _throw(self, batch, mask: np.ndarray) -> None:
        worlds = np.flatnonzero(mask)
        if worlds.size == 0:
            return
        r = batch.uniform(worlds.astype(np.int32), 5, 0.0, 1.0)
        angle = (2 * r[:, 0] - 1) * np.pi
        speed = 20.0 + 10.0 * r[:, 1]
        target = np.concatenate([self._xy(batch)[worlds], batch.q[worlds, 2:3]], axis=1)
        target = target + batch.u[worlds, 0:3] * (4.0 / speed)[:, None]  # where the robot will be
        offset = np.stack([4.0 * np.cos(angle), 4.0 * np.sin(angle), np.ones_like(angle)], axis=1)
        start = target + offset
        # towards the target, from the offset itself: target - start underflows to 0 (and
        # the direction to NaN) when a world's state is huge, e.g. just before it is flagged
        # as diverged and reset
        v = -offset * (speed / np.linalg.norm(offset, axis=1))[:, None]
        v += 2 * r[:, 2:5] - 1
        cq, cv = self._cube_q, self._cube_v
        batch.q[worlds, cq:cq + 3] = start
        batch.q[worlds, cq + 3:cq + 7] = [1.0, 0.0, 0.0, 0.0]
        batch.u[worlds, cv:cv + 3] = v
        batch.u[worlds, cv + 3:cv + 6] = 0.0


HumanoidFlagrunHarderVectorEnv, HumanoidFlagrunHarderEnv = env_classes(HumanoidFlagrunHarderTask, "HumanoidFlagrunHarder")
