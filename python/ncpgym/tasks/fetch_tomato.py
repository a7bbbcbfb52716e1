"""``ncpgym/FetchTomato-v0``: Fetch picks a soft tomato off the table and places it on a
working mechanical scale without crushing or dropping it.

The seed's Fetch Tomato scene (Macklin et al. 2019 §10.1.1, Fig. 1; Table 2: h = 0.0083 s,
4 Newton / 50 linear iterations): a tetrahedral FEM tomato (Young 0.1 MPa, Poisson 0.45,
1000 kg/m^3, friction 0.75 against the fingers) carried by the robot to a scale whose
needle, driven through rigid bodies and joints, reads its weight.

World (``ncpgym.envs.fetch``): Gymnasium-Robotics' Fetch (installed package) with implicit
PD servos on its arm (kp 10,000 N m/rad, kv 200) and fingers (kp 1000 N/m, kv 100), its
table (top 0.40 m above the floor), the tomato (384 stable Neo-Hookean tetrahedra, an
ellipsoid 7 cm wide and 5.6 cm tall, 0.14 kg) and the scale of ``ncpgym.envs.scale``
(spring 200 N/m, needle geared 30 rad/m; its plate top 0.115 m above the table).
h = 0.0083 s, 4 physics steps per env step (30.1 Hz control), 10 Newton iterations (with
the seed's 4 the pads' friction on the tomato does not converge within the step: the grasped
tomato creeps down 1.5 mm per env step and drops within 1 s of lifting; 6 still creep 0.04 mm
per step; 8 held it to 0.6 mm over a 0.5 m carry until session 27, when the default
r-factor on the pads' friction rows became the time-step one: at 8 it then slips 8.0 mm in
the fingers under 1.1 g, at 10 4.6 mm as before). ``mesh`` (default
4) sets the tomato's resolution: 6 mesh^3 tetrahedra (162 at mesh=3, 2.1x faster).

Action (5, float32 in [-1, 1], clipped): the grip goal moves by 0.01 m x a[0:3] (world x,
y, z; kept inside the box above the table: x 1.05-1.55, y 0.40-1.10, z 0.42-0.80 m) and
turns by 0.05 rad x a[3] about the vertical (yaw kept in [-pi/2, pi/2]); a[4] moves both
finger targets by 0.002 m x a[4] (kept in [0, 0.05] m per finger: 0 closed, 0.05 open 10
cm; they start open). The arm reaches the goal through resolved-rate control on the grip
site (``envs.fetch.ik_targets``, the gripper always pointing down). The fingers move by
increments: with absolute targets (a first version) a policy's exploration noise shut them
on the tomato within a step and crushed it, and PPO learned never to close them (0 %
success; the same reason AllegroSqueeze-v0 acts by increments).

Observation (42, float64): grip site position (3, m), sin and cos of the goal yaw (2),
finger positions (2, m), arm joint positions (7) and velocities (7), tomato centre minus
grip site (3), tomato centre velocity (3), tomato centre height above the table (1), plate
top centre minus tomato centre (3), whether each pad touches something that moves (2),
tanh(closing force of each finger servo / 10 N) (2), peak compression (1), the scale's
reading over the tomato's mass (1), grip goal minus grip site (3), goal yaw (1), finger
target (1, m).

Let T be the tomato's mass-weighted centre, g the grip site, P the plate top's centre, d0
the start distance |T_xy - P_xy| (0.5 m), F the squeeze, the larger closing force of the
finger servos whose pad touches something that moves (N; the force a pad presses with
once the finger rests on the object), and c
the peak compression, the largest 1 - V/V0 over the tomato's tetrahedra. Crushing is
judged mainly by F: c depends on the mesh (closing the fingers fully, 25-27 N at every
resolution, compresses the worst element by 6 %, 9.4 % and 12 % at 48, 162 and 384
tetrahedra; the scripted grasp's 3.7 N by 1.7, 2.6 and 3.8 %), F does not.

Reward ``reach + grasp + lift + carry + place + release + crush + action + failed`` (named terms in ``info["reward_terms"]``, reweight with ``reward_weights``):
    reach    1 - tanh(|g - T| / 0.1 m), in (0, 1]                          (weight 1)
    grasp    1 while both finger pads touch something that moves and the grip
             site is within 2 cm of T (the tomato between the pads), else 0 (weight 0.5)
    lift     min(max(T_z - T_z0, 0) / 0.15, 1) (T_z0: its rest height)      (weight 1)
    carry    lift x (1 - min(|T_xy - P_xy| / d0, 1))                       (weight 2)
    place    1 while T is over the plate, the plate touches something that
             moves and the tomato's lowest particle is within 3 mm of the
             plate's top (the tomato on the plate)                           (weight 2)
    release  place and neither pad touching                                 (weight 2)
    crush    max(F - 10 N, 0) / 10 N                                        (weight -5)
    action   mean of a^2                                                    (weight -0.01)
    failed   1 on the step the episode fails (dropped or crushed)          (weight -10)
Every term but crush, action and failed is >= 0: a step lived costs at most 0.01 (the
action term) unless the fingers crush, so failing (-10) never pays for itself.
Until session 44 reach was -|g - T|: a grip 0.25 m from the tomato then earned about -24
discounted (gamma 0.99) by living on against -10 for failing, and the 85-minute
demo_starts policy knocked the tomato off the table in 6 of 8 episodes from the task's
reset (``benchmarks/fetch_tomato_stages.py``; a random policy in none).
``info["is_success"]``: released on the plate (place, no pad touching, |v_T| < 5 cm/s) and
the needle reading the tomato's mass within 5 % (the dial is printed for g = 9.81 m/s^2
and tared for the platform: under other gravity, e.g. DomainRandomization's, it misreads
as a real scale would, and success fails). Also ``info["compression"]`` (c),
``info["squeeze"]`` (F), ``info["reading"]`` (kg), ``info["tomato_mass"]``,
``info["crushed"]`` (F > 20 N or c > 0.25), ``info["dropped"]`` (T_z below the table
top). Termination: dropped or crushed.
Truncation: 300 env steps (10 s).

Reset: arm at ``envs.fetch.home_pose`` (grip site about 0.23 m above the table) plus uniform
noise in [-0.05, 0.05] rad on each arm joint; fingers open; the grip goal at the grip
site, yaw 0; the tomato at rest in its rest shape, shifted by uniform [-0.03, 0.03] m in x
and y from (1.25, 0.50); the scale shifted likewise from (1.25, 1.00).

Training aid ``demo_starts`` (default 0, in [0, 1]; a ``training_aids`` option, so
``ncpgym.train``'s evaluation and ``ncpgym.play`` leave it out): that share of episodes
starts instead from a state along the scripted pick-and-place below (``scripted_actions``),
at one of DEMO_STAGES (over the tomato, down, closed, lifted, mid-carry, over the plate,
lowered, opening; env steps into the script) of DEMO_WORLDS scripted episodes that
succeeded. The stage is drawn with probability proportional to 0.1 + its recent failure
rate, as HumanoidFlagrunHarder draws its start tasks (``curriculum.FailureWeightedDraw``:
an exponential moving average, factor 0.05, of whether an episode started there never
succeeded; initial rates 0.5), so the stage the policy fails from most is practised most;
then one of the stage's stored episodes uniformly. Three numbers from the world's stream
after the reset's own (share, stage, episode). The rates depend on how other worlds'
episodes ended, so with demo_starts > 0 trajectories depend on the batch, not only on the
seed (as Harder's). (The session-41 run, fetch_tomato_demo_starts_85min, drew the 64 stored
states uniformly: commit 4d1fe80.) The whole world is restored (arm, fingers, tomato,
scale, servo targets, the task's goal, yaw and finger target); the episode then runs its
full 300 steps. The
reward, success test and termination are unchanged: only where exploration starts moves
(a reverse curriculum: the value of placing and releasing is learned from the late starts
first, and reaches the early ones through it).
"""

from __future__ import annotations

import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Iterable

import gymnasium as gym
import numpy as np

from ..envs import fetch, scale
from ..models import built, mujoco_builder
from ..soft import tet_volumes
from ..vector import Task, env_classes
from ..wrappers import RewardComposition, RewardTerm, StepContext
from .curriculum import FailureWeightedDraw
from .options import share

H = 0.0083
STEP_POS = 0.01
STEP_YAW = 0.05
STEP_FINGER = 0.002     # m per env step
FINGER_OPEN = 0.05      # m: the finger joints' upper limit
WORKSPACE = (np.array([1.05, 0.40, fetch.TABLE_TOP + 0.02]), np.array([1.55, 1.10, 0.80]))
LIFT_HEIGHT = 0.15
SAFE_SQUEEZE = 10.0     # N
CRUSHED = 20.0          # N
CRUSHED_COMPRESSION = 0.25
ARM_NOISE = 0.05
PLACE_NOISE = 0.03
REST_SPEED = 0.05
REACH_SCALE = 0.1      # m: the reach term's length scale
GRASP_RADIUS = 0.02     # m: grip site to tomato centre for the pads' contacts to count as a grasp
PLACE_GAP = 0.003       # m: the tomato's lowest particle above the plate's top
READING_TOLERANCE = 0.05
DEMO_STAGES = (40, 70, 90, 120, 170, 220, 250, 270)  # env steps into scripted_actions' phases
DEMO_WORLDS = 8
# the world's state a demonstration start restores (the per-world physical parameters,
# gravity and the scales domain randomisation draws, stay the world's own)
_DEMO_BATCH = ("q", "u", "x", "v", "ctrl", "actuator_act", "activation", "mocap_pos", "mocap_quat")
_DEMO_TASK = ("targets", "goal", "yaw", "finger", "start_dist")


@lru_cache(maxsize=1)
def _robot():
    # the renderer reads the world as MJCF: one file per process (no two writers share one)
    xml = Path(tempfile.mkdtemp(prefix="ncpgym_fetch_")) / "tomato.xml"
    return fetch.compile_spec(fetch.tomato_spec(H), xml), xml


@lru_cache(maxsize=4)
def _world(mesh: int = 4):
    mj, xml = _robot()
    b = mujoco_builder(mj, source="ncpgym.envs.fetch")
    fetch.add_tomato(b, n=mesh)
    return mj, built(b, "ncpgym.envs.fetch"), xml


def default_terms() -> list[RewardTerm]:
    return [
        # positive (module docstring): a negative living term made failing pay
        RewardTerm("reach", lambda c: 1.0 - np.tanh(c.reach / REACH_SCALE), 1.0),
        RewardTerm("grasp", lambda c: c.grasped, 0.5),
        RewardTerm("lift", lambda c: c.lifted, 1.0),
        RewardTerm("carry", lambda c: c.lifted * (1.0 - np.minimum(c.to_plate / c.start_dist, 1.0)), 2.0),
        RewardTerm("place", lambda c: c.placed, 2.0),
        RewardTerm("release", lambda c: c.released, 2.0),
        RewardTerm("crush", lambda c: np.maximum(c.squeeze - SAFE_SQUEEZE, 0.0) / SAFE_SQUEEZE, -5.0),
        RewardTerm("action", lambda c: np.mean(c.action ** 2, axis=1), -0.01),
        RewardTerm("failed", lambda c: c.failed.astype(np.float64), -10.0),
    ]


class FetchTomatoTask(Task):
    frame_skip = 4
    solver_options: dict = {"newton_iterations": 10}  # fewer let the soft grasp creep (module docstring)
    max_episode_steps = 300

    training_aids = ("demo_starts",)

    def __init__(self, *, mesh: int = 4, reward_weights: dict[str, float] | None = None,
                 extra_reward_terms: Iterable[RewardTerm] = (), demo_starts: float = 0.0):
        super().__init__()
        if isinstance(mesh, bool) or not isinstance(mesh, (int, np.integer)) or not 2 <= mesh <= 6:
            raise ValueError(f"mesh: expected an int in [2, 6] (the tomato's 6 mesh^3 tetrahedra), got {mesh!r}")
        demo_starts = share("demo_starts", demo_starts)
        self.mesh = int(mesh)
        self.demo_starts = demo_starts
        self.curriculum = FailureWeightedDraw(len(DEMO_STAGES))
        self.demo_stage = np.zeros(0, np.int64)  # index into DEMO_STAGES, -1: the task's own start
        self.succeeded = np.zeros(0, bool)
        self.rewards = RewardComposition.configured(default_terms(), reward_weights, extra_reward_terms)
        self.targets = np.zeros((0, 12))
        self.goal = np.zeros((0, 3))
        self.yaw = np.zeros(0)
        self.finger = np.zeros(0)
        self.start_dist = np.ones(0)

    def build_model(self):
        mj, model, _ = _world(self.mesh)
        self.mj = mj
        self.idx = fetch.indices(mj)
        self.home = fetch.home_pose(mj)
        self.tets = np.asarray(model.tet_particles, np.int64)
        self.V0 = np.asarray(model.tet_volume, float)
        w = np.asarray(model.particle_mass, float)
        self.mass = float(w.sum())
        self.weights = w / self.mass
        self.rest_z = float(self.weights @ np.asarray(model.particle_pos0)[:, 2])
        self.plate = mj.geom("scale_plate").id
        self.plate_body = mj.body("scale_platform").id
        self.needle_q = int(mj.jnt_qposadr[mj.joint("scale_needle").id])
        return model

    def spaces(self, model):
        obs = gym.spaces.Box(-np.inf, np.inf, shape=(42,), dtype=np.float64)
        act = gym.spaces.Box(-1.0, 1.0, shape=(5,), dtype=np.float32)
        return obs, act

    def _ensure(self, n: int) -> None:
        if self.targets.shape[0] != n:
            self.targets = np.tile(self.home[self.idx.act_q], (n, 1))
            self.goal = np.zeros((n, 3))
            self.yaw = np.zeros(n)
            self.finger = np.full(n, FINGER_OPEN)
            self.start_dist = np.full(n, 0.5)
            self.demo_stage = np.full(n, -1, np.int64)
            self.succeeded = np.zeros(n, bool)

    # -- state of the scene ---------------------------------------------------------------

    def tomato(self, batch) -> np.ndarray:
        """Mass-weighted centre [N, 3] of each world's tomato."""
        return np.einsum("p,npk->nk", self.weights, batch.x)

    def plate_top(self, batch) -> np.ndarray:
        """Centre of the plate's top face [N, 3]."""
        return batch.xpos[:, self.plate_body] + [0.0, 0.0, scale.PLATE[2]]

    def compression(self, batch) -> np.ndarray:
        """Peak compression [N]: the largest 1 - V/V0 over the tomato's tetrahedra."""
        return np.max(1.0 - tet_volumes(batch.x, self.tets) / self.V0, axis=1)

    def closing(self, batch) -> np.ndarray:
        """Each finger servo's closing force [N, 2] (N)."""
        return np.maximum(-batch.qfrc_actuator[:, self.idx.finger_v], 0.0)

    def squeeze(self, batch) -> np.ndarray:
        """The larger closing force of the fingers whose pad touches something that moves [N]
        (a finger closing on nothing accelerates itself, and squeezes nothing)."""
        return (self.closing(batch) * batch.geom_dynamic_contact[:, self.idx.pads]).max(axis=1)

    def reading(self, batch) -> np.ndarray:
        return scale.reading(batch.q[:, self.needle_q])

    def grip(self, batch):
        return fetch.grip_frame(batch, self.idx)

    # -- hooks ----------------------------------------------------------------------------

    def abandon_episodes(self, worlds):
        self.demo_stage[worlds] = -1  # not an outcome: the curriculum leaves them out

    def reset_states(self, batch, worlds):
        self._ensure(batch.num_worlds)
        n = len(worlds)
        done = worlds[self.demo_stage[worlds] >= 0]  # demonstration-started episodes that ended
        self.curriculum.record(self.demo_stage[done], ~self.succeeded[done])
        self.demo_stage[worlds] = -1
        self.succeeded[worlds] = False
        q = fetch.noisy_home(self.home, self.idx, batch, worlds, ARM_NOISE)
        batch.mocap_pos[worlds, 0, :2] = np.array(fetch.SCALE_POS) + batch.uniform(worlds, 2, -PLACE_NOISE, PLACE_NOISE)
        self.targets[worlds] = q[:, self.idx.act_q]
        self.yaw[worlds] = 0.0
        self.finger[worlds] = FINGER_OPEN
        return q, np.zeros((n, batch.model.nv))

    def after_reset(self, batch, worlds):
        shift = batch.uniform(worlds, 2, -PLACE_NOISE, PLACE_NOISE)
        x = batch.x
        x[worlds, :, :2] += shift[:, None, :]
        self.goal[worlds] = batch.site_xpos[worlds, self.idx.grip_site]
        self.start_dist[worlds] = np.linalg.norm((self.tomato(batch) - self.plate_top(batch))[worlds, :2], axis=1)
        if self.demo_starts > 0.0:  # (no extra draws without: default episodes stay bitwise)
            self._demo_start(batch, worlds)

    def _demo_start(self, batch, worlds) -> None:
        """Move a demo_starts share of ``worlds`` to states of the scripted demonstration."""
        draw = batch.uniform(worlds, 3, 0.0, 1.0)
        chosen = draw[:, 0] < self.demo_starts
        if not chosen.any():
            return
        stage = self.curriculum.draw(draw[chosen, 1])
        stored = _demo_bank(self.mesh)["stage"]
        per_stage = np.count_nonzero(stored == DEMO_STAGES[0])  # the same episodes at every stage
        # the bank is stacked stage by stage (DEMO_STAGES order), per_stage episodes each
        entries = stage * per_stage + np.minimum((draw[chosen, 2] * per_stage).astype(np.int64), per_stage - 1)
        self.restore_demo(batch, worlds[chosen], entries)
        self.demo_stage[worlds[chosen]] = stage

    def restore_demo(self, batch, worlds, entries) -> None:
        """Put ``worlds`` in the demonstration states ``entries`` (indices into the stored
        states; ``demo_stages(mesh)`` gives each one's script step)."""
        bank = _demo_bank(self.mesh)
        w, k = np.asarray(worlds), np.asarray(entries)
        for name in _DEMO_BATCH:
            arr = getattr(batch, name)
            arr[w] = bank[name][k]
        for name in _DEMO_TASK:
            getattr(self, name)[w] = bank[name][k]
        mask = np.zeros(batch.num_worlds, np.uint8)
        mask[w] = 1
        batch.forward(mask)  # poses and contacts of the restored worlds (their observation)

    def apply_action(self, batch, action, dt):
        self._ensure(batch.num_worlds)
        goal = np.clip(self.goal + STEP_POS * action[:, :3], *WORKSPACE)
        step, self.goal = goal - self.goal, goal
        self.yaw = np.clip(self.yaw + STEP_YAW * action[:, 3], -np.pi / 2, np.pi / 2)
        pos, R = self.grip(batch)
        self.targets[:, self.idx.arm_act] = fetch.ik_targets(
            batch.model, batch.q, self.idx, self.targets[:, self.idx.arm_act], self.goal, fetch.yaw_frame(self.yaw),
            pos, R, goal_step=step)
        self.finger = np.clip(self.finger + STEP_FINGER * action[:, 4], 0.0, FINGER_OPEN)
        self.targets[:, self.idx.finger_act] = self.finger[:, None]
        return self.targets.copy()

    def observe(self, batch):
        self._ensure(batch.num_worlds)
        pos, _ = self.grip(batch)
        T = self.tomato(batch)
        vT = np.einsum("p,npk->nk", self.weights, batch.v)
        i = self.idx
        return np.concatenate([
            pos, np.sin(self.yaw)[:, None], np.cos(self.yaw)[:, None], batch.q[:, i.finger_q],
            batch.q[:, i.arm_q], batch.u[:, i.arm_v], T - pos, vT, T[:, 2:] - fetch.TABLE_TOP,
            self.plate_top(batch) - T, batch.geom_dynamic_contact[:, i.pads].astype(np.float64),
            np.tanh(self.closing(batch) / 10.0), self.compression(batch)[:, None],
            self.reading(batch)[:, None] / self.mass, self.goal - pos, self.yaw[:, None],
            self.finger[:, None]], axis=1)

    def evaluate(self, batch, before, ctrl, dt):
        pos, _ = self.grip(batch)
        T = self.tomato(batch)
        vT = np.einsum("p,npk->nk", self.weights, batch.v)
        P = self.plate_top(batch)
        pads = batch.geom_dynamic_contact[:, self.idx.pads].astype(bool)
        reach = np.linalg.norm(pos - T, axis=1)
        c = self.compression(batch)
        squeeze = self.squeeze(batch)
        over = np.all(np.abs(T[:, :2] - P[:, :2]) <= scale.PLATE[:2], axis=1)
        on_plate = batch.x[:, :, 2].min(axis=1) - P[:, 2] < PLACE_GAP
        placed = over & on_plate & batch.geom_dynamic_contact[:, self.plate].astype(bool)
        released = placed & ~pads.any(axis=1)
        reading = self.reading(batch)
        dropped = T[:, 2] < fetch.TABLE_TOP
        crushed = (squeeze > CRUSHED) | (c > CRUSHED_COMPRESSION)
        failed = dropped | crushed
        ctx = StepContext(batch, ctrl, dt, {
            "reach": reach, "grasped": (pads.all(axis=1) & (reach < GRASP_RADIUS)).astype(np.float64),
            "lifted": np.clip((T[:, 2] - self.rest_z) / LIFT_HEIGHT, 0.0, 1.0),
            "to_plate": np.linalg.norm(T[:, :2] - P[:, :2], axis=1), "start_dist": self.start_dist,
            "placed": placed.astype(np.float64), "released": released.astype(np.float64),
            "squeeze": squeeze, "failed": failed})
        reward, terms = self.rewards(ctx)
        success = (released & (np.linalg.norm(vT, axis=1) < REST_SPEED)
                   & (np.abs(reading - self.mass) <= READING_TOLERANCE * self.mass))
        self.succeeded |= success
        info = {"reward_terms": terms, "is_success": success, "compression": c, "squeeze": squeeze, "reading": reading,
                "tomato_mass": np.full(batch.num_worlds, self.mass), "crushed": crushed, "dropped": dropped}
        return reward, failed, info

    @classmethod
    def demonstrations(cls, episodes: int, *, seed: int = 0, num_threads: int = 0, **kwargs):
        """Every step of the ``scripted_actions`` episodes from the task's reset (one world
        each, seed ``seed``) that end in success: (observations [M, 42], actions [M, 5])."""
        return scripted_demonstrations(episodes, seed=seed, num_threads=num_threads, **kwargs)

    # -- pictures -------------------------------------------------------------------------

    def render_scene(self, model):
        from ..render import Camera, SceneSpec

        _, xml = _robot()
        camera = Camera(lookat=(1.22, 0.74, 0.52), distance=1.05, azimuth=35.0, elevation=-22.0)  # tomato, scale dial and gripper in view
        return SceneSpec(source=xml, camera=camera, tet_class=np.zeros(model.ntet, np.int64),
                         class_rgba=[(0.85, 0.12, 0.08, 1.0)])


FetchTomatoVectorEnv, FetchTomatoEnv = env_classes(FetchTomatoTask, "FetchTomato")


@lru_cache(maxsize=2)
def _demo_bank(mesh: int) -> dict[str, np.ndarray]:
    """World and task states at DEMO_STAGES of DEMO_WORLDS scripted episodes (seed 0) that
    succeeded, stacked [k, ...] (with "stage", the script's step): what ``demo_starts``
    restores. Built once per process."""
    envs = FetchTomatoVectorEnv(num_envs=DEMO_WORLDS, mesh=mesh)
    try:
        envs.reset(seed=0)
        task, batch = envs.task, envs.batch
        start, plate = task.tomato(batch).copy(), task.plate_top(batch).copy()
        snaps: list[dict[str, np.ndarray]] = []
        ok = np.zeros(DEMO_WORLDS, bool)
        for k in range(FetchTomatoTask.max_episode_steps):
            if k in DEMO_STAGES:
                snaps.append({**{n: np.array(getattr(batch, n)) for n in _DEMO_BATCH},
                              **{n: np.array(getattr(task, n)) for n in _DEMO_TASK},
                              "stage": np.full(DEMO_WORLDS, k)})
            _, _, term, trunc, info = envs.step(scripted_actions(task, batch, k, start, plate).astype(np.float32))
            ok |= np.asarray(info["is_success"], bool)
            if (term | trunc).any():
                break
    finally:
        envs.close()
    if not ok.any() or len(snaps) != len(DEMO_STAGES):
        raise RuntimeError("FetchTomato demo_starts: no scripted episode succeeded, or they ended before the last "
                           "stage (the demonstration is broken)")
    return {n: np.concatenate([s[n][ok] for s in snaps]) for n in snaps[0]}


def demo_stages(mesh: int = 4) -> np.ndarray:
    """The script step (one of DEMO_STAGES) of each stored demonstration state."""
    return _demo_bank(mesh)["stage"].copy()


def scripted_demonstrations(episodes: int, *, seed: int = 0, num_threads: int = 0,
                            **kwargs) -> tuple[np.ndarray, np.ndarray]:
    """(observations [M, 42], actions [M, 5]) of ``scripted_actions`` over ``episodes``
    episodes from the task's own reset (``episodes`` worlds, seed ``seed``; ``kwargs``: the
    task's options, training aids left out), every step of the episodes whose last step
    succeeds (the observation each action was chosen from)."""
    if isinstance(episodes, bool) or not isinstance(episodes, (int, np.integer)) or episodes < 1:
        raise ValueError(f"episodes: expected a positive int, got {episodes!r}")
    kwargs = {k: v for k, v in kwargs.items() if k not in FetchTomatoTask.training_aids}
    envs = FetchTomatoVectorEnv(num_envs=int(episodes), num_threads=num_threads, **kwargs)
    obs_seen, act_seen = [], []
    try:
        obs, _ = envs.reset(seed=seed)
        task, batch = envs.task, envs.batch
        start, plate = task.tomato(batch).copy(), task.plate_top(batch).copy()
        failed = np.zeros(envs.num_envs, bool)  # (a failed world's later steps are a new episode's)
        last = FetchTomatoTask.max_episode_steps - 1
        for k in range(last + 1):
            a = scripted_actions(task, batch, k, start, plate).astype(np.float32)
            obs_seen.append(obs)
            act_seen.append(a)
            obs, _, term, trunc, info = envs.step(a)
            # ended early: terminated, or truncated before the time limit (a diverged world,
            # reported and reset); the time limit truncates every world at the last step
            failed |= term | (trunc & (k < last))
        ok = np.asarray(info["is_success"], bool) & ~failed
    finally:
        envs.close()
    steps = len(obs_seen)
    if not ok.any():
        raise RuntimeError("FetchTomato scripted_demonstrations: no scripted episode succeeded (the script is broken)")
    obs_all = np.stack(obs_seen)[:, ok].reshape(steps * int(ok.sum()), -1)
    act_all = np.stack(act_seen)[:, ok].reshape(steps * int(ok.sum()), -1)
    return obs_all, act_all


# -- a scripted baseline: pick, carry with a quarter turn of the wrist, place, let go ---------

SQUEEZE_TARGET = 0.028  # m per finger: about 6 mm inside the tomato's 3.5 cm half width


def scripted_actions(task: FetchTomatoTask, batch, step: int, start: np.ndarray, plate: np.ndarray) -> np.ndarray:
    """Actions [N, 5] of a scripted pick-and-place at env step ``step`` (``start`` [N, 3]:
    each world's tomato centre at the episode start; ``plate`` [N, 3]: its plate top):
    over the tomato (40 steps), down to the grasp height (30), close the fingers to
    SQUEEZE_TARGET (20; at the fingers' full rate of 2 mm per step), lift to 0.65 m (30),
    carry over the plate while the wrist turns
    by 90 degrees (100 steps at up to 5 mm per step), lower the tomato onto the plate (40),
    open (20) and rise (20). The grip goal moves towards each phase's point at up to 1 cm
    per step (the action's full scale); reads only the task's goal and the two points."""
    grasp_z = start[:, 2] - 0.005
    over = start + [0.0, 0.0, 0.12]
    place = plate + [0.0, 0.0, fetch.TOMATO_RADII[2] - 0.002]
    held = SQUEEZE_TARGET
    phases = [  # (last step, goal point, yaw, finger target (m), speed scale)
        (40, over, 0.0, FINGER_OPEN, 1.0),
        (70, np.column_stack([start[:, :2], grasp_z]), 0.0, FINGER_OPEN, 0.5),
        (90, np.column_stack([start[:, :2], grasp_z]), 0.0, held, 0.5),
        (120, np.column_stack([start[:, :2], np.full(len(start), 0.65)]), 0.0, held, 0.5),
        (220, np.column_stack([plate[:, :2], np.full(len(start), 0.65)]), np.pi / 2, held, 0.5),
        (260, place, np.pi / 2, held, 0.3),
        (280, place, np.pi / 2, FINGER_OPEN, 0.3),
        (10**9, place + [0.0, 0.0, 0.1], np.pi / 2, FINGER_OPEN, 0.5),
    ]
    end, point, yaw, fingers, speed = next(p for p in phases if step < p[0])
    a = np.zeros((batch.num_worlds, 5))
    a[:, :3] = np.clip((point - task.goal) / STEP_POS, -speed, speed)
    a[:, 3] = np.clip((yaw - task.yaw) / STEP_YAW, -0.5, 0.5)
    a[:, 4] = np.clip((fingers - task.finger) / STEP_FINGER, -1.0, 1.0)
    return a
