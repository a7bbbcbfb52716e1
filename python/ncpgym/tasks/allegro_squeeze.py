"""``ncpgym/AllegroSqueeze-v0``: an Allegro hand squeezes a soft foam ball in its upturned
palm to a commanded volumetric strain and holds it there.

The seed's Allegro Ball scene (Macklin et al. 2019 §10.1.3, Fig. 3; Table 2: h =
0.0083 s, 6 Newton / 50 linear iterations): articulated fingers and the ball's internal
dynamics coupled through contact in one Newton solve.

World (``ncpgym.envs.allegro``): the right Allegro hand from the installed
example-robot-data URDF on a 6-DOF wrist held still, palm up 10 cm above the floor,
implicit PD servos on the 16 finger joints (kp 3 N m/rad, kv 0.1 N m s/rad), mu = 0.8.
The ball: radius 4.5 cm, 384 linear co-rotational tetrahedra (``soft.ball_mesh(n=4)``;
``mesh=n`` gives 6 n^3, e.g. 162 at n = 3, which steps 2.6x faster),
a foam: Young 30 kPa, Poisson 0.2, 300 kg/m^3 (0.107 kg). Foam, not rubber, so that
squeezing changes its volume: with Poisson 0.45 a 10 % volume change needs a ~50 %
axial compression. Linear elements, not the seed's stable Neo-Hookean: the task was
defined (and its policy trained) when the Neo-Hookean ball diverged under the fingers;
with the six-row Neo-Hookean elements (issue 20) it now holds (the scripted controller
reaches 4 of 4 targets), a material option to come. h = 0.0083 s, 4 Newton iterations
(the seed's 6 agree within 0.15 % compression), 4 physics steps per env step (30 Hz control).

Let c = 1 - V / V0 be the ball's volumetric compression (V from ``Batch.soft_volume``,
computed in C++ from the tetrahedra; V0 = ``Model.soft_volume0``) and c* the episode's
target, drawn uniformly from [0.02, 0.10].

Action (16, float32 in [-1, 1], clipped): each finger joint's servo target moves by
0.05 rad x a per env step (1.5 rad/s at most), kept inside the joint ranges (joint order
index 0-3, middle 4-7, ring 8-11, thumb 12-15). Increments, not absolute targets: holding a
squeeze is a = 0, and closing in on the target strain is a feedback law on c - c*.

Observation (61, float64): finger joint positions (16, rad) and velocities (16, rad/s),
servo targets (16), c, c*, c - c* (3), fingertip normal contact forces (4, index, middle,
ring, thumb; tanh(F / 10 N)), ball centre relative to its start (3, m), ball centre
velocity (3, m/s).

Reward ``track + hold + inverted + action + failed`` (named terms in
``info["reward_terms"]``, reweight with ``reward_weights``):
    track     max(0, 1 - |c - c*| / 0.15)                                 (weight 1)
    hold      1 when |c - c*| < 0.01, else 0                              (weight 1)
    inverted  share of the ball's tetrahedra inverted (a fingertip poked
              through an element)                                         (weight -10)
    action    mean of a^2 over the 16 actions                             (weight -0.01)
    failed    1 on the step the ball is dropped or crushed, else 0        (weight -20)
``info["is_success"]``: |c - c*| < 0.01 for the last 30 env steps (1 s);
``info["strain"]`` (c), ``info["target_strain"]`` (c*), ``info["dropped"]``,
``info["crushed"]``, ``info["inverted"]`` (share of inverted tetrahedra).
Termination: the ball is dropped (its centre moves more than 4 cm from its start) or
crushed (c > 0.25). Truncation: 90 env steps (3 s).

Reset: fingers at HOME (a loose cage around the ball) plus uniform noise in [-0.05, 0.05]
rad, at rest; the ball at rest on the palm in its rest shape.
"""

from __future__ import annotations

import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Iterable

import gymnasium as gym
import numpy as np

from ..envs import allegro
from ..models import built, mujoco_builder
from ..soft import tet_volumes
from ..vector import Task, env_classes
from ..wrappers import RewardComposition, RewardTerm, StepContext

H = 0.0083                 # the seed's time step (Table 2)
STEP_RAD = 0.05            # rad of target change per unit action and env step
TARGET_RANGE = (0.02, 0.10)
BAND = 0.01                # |c - c*| that counts as on target
TRACK_WIDTH = 0.15         # |c - c*| where the track reward reaches 0 (more than any target: a gradient from the start)
CRUSHED = 0.25
HOLD_STEPS = 30            # 1 s at 30 Hz
DROP_DISTANCE = 0.04
FINGER_NOISE = 0.05
FORCE_SCALE = 10.0
# a loose cage around the ball: index, middle, ring (spread, three flexions), thumb
HOME = np.array([0.0, 0.9, 0.6, 0.3] * 3 + [1.3, 0.6, 0.3, 0.3])


@lru_cache(maxsize=1)
def _hand():
    # the renderer reads the world as MJCF: one file per process (no two writers share one)
    xml = Path(tempfile.mkdtemp(prefix="ncpgym_allegro_")) / "hand.xml"
    return allegro.hand_world(H, xml_out=xml), xml


@lru_cache(maxsize=4)
def _world(mesh: int):
    mj, xml = _hand()
    b = mujoco_builder(mj, source="ncpgym.envs.allegro")
    allegro.add_ball(b, model="linear", n=mesh)
    return mj, built(b, "ncpgym.envs.allegro"), xml


def default_terms() -> list[RewardTerm]:
    return [
        RewardTerm("track", lambda c: np.maximum(0.0, 1.0 - np.abs(c.error) / TRACK_WIDTH), 1.0),
        RewardTerm("hold", lambda c: (np.abs(c.error) < BAND).astype(np.float64), 1.0),
        RewardTerm("inverted", lambda c: c.inverted, -10.0),
        RewardTerm("action", lambda c: np.mean(c.action ** 2, axis=1), -0.01),
        RewardTerm("failed", lambda c: c.failed.astype(np.float64), -20.0),
    ]


class AllegroSqueezeTask(Task):
    frame_skip = 4
    solver_options = {"newton_iterations": 4, "rscale": "time_step", "geometric_stiffness": False}
    max_episode_steps = 90

    def __init__(self, *, mesh: int = 4, reward_weights: dict[str, float] | None = None,
                 extra_reward_terms: Iterable[RewardTerm] = ()):
        super().__init__()
        if isinstance(mesh, bool) or not isinstance(mesh, (int, np.integer)) or not 2 <= mesh <= 8:
            raise ValueError(f"mesh: expected an int in [2, 8] (hexahedra per axis of the ball's cube), got {mesh!r}")
        self.mesh = int(mesh)
        self.rewards = RewardComposition.configured(default_terms(), reward_weights, extra_reward_terms)
        self.targets = np.zeros((0, 16))
        self.goal = np.zeros(0)
        self.held = np.zeros(0, np.int64)

    def build_model(self):
        mj, model, _ = _world(self.mesh)
        self.mj = mj
        h = allegro.hand_indices(mj)
        self.finger_q, self.finger_v, self.finger_act, self.lo, self.hi, self.tips = (
            h.finger_q, h.finger_v, h.finger_act, h.lo, h.hi, h.tips)
        self.tets = np.asarray(model.tet_particles, np.int64)
        self.V0 = float(model.soft_volume0[0])
        self.home = np.zeros(model.nq)
        self.home[self.finger_q] = HOME
        self.centre0 = np.asarray(model.particle_pos0).mean(axis=0)
        return model

    def spaces(self, model):
        obs = gym.spaces.Box(-np.inf, np.inf, shape=(61,), dtype=np.float64)
        act = gym.spaces.Box(-1.0, 1.0, shape=(16,), dtype=np.float32)
        return obs, act

    def _ensure(self, n: int) -> None:
        if self.targets.shape[0] != n:
            self.targets = np.tile(HOME, (n, 1))
            self.goal = np.full(n, np.mean(TARGET_RANGE))
            self.held = np.zeros(n, np.int64)

    def strain(self, batch) -> np.ndarray:
        """Volumetric compression c = 1 - V / V0 of every world's ball."""
        return 1.0 - batch.soft_volume[:, 0] / self.V0

    # -- hooks ----------------------------------------------------------------------------

    def reset_states(self, batch, worlds):
        self._ensure(batch.num_worlds)
        n = len(worlds)
        q = np.tile(self.home, (n, 1))
        q[:, self.finger_q] += batch.uniform(worlds, 16, -FINGER_NOISE, FINGER_NOISE)
        q[:, self.finger_q] = np.clip(q[:, self.finger_q], self.lo, self.hi)
        self.goal[worlds] = batch.uniform(worlds, 1, *TARGET_RANGE)[:, 0]
        self.targets[worlds] = q[:, self.finger_q]
        self.held[worlds] = 0
        return q, np.zeros((n, batch.model.nv))

    def apply_action(self, batch, action, dt):
        self._ensure(batch.num_worlds)
        self.targets = np.clip(self.targets + STEP_RAD * action, self.lo, self.hi)
        ctrl = np.zeros((batch.num_worlds, batch.model.nu))
        ctrl[:, self.finger_act] = self.targets
        return ctrl  # the wrist servos hold 0: the palm stays where it started

    def observe(self, batch):
        self._ensure(batch.num_worlds)
        c = self.strain(batch)
        ball = batch.x.mean(axis=1)
        return np.concatenate([
            batch.q[:, self.finger_q], batch.u[:, self.finger_v], self.targets,
            np.stack([c, self.goal, c - self.goal], axis=1),
            np.tanh(batch.geom_force[:, self.tips] / FORCE_SCALE),
            ball - self.centre0, batch.v.mean(axis=1)], axis=1)

    def evaluate(self, batch, before, ctrl, dt):
        c = self.strain(batch)
        error = c - self.goal
        self.held = np.where(np.abs(error) < BAND, self.held + 1, 0)
        dropped = np.linalg.norm(batch.x.mean(axis=1) - self.centre0, axis=1) > DROP_DISTANCE
        crushed = c > CRUSHED
        inverted = np.mean(tet_volumes(batch.x, self.tets) <= 0.0, axis=1)
        ctx = StepContext(batch, ctrl, dt, {"error": error, "inverted": inverted, "failed": dropped | crushed})
        reward, terms = self.rewards(ctx)
        info = {"reward_terms": terms, "is_success": self.held >= HOLD_STEPS, "strain": c,
                "target_strain": self.goal.copy(), "dropped": dropped, "crushed": crushed, "inverted": inverted}
        return reward, dropped | crushed, info

    # -- pictures: the ball coloured by each element's volumetric strain (the seed's Fig. 3)

    def render_scene(self, model):
        from ..render import Camera, SceneSpec

        _, xml = _hand()
        camera = Camera(lookat=(0.0, 0.0, 0.13), distance=0.42, azimuth=150.0, elevation=-30.0)  # thumb side, ball in view
        # one colour class per tetrahedron, recoloured every frame by its strain
        return SceneSpec(source=xml, camera=camera, tet_class=np.arange(model.ntet),
                         class_rgba=[(0.9, 0.9, 0.85, 1.0)] * model.ntet, grid=0.05)

    def render_frame(self, batch, world, frame):
        # each element's volumetric compression, smoothed over the elements sharing its
        # vertices (volume-weighted: linear elements alternate around the mean)
        V0 = np.asarray(batch.model.tet_volume)
        V = tet_volumes(batch.x[world], self.tets)
        vert_V, vert_V0 = np.zeros(batch.model.nparticle), np.zeros(batch.model.nparticle)
        np.add.at(vert_V, self.tets.ravel(), np.repeat(V, 4))
        np.add.at(vert_V0, self.tets.ravel(), np.repeat(V0, 4))
        vertex = 1.0 - vert_V / np.where(vert_V0 > 0, vert_V0, 1.0)
        for t, rgba in enumerate(strain_colours(vertex[self.tets].mean(axis=1))):
            frame.set_class_rgba(t, rgba)


def strain_colours(compression: np.ndarray, scale: float = 0.2) -> np.ndarray:
    """RGBA [n, 4] of volumetric compressions: white at 0, through yellow to red at
    ``scale`` (and above), towards blue where an element expands."""
    s = np.clip(compression / scale, -1.0, 1.0)[:, None]
    white, red, blue = np.array([0.95, 0.95, 0.9]), np.array([0.85, 0.1, 0.05]), np.array([0.15, 0.3, 0.9])
    rgb = np.where(s >= 0, white + s * (red - white), white - s * (blue - white))
    return np.concatenate([rgb, np.ones((len(rgb), 1))], axis=1)


AllegroSqueezeVectorEnv, AllegroSqueezeEnv = env_classes(AllegroSqueezeTask, "AllegroSqueeze")


# -- a scripted baseline: integral control of the compression ---------------------------------

FLEXION = np.array([1, 2, 3, 5, 6, 7, 9, 10, 11, 14, 15])  # every joint but the spreads and the thumb's rotation


def scripted_actions(task: AllegroSqueezeTask, batch, gain: float = 48.0) -> np.ndarray:
    """Actions [N, 16] of an integral controller on the compression: every flexion joint's
    target moves by 0.05 rad x clip(gain (c* - c), -1, 1) per env step (2.4 rad per unit
    of compression error); spreads and the thumb's rotation hold. Reads only c and c* (the
    observation's entries 48 and 49)."""
    c = task.strain(batch)
    a = np.zeros((batch.num_worlds, 16))
    a[:, FLEXION] = np.clip(gain * (task.goal - c), -1.0, 1.0)[:, None]
    return a
