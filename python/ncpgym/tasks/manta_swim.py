"""``ncpgym/MantaSwim-v0``: a soft manta ray learns to swim forward by folding its body along
its centre line.

The seed's manta ray (``dismech-rods-shells.txt`` §7, Fig. 5), built by
``ncpgym.scenes.manta_ray``: a discrete elastic shell (hinge bending, stretching edges) of 1 m
span and length, a rhombus meshed by the equilateral triangles of 0.1 m that fit inside it
(57 nodes, 86 triangles, 116 hinges; tip to tip 0.87 m across and 0.8 m along) starting
1.5 m above the origin, E = 6 GPa, nu = 0.3, rho = 1057 kg/m^3, 2 mm thick, in water
(rho_med = 1000 kg/m^3, C_D = 0.5): gravity with buoyancy (it sinks at 5 % of g), the
seed's aerodynamic drag on every triangle and, not in the seed, skin friction (C_f = 0.0047,
the ITTC-1957 flat-plate line at Re = 1e6; soft/medium.hpp), solved implicitly. h = 5 ms,
5 physics steps per env step (40 Hz control).

Action (8, float32 in [-1, 1], clipped; mesh - 2 for other ``mesh`` values): the commands of
the 8 motors that fold the centre line, front (+y) to back, u_k = 2 pi / 3 x a_k (rad; the
seed's flapping amplitude). Each motor drives its hinge in series through the hinge's own
elasticity: the motor's position is the hinge's natural angle phi_bar_k, the hinge's bending
stiffness k_b = 2 E h^3 / (12 sqrt 3) (4.62 N m/rad) is the spring, so the motor holds the
torque tau_k = k_b (phi_bar_k - phi_k) (phi_k the hinge's angle). Once per env step, with
phi_k measured at its start (``motor_step``):
    phi_bar_k <- phi_bar_k + clip(u_k - phi_bar_k, -omega_max dt, omega_max dt)
    phi_bar_k <- clip(phi_bar_k, phi_k - tau_max / k_b, phi_k + tau_max / k_b)
with omega_max = ``max_speed`` (66 rad/s) and tau_max = ``max_torque`` (14.4 N m), 1.5 x the
peaks of the seed's gait through an unlimited motor (44 rad/s; a lead of 2.08 rad, 9.6 N m),
so the motor is sized for the seed's gait with a margin. ``np.inf`` for both gives the
unlimited position drive (the natural angles jump to u_k). The natural angles are held for
the env step; the wings follow through the shell and the water.

Observation (31, float64; 15 + 2 (mesh - 2) in general): centre-of-mass velocity (3, m/s); the body's forward axis (3,
the unit vector from the back tip to the front tip) and its normal (3, unit, the side axis
from the left to the right wing tip crossed with the forward axis); centre-of-mass height
relative to the start (1, m); the 8 centre-line hinge angles (rad) and the 8 motors' positions
(the natural angles, rad); the wing tips' heights relative to the centre of mass (2, m); a clock at
the seed's gait frequency, sin and cos of 2 pi 3.4 Hz t (2); the elapsed share of the
episode, t / 5 s (1).

Reward ``forward + power`` (named terms in ``info["reward_terms"]``; reweight with
``reward_weights``):
    forward  the centre of mass's velocity along the world +y axis (m/s), averaged over
             the env step (displacement / dt)                                    (weight 1)
    power    the motors' mean mechanical power over the env step (W), summed over the 8:
             sum_k |tau_k (phi_bar_k' - phi_bar_k)| / dt with tau_k at the move's midpoint
             and phi_k at the step's start (``motor_power``); work absorbed costs as work
             done (a motor does not recover it)                               (weight -0.002)
The weight makes 1 W cost as much as 2 mm/s: a gait pays only where it swims more than 2 mm
per joule (the seed's gait makes 0.9 mm/J at its amplitude, 3.9 mm/J at half of it).
``info["is_success"]``: the centre of mass has moved >= 1 m (one body length) along +y since
the reset; ``info["distance"]`` that displacement (m).
No termination; truncation at 200 env steps (5 s).

Reset: the flat body at rest where it started, natural angles 0, each node's velocity drawn
uniformly in [-0.05, 0.05] m/s per axis.

Scripted baseline (``scripted_actions``): the seed's gait, a_k = sin(2 pi 3.4 t - phi_k) with
phi_k from 0 (front) to pi (back), amplitude 2 pi / 3.

Picture: the body in blue-grey (0.62, 0.66, 0.74), seen from 2 m at azimuth 215 degrees,
18 degrees down, looking at its centre of mass and following it; a seabed of 0.5 m squares
on z = 0 is drawn for scale (the body cannot touch it).

What the model allows: the seed's drag is quasi-steady and normal to each triangle (no
added mass). Through an unlimited position drive with a small energy term (this task before
its motors, benchmarks/results/training/manta_swim_60min) PPO found bang-bang flapping near
6 Hz at the full amplitude, 7.4 m/s (about 1.5 kW). With the motors and a power term but
without skin friction (manta_swim_glide_60min) it learned to flap for a second and then
glide, folded and streamlined, losing 4 % of its energy in 2 s: 2.8 m/s at 127 W. With skin
friction a glide stops within a second. ``python benchmarks/manta_gaits.py`` sweeps sine
and square gaits under the task's reward: bang-bang costs far more than it gains.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable

import gymnasium as gym
import numpy as np

from .. import scenes
from ..shells import hinge_angles
from ..vector import Task, env_classes
from ..wrappers import RewardComposition, RewardTerm, StepContext

H = 5e-3
FRAME_SKIP = 5
AMPLITUDE = 2 * np.pi / 3     # the seed's flapping amplitude (rad)
FREQUENCY = 3.4               # the seed's gait (Hz), the observation's clock
EPISODE_STEPS = 200           # 5 s
POWER_WEIGHT = 0.002           # reward per W
SUCCESS_DISTANCE = 1.0        # m: one body length
VELOCITY_NOISE = 0.05
# Skin friction, not in the seed (its drag is normal to each triangle): the ITTC-1957
# flat-plate line 0.075 / (log10 Re - 2)^2 at Re = 1e6 (1 m at 1 m/s in water). Without it a
# folded, streamlined body coasted 4 s losing 4 % of its energy, and PPO learned to burst
# and glide.
SKIN_FRICTION = 0.0047
# The hinge motors' limits (see the docstring): 1.5 x the peaks of the seed's gait through
# an unlimited motor (lead 2.08 rad x k_b 4.62 N m/rad = 9.6 N m; 44 rad/s), so that gait
# stays feasible with a margin and the unlimited optimum (a 6 Hz bang-bang, lead 5.2 rad,
# 168 rad/s) does not.
MAX_TORQUE = 14.4             # N m
MAX_SPEED = 66.0              # rad/s


@lru_cache(maxsize=2)
def _world(n: int):
    return scenes.manta_ray(n=n, timestep=H, skin_friction=SKIN_FRICTION)


def default_terms() -> list[RewardTerm]:
    return [
        RewardTerm("forward", lambda c: c.forward, 1.0),
        RewardTerm("power", lambda c: c.power, -POWER_WEIGHT),
    ]


class MantaSwimTask(Task):
    frame_skip = FRAME_SKIP
    solver_options: dict = {}
    max_episode_steps = EPISODE_STEPS

    def __init__(self, *, mesh: int = 10, max_torque: float = MAX_TORQUE, max_speed: float = MAX_SPEED,
                 reward_weights: dict[str, float] | None = None, extra_reward_terms: Iterable[RewardTerm] = ()):
        super().__init__()
        if isinstance(mesh, bool) or not isinstance(mesh, (int, np.integer)) or not 4 <= mesh <= 30:
            raise ValueError(f"mesh: expected an int in [4, 30] (lattice spacings along the body), got {mesh!r}")
        for name, value in (("max_torque", max_torque), ("max_speed", max_speed)):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not value > 0:
                raise ValueError(f"{name}: expected a number > 0 (np.inf: unlimited), got {value!r}")
        self.mesh = int(mesh)
        self.max_torque, self.max_speed = float(max_torque), float(max_speed)
        self.rewards = RewardComposition.configured(default_terms(), reward_weights, extra_reward_terms)
        self.ngroup = 8
        self.targets = np.zeros((0, self.ngroup))
        self.action = np.zeros((0, self.ngroup))
        self.steps = np.zeros(0, np.int64)
        self.start = np.zeros((0, 3))
        self.power = np.zeros(0)

    def build_model(self):
        model, groups = _world(self.mesh)
        self.ngroup = len(groups)
        self.groups = np.asarray(groups)
        self.mass = np.asarray(model.particle_mass)
        x0 = np.asarray(model.particle_pos0)
        self.front, self.back = int(np.argmax(x0[:, 1])), int(np.argmin(x0[:, 1]))
        self.left, self.right = int(np.argmin(x0[:, 0])), int(np.argmax(x0[:, 0]))
        hinges = np.asarray(model.hinges)
        self.centre_hinges = hinges[self.groups]
        self.kb = 1.0 / np.asarray(model.hinge_compliance)[self.groups]  # the motors' springs
        return model

    def spaces(self, model):
        n = model.nactgroup  # one group per centre-line hinge
        obs = gym.spaces.Box(-np.inf, np.inf, shape=(15 + 2 * n,), dtype=np.float64)
        act = gym.spaces.Box(-1.0, 1.0, shape=(n,), dtype=np.float32)
        return obs, act

    def _ensure(self, n: int) -> None:
        if self.targets.shape != (n, self.ngroup):
            self.targets = np.zeros((n, self.ngroup))
            self.action = np.zeros((n, self.ngroup))
            self.steps = np.zeros(n, np.int64)
            self.start = np.zeros((n, 3))
            self.power = np.zeros(n)

    def com(self, batch) -> np.ndarray:
        """Centre of mass of every world's body, [N, 3]."""
        return np.einsum("p,npk->nk", self.mass, batch.x) / self.mass.sum()

    # -- hooks ----------------------------------------------------------------------------

    def reset_states(self, batch, worlds):
        self._ensure(batch.num_worlds)
        self.targets[worlds] = 0.0
        self.action[worlds] = 0.0
        self.steps[worlds] = 0
        batch.activation[worlds] = 0.0
        return np.zeros((len(worlds), 0)), np.zeros((len(worlds), 0))

    def after_reset(self, batch, worlds):
        n = batch.model.nparticle
        batch.v[worlds] = batch.uniform(worlds, 3 * n, -VELOCITY_NOISE, VELOCITY_NOISE).reshape(len(worlds), n, 3)
        self.start[worlds] = self.com(batch)[worlds]

    def apply_action(self, batch, action, dt):
        self._ensure(batch.num_worlds)
        self.action = np.array(action, float)
        before = self.targets
        phi = hinge_angles(batch.model, batch.x, self.centre_hinges)
        self.targets = motor_step(before, AMPLITUDE * self.action, phi, self.kb, self.max_torque, self.max_speed, dt)
        self.power = motor_power(before, self.targets, phi, self.kb, dt)
        batch.activation[:] = self.targets
        return np.zeros((batch.num_worlds, 0))

    def before_step(self, batch):
        return self.com(batch)

    def observe(self, batch):
        self._ensure(batch.num_worlds)
        x, v = batch.x, batch.v
        com = self.com(batch)
        vel = np.einsum("p,npk->nk", self.mass, v) / self.mass.sum()
        fwd = x[:, self.front] - x[:, self.back]
        fwd /= np.linalg.norm(fwd, axis=1, keepdims=True)
        side = x[:, self.right] - x[:, self.left]
        normal = np.cross(side, fwd)
        normal /= np.linalg.norm(normal, axis=1, keepdims=True)
        angles = hinge_angles(batch.model, x, self.centre_hinges)
        t = self.steps * FRAME_SKIP * H
        tips = np.stack([x[:, self.left, 2], x[:, self.right, 2]], axis=1) - com[:, 2:3]
        return np.concatenate([
            vel, fwd, normal, (com[:, 2] - self.start[:, 2])[:, None], angles, self.targets, tips,
            np.stack([np.sin(2 * np.pi * FREQUENCY * t), np.cos(2 * np.pi * FREQUENCY * t)], axis=1),
            (t / (EPISODE_STEPS * FRAME_SKIP * H))[:, None]], axis=1)

    def evaluate(self, batch, before, ctrl, dt):
        self.steps += 1
        com = self.com(batch)
        forward = (com[:, 1] - before[:, 1]) / dt
        distance = com[:, 1] - self.start[:, 1]
        ctx = StepContext(batch, self.action, dt, {"forward": forward, "power": self.power})
        reward, terms = self.rewards(ctx)
        info = {"reward_terms": terms, "is_success": distance >= SUCCESS_DISTANCE, "distance": distance}
        return reward, np.zeros(batch.num_worlds, bool), info

    # -- pictures -------------------------------------------------------------------------

    def render_scene(self, model):
        from ..render import Camera, SceneSpec

        camera = Camera(lookat=(0.0, 0.0, 0.0), distance=2.0, azimuth=215.0, elevation=-18.0, follow=self._follow)
        def seabed(spec):  # drawn for scale only: the model has nothing to touch
            import mujoco

            spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0.0, 0.0, 0.1], contype=0, conaffinity=0)

        return SceneSpec(camera=camera, class_rgba=[(0.62, 0.66, 0.74, 1.0)], grid=0.5, extent=4.0, edit=seabed)

    def _follow(self, batch, world):
        return self.com(batch)[world]


def motor_step(position, command, phi, kb, max_torque, max_speed, dt):
    """The hinge motors' positions (the hinges' natural angles) after one env step: each moves
    towards its command by at most ``max_speed`` dt, then is held within max_torque / k_b of
    its hinge's angle ``phi``, since the spring k_b (phi_bar - phi) between them is the torque
    the motor must hold. [N, k] arrays; kb per hinge."""
    step = np.clip(command - position, -max_speed * dt, max_speed * dt)
    lead = max_torque / kb
    return np.clip(position + step, phi - lead, phi + lead)


def motor_power(before, after, phi, kb, dt):
    """The motors' mean mechanical power over an env step (W), summed over the hinges: the
    work |tau dphi_bar| each does moving its position from ``before`` to ``after`` against its
    spring, tau = k_b (phi_bar - phi), taken at the move's midpoint with the hinge's angle
    ``phi`` at the step's start (the spring's torque is linear in phi_bar, so the midpoint is
    exact for a held phi). Work done and work absorbed both count: a motor does not recover
    energy."""
    tau = kb * (0.5 * (before + after) - phi)
    return np.abs(tau * (after - before)).sum(axis=1) / dt


def stroke_frequency(positions: np.ndarray, dt: float) -> np.ndarray:
    """Each world's stroke rate (Hz): how often its motors' positions ``positions`` [T, N, k]
    (env steps, worlds, motors; sampled every ``dt`` s) cross their mean, counted with a
    hysteresis of a quarter of each motor's standard deviation (jitter about the mean is not
    a stroke), two crossings a stroke, timed from the first crossing to the last, averaged
    over the motors (0 for a motor crossing less than twice). A sine wave of f Hz gives f; an
    irregular bang-bang its mean rate, which a spectrum's peak would smear."""
    x = positions - positions.mean(axis=0)
    band = 0.25 * x.std(axis=0)
    side = np.where(x > band, 1, np.where(x < -band, -1, 0))  # [T, N, k]
    T, n, k = side.shape
    rate = np.zeros((n, k))
    for i in range(n):
        for j in range(k):
            steps = np.flatnonzero(side[:, i, j])
            at = steps[1:][np.diff(side[steps, i, j]) != 0]  # where each crossing completes
            if len(at) >= 2:
                rate[i, j] = (len(at) - 1) / (2 * (at[-1] - at[0]) * dt)
    return rate.mean(axis=1)


MantaSwimVectorEnv, MantaSwimEnv = env_classes(MantaSwimTask, "MantaSwim")


def scripted_actions(task: MantaSwimTask, batch) -> np.ndarray:
    """The seed's gait: a_k = sin(2 pi 3.4 Hz t - phi_k), phi_k from 0 (front) to pi (back),
    at the time of the coming env step."""
    t = task.steps[:, None] * FRAME_SKIP * H
    phase = np.linspace(0.0, np.pi, task.ngroup)[None, :]
    return np.sin(2 * np.pi * FREQUENCY * t - phase)
