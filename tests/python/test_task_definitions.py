"""Every task's definition pinned by hand-computed values (issue 14, item 1).

States are constructed (pose, velocity, flag, contacts written into the batch, then
``batch.forward()``), the task's hooks are called on them, and every observation entry,
reward term and termination is compared with a value computed here from the task's
docstring -- kinematic quantities (body origins, joint ranges, actuator order) come from
MuJoCo's own compile of the same file, never from the task's code. Humanoid-v0 and
InvertedPendulum-v0 are compared with Gymnasium's Humanoid-v5 / InvertedPendulum-v5.
Each test names the one-line bugs it catches.
"""

import os

import gymnasium as gym
import mujoco
import numpy as np
import pytest

import ncpgym  # noqa: F401  (registers the tasks)
from ncpgym.tasks.flagrun import flagrun_xml

FLAGRUN, HARDER = "ncpgym/HumanoidFlagrun-v0", "ncpgym/HumanoidFlagrunHarder-v0"
DT = 0.0165  # the docstring's control period


# -- helpers: quaternions and MuJoCo's view of the flag-run model ------------------------------

def qmul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def rpy_quat(roll, pitch, yaw):
    """Orientation Rz(yaw) Ry(pitch) Rx(roll) as a wxyz quaternion."""
    qz = np.array([np.cos(yaw / 2), 0, 0, np.sin(yaw / 2)])
    qy = np.array([np.cos(pitch / 2), 0, np.sin(pitch / 2), 0])
    qx = np.array([np.cos(roll / 2), np.sin(roll / 2), 0, 0])
    return qmul(qz, qmul(qy, qx))


class MjFlagrun:
    """MuJoCo's compile of the flag-run file: actuator order, joint ranges, body origins."""

    def __init__(self, harder=False):
        name = "humanoid_flagrun_harder.xml" if harder else "humanoid_flagrun.xml"
        self.m = mujoco.MjModel.from_xml_path(os.path.join(os.path.dirname(flagrun_xml()), name))
        self.d = mujoco.MjData(self.m)
        j = self.m.actuator_trnid[:, 0]
        self.qadr, self.dadr = self.m.jnt_qposadr[j], self.m.jnt_dofadr[j]
        self.lo, self.hi = self.m.jnt_range[j].T
        names = [mujoco.mj_id2name(self.m, mujoco.mjtObj.mjOBJ_BODY, i) for i in range(self.m.nbody)]
        self.robot = [i for i in range(1, self.m.nbody) if names[i] != "cube"]
        self.qpos0 = self.m.qpos0.copy()

    def kin(self, q):
        self.d.qpos[:] = q
        mujoco.mj_kinematics(self.m, self.d)
        return self.d

    def xy(self, q):
        """The robot's x, y: mean of its bodies' origins."""
        return self.kin(q).xpos[self.robot, :2].mean(axis=0)

    def scaled(self, q):
        return 2 * (q[self.qadr] - self.lo) / (self.hi - self.lo) - 1

    def geom_xpos(self, q, name):
        return self.kin(q).geom_xpos[self.m.geom(name).id].copy()


def flagrun(n, harder=False, **kwargs):
    env = gym.make_vec(HARDER if harder else FLAGRUN, num_envs=n, num_threads=1, **kwargs)
    env.reset(seed=0)
    return env, env.unwrapped.batch, env.unwrapped._c.task


def put(b, q, u=None):
    b.q[:] = q
    b.u[:] = 0.0 if u is None else u
    b.forward()


# -- HumanoidFlagrun-v0: observation ------------------------------------------------------------

def test_flagrun_observation_entries():
    """Catches: yaw sign in the angle to the flag, velocity rotated the wrong way, roll and
    pitch swapped, joint scaling (halved, not centred), joint speed factor, pos/speed
    interleaving, z - z0, the robot's x, y (torso instead of the body mean), clipping."""
    env, b, task = flagrun(2)
    mj = MjFlagrun()
    rng = np.random.default_rng(0)
    roll, pitch, yaw = 0.3, -0.2, 2.0
    q = np.tile(mj.qpos0, (2, 1))
    q[:, 0:3] = [1.0, -2.0, 3.0]  # in the air: no contact
    q[:, 3:7] = rpy_quat(roll, pitch, yaw)
    frac = rng.uniform(0.05, 0.95, (2, len(mj.qadr)))
    q[:, mj.qadr] = mj.lo + frac * (mj.hi - mj.lo)
    u = np.zeros((2, b.model.nv))
    u[0, 0:3] = [1.0, 2.0, -0.5]
    u[1, 0:3] = [0.0, 0.0, -30.0]  # 0.3 * -30 = -9: clipped to -5
    u[:, mj.dadr] = rng.uniform(-20, 20, (2, len(mj.dadr)))
    u[1, mj.dadr[0]] = 80.0  # 0.1 * 80 = 8: clipped to 5
    put(b, q, u)
    task.flag[:] = [[4.0, 1.5], [-3.0, -5.0]]
    obs = task.observe(b)
    assert obs.shape == (2, 44) and obs.dtype == np.float32
    for i in range(2):
        x, y = mj.xy(q[i])
        bearing = np.arctan2(task.flag[i, 1] - y, task.flag[i, 0] - x)
        angle = bearing - yaw  # flag bearing relative to the heading
        v = u[i, 0:3]
        forward = np.cos(yaw) * v[0] + np.sin(yaw) * v[1]  # the velocity in the yaw frame
        left = -np.sin(yaw) * v[0] + np.cos(yaw) * v[1]
        expect = [3.0 - mj.qpos0[2], np.sin(angle), np.cos(angle), 0.3 * forward, 0.3 * left, 0.3 * v[2],
                  roll, pitch]
        for k in range(len(mj.qadr)):
            expect += [mj.scaled(q[i])[k], 0.1 * u[i, mj.dadr[k]]]
        expect += [0.0, 0.0]  # feet in the air
        np.testing.assert_allclose(obs[i], np.clip(expect, -5, 5), rtol=0, atol=2e-6)
    assert obs[1, 5] == -5.0 and obs[1, 9] == 5.0  # the clipped entries


def _standing(mj, z_clear=-0.001, roll=0.0):
    """qpos0 (hinges zero) with a torso roll, lowered so that the lowest foot sphere sinks
    |z_clear| into the floor (computed by MuJoCo); returns q and the feet's heights."""
    q = mj.qpos0.copy()
    q[3:7] = rpy_quat(roll, 0.0, 0.0)
    r = mj.m.geom_size[mj.m.geom("right_foot").id, 0]
    zr, zl = mj.geom_xpos(q, "right_foot")[2], mj.geom_xpos(q, "left_foot")[2]
    q[2] += -(min(zr, zl) - r) + z_clear
    return q, np.array([mj.geom_xpos(q, "right_foot")[2], mj.geom_xpos(q, "left_foot")[2]]) - r


def test_flagrun_foot_contact_flags_and_feet_collision():
    """Right/left order of the foot flags (ground contact from one physics step of a
    constructed stance) and feet_collision never counting the ground. Catches: feet order
    swapped, feet_collision counting ground contact."""
    env, b, task = flagrun(3)
    mj = MjFlagrun()
    both, hb = _standing(mj)
    right, hr = _standing(mj, roll=0.15)  # leaning onto the right foot
    left, hl = _standing(mj, roll=-0.15)
    assert np.all(hb < 0) and hr[0] < 0 < hr[1] - 0.01 and hl[1] < 0 < hl[0] - 0.01
    put(b, np.stack([both, right, left]))
    b.step(np.zeros((3, 17)), 1)  # contacts are found by a step
    obs = task.observe(b)
    np.testing.assert_array_equal(obs[:, 42:], [[1, 1], [1, 0], [0, 1]])
    _, term, info = task.evaluate(b, task.before_step(b), np.zeros((3, 17)), DT)
    np.testing.assert_array_equal(info["reward_terms"]["feet_collision"], 0.0)
    assert not term.any()


def test_harder_feet_collision_counts_the_cube_not_the_ground():
    """A cube flying at the raised left foot of a robot standing on its right foot.
    Catches: feet_collision counting ground contact, or not counting the cube."""
    env, b, task = flagrun(2, harder=True)
    mj = MjFlagrun(harder=True)
    q, h = _standing(mj, roll=0.15)
    q = np.tile(q, (2, 1))
    cube = mj.m.jnt_qposadr[mj.m.joint("cube").id]
    half = mj.m.geom_size[mj.m.geom("cube").id, 0]
    r = mj.m.geom_size[mj.m.geom("left_foot").id, 0]
    foot = mj.geom_xpos(q[0], "left_foot")
    q[0, cube:cube + 3] = foot + [0.0, r + half - 0.002, 0.0]  # beside the foot, outside, 2 mm in
    q[1, cube:cube + 3] = [0.0, 0.0, 2000.0]
    u = np.zeros((2, b.model.nv))
    cv = mj.m.jnt_dofadr[mj.m.joint("cube").id]
    u[0, cv + 1] = -1.0  # and flying at it
    put(b, q, u)
    b.step(np.zeros((2, 17)), 1)
    obs = task.observe(b)
    np.testing.assert_array_equal(obs[:, 42:], [[1, 0], [1, 0]])  # the cube is not the ground
    reward, _, info = task.evaluate(b, task.before_step(b), np.zeros((2, 17)), DT)
    np.testing.assert_array_equal(info["reward_terms"]["feet_collision"], [1.0, 0.0])
    # the worlds differ only by the cube: the rewards by feet_collision's weight, -1 (docstring)
    assert reward[0] - reward[1] == pytest.approx(-1.0, abs=1e-12)


def test_harder_feet_collision_counts_the_cube_at_the_standing_foot():
    """The cube hits the right foot while that foot stands on the ground: Roboschool counts
    every contact that is not the ground, so feet_collision is 1 (ground contact alone, 0).
    Catches: a foot on the ground masking its other contacts."""
    env, b, task = flagrun(2, harder=True)
    mj = MjFlagrun(harder=True)
    q, h = _standing(mj, roll=0.15)
    q = np.tile(q, (2, 1))
    cube = mj.m.jnt_qposadr[mj.m.joint("cube").id]
    half = mj.m.geom_size[mj.m.geom("cube").id, 0]
    r = mj.m.geom_size[mj.m.geom("right_foot").id, 0]
    foot = mj.geom_xpos(q[0], "right_foot")
    q[0, cube:cube + 3] = foot + [0.0, -(r + half - 0.002), half - r]  # beside the foot, on the ground
    q[1, cube:cube + 3] = [0.0, 0.0, 2000.0]
    u = np.zeros((2, b.model.nv))
    put(b, q, u)
    b.step(np.zeros((2, 17)), 1)
    obs = task.observe(b)
    assert obs[0, 42] == 1 and obs[1, 42] == 1  # the right foot stands in both worlds
    _, _, info = task.evaluate(b, task.before_step(b), np.zeros((2, 17)), DT)
    np.testing.assert_array_equal(info["reward_terms"]["feet_collision"], [1.0, 0.0])


# -- HumanoidFlagrun-v0: reward terms and termination -----------------------------------------

def test_flagrun_reward_terms_and_termination():
    """Catches: alive threshold/values, progress sign or dt, electricity as a sum or without
    0.1, stall as a sum, joints_at_limit threshold or scaling, weights, termination at
    the wrong height or missing, non-finite states not terminated."""
    n = 5
    env, b, task = flagrun(n)
    mj = MjFlagrun()
    rng = np.random.default_rng(1)
    task.flag[:] = [5.0, 3.0]
    qa = np.tile(mj.qpos0, (n, 1))
    put(b, qa)
    before = task.before_step(b)
    qb = qa.copy()
    qb[:, 0:2] += [0.10, 0.05]
    qb[:, 2] = [0.79, 0.78, 0.5, 1.2, 1.2]
    qb[:, mj.qadr] = mj.lo + rng.uniform(0.1, 0.9, (n, 17)) * (mj.hi - mj.lo)
    at_limit = [(0, 0.995), (3, -0.995), (7, 0.9999), (10, 0.985), (12, 0.99)]  # scaled: 3 beyond 0.99
    for k, s in at_limit:
        qb[3, mj.qadr[k]] = mj.lo[k] + (s + 1) / 2 * (mj.hi[k] - mj.lo[k])
    qb[4, mj.qadr[5]] = np.nan
    ub = np.zeros((n, b.model.nv))
    ub[:, mj.dadr] = rng.uniform(-10, 10, (n, 17))
    put(b, qb, ub)
    a = rng.uniform(-1, 1, (n, 17))
    reward, term, info = task.evaluate(b, before, a, DT)
    t = info["reward_terms"]
    for i in range(n - 1):
        alive = 2.0 if qb[i, 2] > 0.78 else -1.0
        d0 = np.linalg.norm([5.0, 3.0] - mj.xy(qa[i]))
        d1 = np.linalg.norm([5.0, 3.0] - mj.xy(qb[i]))
        progress = (d0 - d1) / DT
        speed = 0.1 * ub[i, mj.dadr]
        electricity = np.mean(np.abs(a[i] * speed))
        stall = np.mean(a[i] ** 2)
        limits = np.sum(np.abs(mj.scaled(qb[i])) > 0.99)
        expect = dict(alive=alive, progress=progress, electricity=electricity, stall_torque=stall,
                      joints_at_limit=limits, feet_collision=0.0)
        for k, v in expect.items():
            assert t[k][i] == pytest.approx(v, rel=1e-9, abs=1e-9), (i, k)
        total = alive + progress - 8.5 * electricity - 0.425 * stall - 0.1 * limits
        assert reward[i] == pytest.approx(total, rel=1e-9, abs=1e-9)
    assert t["joints_at_limit"][3] == 3 and progress > 0
    np.testing.assert_array_equal(term, [False, True, True, False, True])
    np.testing.assert_array_equal(t["alive"][:4], [2.0, -1.0, -1.0, 2.0])
    assert env.unwrapped.max_episode_steps == 1000 and env.dt == pytest.approx(DT)


@pytest.mark.parametrize("harder", [False, True])
def test_flag_moves_within_one_metre_and_after_its_timeout(harder):
    """Both tasks (Harder evaluates on its own). Catches: the reach radius (< 1 m), no flag
    timeout, a timeout off by one, the flag_timeout kwarg ignored, progress measured
    against the new flag, info's flag_x / flag_y not the flag the robot now runs to."""
    env, b, task = flagrun(3, harder=harder)
    mj = MjFlagrun(harder=harder)
    q = np.tile(mj.qpos0, (3, 1))
    put(b, q)
    xy = mj.xy(q[0])
    task.reset_states(b, np.arange(3, dtype=np.int32))  # timers restart
    task.flag[:] = xy + np.array([[0.99, 0.0], [0.0, 1.01], [8.0, 0.0]])
    old = task.flag.copy()
    before = task.before_step(b)
    _, _, info = task.evaluate(b, before, np.zeros((3, 17)), DT)
    assert not np.allclose(task.flag[0], old[0])  # reached: a new flag
    np.testing.assert_array_equal(task.flag[1:], old[1:])
    np.testing.assert_array_equal(info["flags_reached"], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(info["distance_to_flag"], [0.99, 1.01, 8.0], rtol=1e-12)
    np.testing.assert_allclose(info["reward_terms"]["progress"], 0.0, atol=1e-9)  # to the old flag
    np.testing.assert_array_equal(np.stack([info["flag_x"], info["flag_y"]], axis=1), task.flag)
    # world 2's flag (8 m away) has been up 1 step; it moves after the 150th
    for k in range(2, 151):
        task.evaluate(b, before, np.zeros((3, 17)), DT)
        if k < 150:
            np.testing.assert_array_equal(task.flag[2], old[2], err_msg=f"step {k}")
    assert not np.allclose(task.flag[2], old[2])
    env2 = gym.make_vec(HARDER if harder else FLAGRUN, num_envs=1, flag_timeout=10)
    env2.reset(seed=0)
    t2, b2 = env2.unwrapped._c.task, env2.unwrapped.batch
    put(b2, q[:1])
    t2.flag[:] = xy + [8.0, 0.0]
    f = t2.flag.copy()
    moved = []
    for k in range(1, 12):
        t2.evaluate(b2, t2.before_step(b2), np.zeros((1, 17)), DT)
        moved.append(not np.array_equal(t2.flag, f))
    assert moved.index(True) == 9  # the 10th step


def test_flag_distribution_and_the_first_flag_ahead_half_the_time():
    """Flags uniform over the halved stadium; the first flag of an episode is forced ahead
    (x >= 2) half of the time: P(x >= 2) = 0.5 + 0.5 * 11.125 / 26.25 = 0.712 for first
    flags, 11.125 / 26.25 = 0.424 later. 1,920 draws each (sd 0.011), margin 0.04.
    Catches: no first flag ahead, the forced flags elsewhere, stadium bounds."""
    n, reps = 64, 30
    env, b, task = flagrun(n)
    worlds = np.arange(n, dtype=np.int32)
    first, later = [], []
    for _ in range(reps):
        task.reset_states(b, worlds)
        first.append(task.flag.copy())
        task.timer[:] = 1
        task.evaluate(b, task.before_step(b), np.zeros((n, 17)), DT)
        later.append(task.flag.copy())
    for flags, p in ((np.concatenate(first), 0.5 + 0.5 * 11.125 / 26.25), (np.concatenate(later), 11.125 / 26.25)):
        assert np.all(np.abs(flags[:, 0]) <= 13.125) and np.all(np.abs(flags[:, 1]) <= 6.25)
        assert flags[:, 0].max() > 12.5 and flags[:, 1].min() < -6.0 and flags[:, 1].max() > 6.0
        assert abs((flags[:, 0] >= 2.0).mean() - p) < 0.04, ((flags[:, 0] >= 2.0).mean(), p)
        # x and y drawn independently (sd of the correlation ~0.023)
        assert abs(np.corrcoef(flags[:, 0], flags[:, 1])[0, 1]) < 0.1
    # forced-ahead first flags span [2, 13.125]: P(x in [12.125, 13.125]) = 0.5 / 11.125 + 0.5 / 26.25
    top = (np.concatenate(first)[:, 0] >= 12.125).mean()
    assert abs(top - (0.5 / 11.125 + 0.5 / 26.25)) < 0.02, top
    later = np.concatenate(later)
    assert later[:, 0].min() < -12.5  # later flags also behind


def test_flagrun_reset_distribution():
    """Catches: hinge noise scale, velocity not zero, yaw range (e.g. [0, pi] or none),
    torso tilted at reset, z0 not z at reset."""
    env, b, task = flagrun(64)
    mj = MjFlagrun()
    qs, us = [], []
    for _ in range(10):
        q, u = task.reset_states(b, np.arange(64, dtype=np.int32))
        qs.append(q)
        us.append(u)
    q, u = np.concatenate(qs), np.concatenate(us)
    off = q[:, mj.qadr] - mj.qpos0[mj.qadr]
    assert np.all(np.abs(off) <= 0.03) and np.abs(off).max() > 0.029 and abs(off.mean()) < 0.003
    np.testing.assert_array_equal(u, 0.0)
    np.testing.assert_array_equal(q[:, 2], mj.qpos0[2])
    np.testing.assert_array_equal(task.z0, mj.qpos0[2])
    w, x, y, z = q[:, 3:7].T
    np.testing.assert_allclose([x, y], 0.0, atol=1e-15)  # upright: a rotation about z only
    np.testing.assert_allclose(w * w + z * z, 1.0, atol=1e-12)  # (cos yaw/2, 0, 0, sin yaw/2)
    yaw = np.arctan2(2 * w * z, w * w - z * z)
    hist, _ = np.histogram(yaw, bins=4, range=(-np.pi, np.pi))
    assert np.all(np.abs(hist / len(yaw) - 0.25) < 0.05), hist


# -- HumanoidFlagrunHarder-v0 -----------------------------------------------------------------

def test_harder_takes_the_callers_reward_weights():
    """Harder sets its own electricity and stall weights, then the caller's reward_weights
    on top. Catches: the caller's weights dropped or overridden by Harder's."""
    env = gym.make_vec(HARDER, num_envs=1, num_threads=1, reward_weights={"alive": 0.5, "electricity": -1.0})
    weights = {t.name: t.weight for t in env.unwrapped._c.task.rewards.terms}
    assert weights["alive"] == 0.5 and weights["electricity"] == -1.0 and weights["stall_torque"] == -0.425 / 4
    env.close()


def test_harder_reward_terms_progress_gate_and_weights():
    """Catches: alive formula (clip, 1.2, 0.5 + 1.5), the progress gate removed or on one
    side only, electricity/stall weights not a quarter, z0 = 0.8 for the height entry."""
    n = 5
    env, b, task = flagrun(n, harder=True)
    mj = MjFlagrun(harder=True)
    rng = np.random.default_rng(2)
    task.flag[:] = [-4.0, 2.0]
    cube = mj.m.jnt_qposadr[mj.m.joint("cube").id]
    za = np.array([0.9, 0.79, 0.9, 0.5, 1.3])
    zb = np.array([0.85, 0.85, 0.79, 0.35, -0.1])
    qa = np.tile(mj.qpos0, (n, 1))
    qa[:, 2] = za
    qa[:, cube:cube + 3] = [0.0, 0.0, 2000.0]
    put(b, qa)
    before = task.before_step(b)
    qb = qa.copy()
    qb[:, 0:2] -= [0.2, -0.1]  # towards the flag
    qb[:, 2] = zb
    qb[:, mj.qadr] = mj.lo + rng.uniform(0.1, 0.9, (n, 17)) * (mj.hi - mj.lo)
    for k, sc in [(0, 0.995), (3, -0.995), (10, 0.985)]:  # scaled: 2 beyond 0.99 in world 0
        qb[0, mj.qadr[k]] = mj.lo[k] + (sc + 1) / 2 * (mj.hi[k] - mj.lo[k])
    ub = np.zeros((n, b.model.nv))
    ub[:, mj.dadr] = rng.uniform(-10, 10, (n, 17))
    put(b, qb, ub)
    np.testing.assert_allclose(task.observe(b)[:, 0], zb - 0.8, atol=1e-6)
    a = rng.uniform(-1, 1, (n, 17))
    reward, term, info = task.evaluate(b, before, a, DT)
    t = info["reward_terms"]
    for i in range(n):
        alive = 0.5 + 1.5 * min(max(zb[i], 0.0), 1.2) / 1.2
        d0 = np.linalg.norm([-4.0, 2.0] - mj.xy(qa[i]))
        d1 = np.linalg.norm([-4.0, 2.0] - mj.xy(qb[i]))
        up = za[i] >= 0.8 and zb[i] >= 0.8
        progress = (d0 - d1) / DT if up else 0.0
        electricity = np.mean(np.abs(a[i] * 0.1 * ub[i, mj.dadr]))
        stall = np.mean(a[i] ** 2)
        limits = np.sum(np.abs(mj.scaled(qb[i])) > 0.99)
        assert t["alive"][i] == pytest.approx(alive, rel=1e-12)
        assert t["progress"][i] == pytest.approx(progress, rel=1e-9, abs=1e-12)
        total = alive + progress - 8.5 / 4 * electricity - 0.425 / 4 * stall - 0.1 * limits
        assert reward[i] == pytest.approx(total, rel=1e-9, abs=1e-9)
    assert t["progress"][0] > 10.0  # the one world that stays up moves towards the flag
    assert t["joints_at_limit"][0] == 2
    np.testing.assert_array_equal(info["start_task"], task.start)
    np.testing.assert_allclose(t["alive"][[3, 4]], [0.5 + 1.5 * 0.35 / 1.2, 0.5])
    assert not term.any()  # one frame on the ground ends nothing


def test_harder_on_ground_counter_terminates_at_170_frames():
    """Catches: the 170 threshold off by one, the counter not decreasing when up (or going
    negative), termination by height as in Flagrun."""
    env, b, task = flagrun(2, harder=True)
    mj = MjFlagrun(harder=True)
    cube = mj.m.jnt_qposadr[mj.m.joint("cube").id]
    q = np.tile(mj.qpos0, (2, 1))
    q[:, cube:cube + 3] = [0.0, 0.0, 2000.0]
    task.ground[:] = 0
    ends = {0: [], 1: []}

    def run(z, frames):
        q[:, 2] = z
        put(b, q)
        for _ in range(frames):
            _, term, info = task.evaluate(b, task.before_step(b), np.zeros((2, 17)), DT)
            for w in (0, 1):
                ends[w].append(bool(term[w]))
        return info

    run([0.5, 0.5], 100)
    info = run([0.5, 1.2], 50)  # world 1 gets up: its counter falls 100 -> 50
    np.testing.assert_array_equal(info["on_ground_frames"], [150, 50])
    run([0.5, 1.2], 60)  # up longer: the counter stays at 0
    assert task.ground[1] == 0
    run([0.5, 0.5], 170)
    assert ends[0].index(True) == 169  # the 170th frame down
    assert ends[1].index(True) == 100 + 50 + 60 + 169
    # a non-finite state ends its own world only
    task.ground[:] = 0
    q[:, 2] = 1.2
    q[0, 7] = np.nan
    b.q[:] = q
    _, term, _ = task.evaluate(b, task.before_step(b), np.zeros((2, 17)), DT)
    np.testing.assert_array_equal(term, [True, False])


def test_harder_start_task_curriculum():
    """The start task is drawn with probability proportional to 0.1 + its failure rate, an
    EMA (factor 0.05) of 'ended by termination' over finished episodes. Catches: the
    curriculum removed (uniform draws), the EMA factor, the update counting truncations
    as failures, the wrong task's rate updated."""
    env, b, task = flagrun(1, harder=True)
    mj = MjFlagrun(harder=True)
    k = int(task.start[0])
    f0 = task.failure.copy()
    q = mj.qpos0.copy()[None]
    q[0, 2] = 0.3
    put(b, q)
    task.ground[0] = 169
    _, term, _ = task.evaluate(b, task.before_step(b), np.zeros((1, 17)), DT)
    assert term[0]
    task.reset_states(b, np.array([0], np.int32))  # that episode ended by termination
    expect = f0.copy()
    expect[k] += 0.05 * (1.0 - f0[k])
    np.testing.assert_allclose(task.failure, expect, rtol=1e-12)
    k2 = int(task.start[0])
    task.reset_states(b, np.array([0], np.int32))  # truncated / reset without a fall
    expect[k2] += 0.05 * (0.0 - expect[k2])
    np.testing.assert_allclose(task.failure, expect, rtol=1e-12)
    # draws follow 0.1 + failure: p = (0.1, 0.1, 1.0) / 1.2; 1,920 draws (sd <= 0.011)
    env, b, task = flagrun(64, harder=True)
    counts = np.zeros(3)
    for _ in range(30):
        task.failure[:] = [0.0, 0.0, 0.9]
        task.started[:] = False  # no episode ends here: no update
        task.reset_states(b, np.arange(64, dtype=np.int32))
        counts += np.bincount(task.start, minlength=3)
    np.testing.assert_allclose(counts / counts.sum(), np.array([0.1, 0.1, 1.0]) / 1.2, atol=0.04)


def test_an_explicit_reset_leaves_unfinished_episodes_out_of_the_curriculum():
    """reset() in the middle of episodes cuts them short: they did not end, so they are no
    outcome; an episode that ended (waiting for its next-step autoreset) still counts.
    Catches: every explicit reset recording its worlds as successes (an evaluation that
    resets twice would then draw other starts than one that resets once), the finished
    episode's outcome dropped too."""
    env = gym.make_vec(HARDER, num_envs=4, num_threads=1)
    env.reset(seed=0)
    task = env.unwrapped._c.task
    for _ in range(3):
        env.step(np.zeros((4, 17)))
    f0 = task.failure.copy()
    env.reset(seed=1)  # every episode cut short after 3 steps
    np.testing.assert_array_equal(task.failure, f0)
    env.step(np.zeros((4, 17)))
    w = int(np.flatnonzero(task.start > 0)[0])  # a lying world
    task.ground[w] = 169  # it ends by the on-ground counter on the next step
    env.step(np.zeros((4, 17)))
    pending = env.unwrapped._pending
    assert pending[w] and pending.sum() == 1
    k = int(task.start[w])
    f1 = task.failure.copy()
    env.reset(seed=2)  # world w's fall counts, the other three do not
    expect = f1.copy()
    expect[k] += 0.05 * (1.0 - f1[k])
    np.testing.assert_allclose(task.failure, expect, rtol=1e-12)
    env.close()


@pytest.mark.parametrize("throw_when, world_1", [(None, [120, 150]), ("up", [120, 150]), ("counter_zero", [120])])
def test_harder_throws_at_frames_120_150_only_while_up(throw_when, world_1):
    """Docstring: after frame 100, every 30th frame (120, 150, ...) at which the torso is at
    or above 0.8 m, whatever the on-ground counter (the default, "up"), or while the
    counter is 0 (Roboschool's "counter_zero"). World 1 is down for frames 140-149 (its
    counter is 9 at frame 150, when it is up again) and from frame 175 on. Catches: the
    first throw at 100 or 90, another period, throws while down, the two rules swapped or
    the default being Roboschool's (world 1 thrown at or spared at frame 150)."""
    env, b, task = flagrun(2, harder=True, **({} if throw_when is None else {"throw_when": throw_when}))
    mj = MjFlagrun(harder=True)
    cube = mj.m.jnt_qposadr[mj.m.joint("cube").id]
    q = np.tile(mj.qpos0, (2, 1))
    q[:, 2] = 1.3
    q[:, cube:cube + 3] = [0.0, 0.0, 2000.0]
    put(b, q)
    task.frame[:] = 0
    thrown = {0: [], 1: []}
    task.ground[:] = 0
    for frame in range(1, 182):
        b.q[1, 2] = 0.5 if 140 <= frame < 150 or frame >= 175 else 1.3
        b.q[:, cube + 2] = 2000.0
        task.evaluate(b, task.before_step(b), np.zeros((2, 17)), DT)
        for w in (0, 1):
            if b.q[w, cube + 2] < 1000.0:
                thrown[w].append(frame)
        if frame == 150:
            assert task.ground[1] == 9  # up at frame 150 with the counter still positive
    assert thrown == {0: [120, 150, 180], 1: world_1}


def test_harder_cube_throw_by_hand():
    """The docstring's throw, computed here from the same five uniform draws of each world's
    stream (re-seeded): bearing angle = (2 r0 - 1) pi, speed = 20 + 10 r1, the robot's
    position (mean of its bodies' xy, torso height z) predicted 4 / speed ahead by its
    velocity, the cube 4 m away at that bearing and 1 m up, flying at the target at that
    speed plus (2 r2..4 - 1) m/s per axis, not spinning; the worlds not thrown at keep
    their cube. Catches: the bearing range or sign, the speed range, the prediction time,
    the 4 m / 1 m offsets, the noise range, the direction (away from the robot), a cube
    left spinning, the wrong worlds thrown at."""
    n = 4
    env, b, task = flagrun(n, harder=True)
    mj = MjFlagrun(harder=True)
    rng = np.random.default_rng(5)
    q = np.tile(mj.qpos0, (n, 1))
    q[:, 0:2] = rng.uniform(-3, 3, (n, 2))
    q[:, 2] = 1.3
    cube = mj.m.jnt_qposadr[mj.m.joint("cube").id]
    cube_v = mj.m.jnt_dofadr[mj.m.joint("cube").id]
    q[:, cube:cube + 3] = [0.0, 0.0, 2000.0]
    u = np.zeros((n, b.model.nv))
    u[:, 0:3] = rng.uniform(-2, 2, (n, 3))
    u[:, cube_v + 3:cube_v + 6] = 5.0  # spinning before the throw
    put(b, q, u)
    thrown = np.array([True, False, True, True])
    b.seed(11)
    r = b.uniform(np.flatnonzero(thrown).astype(np.int32), 5, 0.0, 1.0)
    b.seed(11)
    task._throw(b, thrown)
    for k, w in enumerate(np.flatnonzero(thrown)):
        angle, speed = (2 * r[k, 0] - 1) * np.pi, 20.0 + 10.0 * r[k, 1]
        robot = np.mean(mj.kin(q[w]).xpos[mj.robot, :2], axis=0)
        target = np.array([*robot, q[w, 2]]) + u[w, 0:3] * 4.0 / speed
        offset = np.array([4.0 * np.cos(angle), 4.0 * np.sin(angle), 1.0])
        np.testing.assert_allclose(b.q[w, cube:cube + 3], target + offset, atol=1e-9)
        np.testing.assert_allclose(b.q[w, cube + 3:cube + 7], [1, 0, 0, 0])
        v = -offset / np.linalg.norm(offset) * speed + (2 * r[k, 2:5] - 1)
        np.testing.assert_allclose(b.u[w, cube_v:cube_v + 3], v, atol=1e-9)
        np.testing.assert_array_equal(b.u[w, cube_v + 3:cube_v + 6], 0.0)
    np.testing.assert_array_equal(b.q[1, cube:cube + 3], [0.0, 0.0, 2000.0])
    np.testing.assert_array_equal(b.u[1, cube_v + 3:cube_v + 6], 5.0)
    env.close()


# -- Humanoid-v0 against Gymnasium's Humanoid-v5 ----------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, dict(forward_reward_weight=2.0, ctrl_cost_weight=0.3, contact_cost_weight=1e-6,
                                         contact_cost_range=(0.5, 4.0), healthy_reward=3.0,
                                         healthy_z_range=(0.9, 1.5), terminate_when_unhealthy=False)])
def test_humanoid_reward_terms_and_termination_match_humanoid_v5(kwargs):
    """Same constructed before/after states, controls and contact wrenches in ncpgym's task
    and in Gymnasium's Humanoid-v5 (its mass_center, _get_rew, is_healthy). Catches: the
    ctrl-cost sign, the contact cost's clip or weight, the forward velocity (x vs y, dt),
    healthy range bounds, no termination, every kwarg ignored."""
    from gymnasium.envs.mujoco.humanoid_v5 import mass_center

    n = 5
    env = gym.make_vec("ncpgym/Humanoid-v0", num_envs=n, num_threads=1, **kwargs)
    env.reset(seed=0)
    b, task = env.unwrapped.batch, env.unwrapped._c.task
    ref = gym.make("Humanoid-v5", **kwargs).unwrapped
    ref.reset(seed=0)
    rng = np.random.default_rng(4)
    qa = ref.init_qpos + rng.uniform(-0.05, 0.05, (n, ref.model.nq))
    qa[:, 2] = 3.0
    qb = qa + rng.uniform(-0.05, 0.05, qa.shape)
    qb[:, 2] = [1.2, 0.95, 1.0, 2.0, 1.7]
    for x in (qa, qb):
        x[:, 3:7] /= np.linalg.norm(x[:, 3:7], axis=1, keepdims=True)
    ub = rng.normal(0, 1, (n, ref.model.nv))
    put(b, qa)
    before = task.before_step(b)
    put(b, qb, ub)
    cfrc = rng.normal(0, 300, b.cfrc_ext.shape)
    cfrc[:, 0] = 0.0  # the world body gets none
    cfrc[1] *= 10  # large: the cost's upper clip
    cfrc[2] *= 0.01
    b.cfrc_ext[:] = cfrc
    ctrl = rng.uniform(-0.4, 0.4, (n, 17))
    reward, term, info = task.evaluate(b, before, ctrl, env.dt)
    assert env.dt == pytest.approx(ref.dt)
    for i in range(n):
        ref.set_state(qa[i], np.zeros(ref.model.nv))
        xy0 = mass_center(ref.model, ref.data)
        ref.set_state(qb[i], ub[i])
        xy1 = mass_center(ref.model, ref.data)
        ref.data.ctrl[:] = ctrl[i]
        ref.data.cfrc_ext[:] = cfrc[i]
        vx, vy = (xy1 - xy0) / ref.dt
        r, parts = ref._get_rew(vx, ctrl[i])
        terminated = (not ref.is_healthy) and ref._terminate_when_unhealthy
        assert reward[i] == pytest.approx(r, rel=1e-9, abs=1e-9), i
        assert bool(term[i]) == terminated, i
        for k, v in dict(parts, x_velocity=vx, y_velocity=vy, x_position=qb[i, 0], y_position=qb[i, 1],
                         distance_from_origin=np.hypot(qb[i, 0], qb[i, 1])).items():
            assert info[k][i] == pytest.approx(v, rel=1e-9, abs=1e-9), (i, k)
    if not kwargs:
        np.testing.assert_array_equal(term, [False, True, True, True, False])
        assert info["reward_contact"][1] == -10.0


def test_humanoid_reset_noise():
    """Uniform [-0.01, 0.01] on every qpos (quaternion included) and qvel coordinate.
    Catches: noise on qpos only, the scale, a normal instead of a uniform."""
    env = gym.make_vec("ncpgym/Humanoid-v0", num_envs=64, num_threads=1)
    env.reset(seed=0)
    b, task = env.unwrapped.batch, env.unwrapped._c.task
    q0 = gym.make("Humanoid-v5").unwrapped.init_qpos
    q, u = task.reset_states(b, np.arange(64, dtype=np.int32))
    for x in (q - q0, u):
        assert np.all(np.abs(x) <= 0.01) and np.abs(x).max() > 0.0099
        assert abs(np.std(x) - 0.01 / np.sqrt(3)) < 0.0005  # uniform's sd
    env2 = gym.make_vec("ncpgym/Humanoid-v0", num_envs=8, reset_noise_scale=0.1)
    q, _ = env2.unwrapped._c.task.reset_states(env2.unwrapped.batch, np.arange(8, dtype=np.int32))
    assert np.abs(q - q0).max() > 0.09


def test_humanoid_reset_info_is_humanoid_v5s():
    """reset() returns Humanoid-v5's reset info (x_position, y_position,
    distance_from_origin) of each reset world, masked to the worlds a reset_mask resets;
    the single-world env returns plain floats like Humanoid-v5."""
    ref = gym.make("Humanoid-v5")
    _, ref_info = ref.reset(seed=0)
    env = gym.make_vec("ncpgym/Humanoid-v0", num_envs=3, num_threads=1)
    _, info = env.reset(seed=0)
    assert {k for k in info if not k.startswith("_")} == set(ref_info)
    q = env.unwrapped.batch.q
    np.testing.assert_array_equal(info["x_position"], q[:, 0])
    np.testing.assert_allclose(info["distance_from_origin"], np.hypot(q[:, 0], q[:, 1]))
    assert info["_x_position"].all()
    d = mujoco.MjData(ref.unwrapped.model)  # the tendons from MuJoCo at each world's state
    for i in range(3):
        d.qpos[:], d.qvel[:] = q[i], env.unwrapped.batch.u[i]
        mujoco.mj_forward(ref.unwrapped.model, d)
        np.testing.assert_allclose(info["tendon_length"][i], d.ten_length, atol=1e-12)
        np.testing.assert_allclose(info["tendon_velocity"][i], d.ten_velocity, atol=1e-12)
    _, info = env.reset(options={"reset_mask": np.array([False, True, False])})
    assert info["_x_position"].tolist() == [False, True, False]
    _, one = gym.make("ncpgym/Humanoid-v0").reset(seed=0)
    assert set(one) == set(ref_info) and isinstance(one["x_position"], float)
    assert one["tendon_length"].shape == (2,)


def test_tendon_info_is_mujocos_ten_length_and_ten_velocity():
    """Humanoid-v5's info["tendon_length"] / ["tendon_velocity"]: MuJoCo's ten_length and
    ten_velocity at the same qpos, qvel (Gymnasium's humanoid.xml has two fixed tendons)."""
    from ncpgym.tasks.humanoid import humanoid_xml

    mj = mujoco.MjModel.from_xml_path(humanoid_xml())
    d = mujoco.MjData(mj)
    env = gym.make_vec("ncpgym/Humanoid-v0", num_envs=3, num_threads=1)
    env.reset(seed=6)
    rng = np.random.default_rng(6)
    for _ in range(8):
        _, _, _, _, info = env.step(rng.uniform(-0.4, 0.4, (3, 17)))
    b = env.unwrapped.batch
    assert mj.ntendon == 2 and info["tendon_length"].shape == (3, 2)
    for i in range(3):
        d.qpos[:], d.qvel[:] = b.q[i], b.u[i]
        mujoco.mj_forward(mj, d)
        np.testing.assert_allclose(info["tendon_length"][i], d.ten_length, rtol=0, atol=1e-12)
        np.testing.assert_allclose(info["tendon_velocity"][i], d.ten_velocity, rtol=0, atol=1e-12)
    assert np.abs(info["tendon_velocity"]).max() > 1e-3  # moving joints, not a zero test
    env.close()


def test_humanoid_spaces_weights_frame_skip_and_reset_draws_are_the_docstrings():
    """From the module docstring: observation float64 (348), action float32 [-0.4, 0.4] with
    the exact ctrlrange as clipping bounds; reward = sum of weight x the named terms in
    info["reward_terms"] (reward_weights reweights them); frame_skip >= 1 (1 allowed);
    reset = qpos0 (velocity 0) plus the world stream's next uniform draws in [-0.01, 0.01],
    qpos then qvel. Catches: float32 observations, float32 bounds, reward_weights ignored,
    frame_skip = 1 refused, noise subtracted, reset info's y from z."""
    from ncpgym.wrappers import RewardTerm

    effort = RewardTerm("effort", lambda c: c.dt * np.abs(c.action).sum(axis=1), -1.0)
    env = gym.make_vec("ncpgym/Humanoid-v0", num_envs=3, num_threads=1, frame_skip=1,
                       reward_weights={"forward": 2.0, "healthy": 0.5, "ctrl": -1.0, "contact": -3.0},
                       extra_reward_terms=[effort], solver_options={"newton_iterations": 3})
    assert env.unwrapped._c.task.frame_skip == 1
    opts = env.unwrapped.batch.options  # the task's timestep kept, the caller's option added
    assert opts["newton_iterations"] == 3 and opts["timestep"] == 0.0075
    with pytest.raises(ValueError, match="frame_skip"):
        gym.make_vec("ncpgym/Humanoid-v0", num_envs=1, frame_skip=0)
    assert env.single_observation_space.dtype == np.float64 and env.single_observation_space.shape == (348,)
    act = env.single_action_space
    assert act.dtype == np.float32 and np.all(act.low == np.float32(-0.4)) and np.all(act.high == np.float32(0.4))
    lo, hi = env.unwrapped._c.lo, env.unwrapped._c.hi
    assert lo.dtype == np.float64 and np.all(lo == -0.4) and np.all(hi == 0.4)
    obs, info = env.reset(seed=7)
    assert obs.dtype == np.float64 and env.observation_space.contains(obs)
    b = env.unwrapped.batch
    np.testing.assert_array_equal(info["y_position"], b.q[:, 1])
    twin = ncpgym.Batch(b.model, 3)  # the same seed gives each world the same stream
    twin.seed(7)
    worlds = np.arange(3, dtype=np.int32)
    dq, du = twin.uniform(worlds, b.model.nq, -0.01, 0.01), twin.uniform(worlds, b.model.nv, -0.01, 0.01)
    q0 = gym.make("Humanoid-v5").unwrapped.init_qpos
    np.testing.assert_array_equal(b.q, q0 + dq)
    np.testing.assert_array_equal(b.u, du)
    _, reward, _, _, info = env.step(np.full((3, 17), 0.3))
    t = info["reward_terms"]
    assert {k for k in t if not k.startswith("_")} == {"forward", "healthy", "ctrl", "contact", "effort"}
    np.testing.assert_allclose(t["ctrl"], 17 * 0.09)
    np.testing.assert_allclose(t["effort"], 0.0075 * 17 * 0.3)  # frame_skip 1: dt is one 0.0075 s step
    np.testing.assert_allclose(reward, 2.0 * t["forward"] + 0.5 * t["healthy"] - t["ctrl"] - 3.0 * t["contact"]
                               - t["effort"], rtol=1e-12, atol=1e-12)
    env.close()


# -- InvertedPendulum-v0 against InvertedPendulum-v5 ------------------------------------------

def test_inverted_pendulum_matches_inverted_pendulum_v5():
    """Observation, reward and termination of constructed states against Gymnasium's
    definitions (obs = qpos, qvel; terminated = |angle| > 0.2; reward = not terminated).
    Catches: the 0.2 threshold, |angle| vs angle, the cart position tested instead of the
    angle, reward on termination."""
    angles = np.array([0.0, 0.19, -0.19, 0.21, -0.21, 0.2])
    n = len(angles)
    env = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=n, num_threads=1)
    env.reset(seed=0)
    b, task = env.unwrapped.batch, env.unwrapped._c.task
    ref = gym.make("InvertedPendulum-v5").unwrapped
    ref.reset(seed=0)
    rng = np.random.default_rng(5)
    q = np.column_stack([rng.uniform(-0.5, 0.5, n), angles])
    q[0, 0] = 0.5  # the cart far out does not matter
    u = rng.normal(0, 1, (n, 2))
    put(b, q, u)
    obs = task.observe(b)
    reward, term, info = task.evaluate(b, None, np.zeros((n, 1)), env.dt)
    np.testing.assert_array_equal(info["reward_survive"], reward)  # InvertedPendulum-v5's info key
    np.testing.assert_array_equal(info["reward_terms"]["survive"], reward)
    for i in range(n):
        ref.set_state(q[i], u[i])
        theirs = ref._get_obs()
        terminated = bool(not np.isfinite(theirs).all() or (np.abs(theirs[1]) > 0.2))
        np.testing.assert_array_equal(obs[i], theirs)
        assert bool(term[i]) == terminated and reward[i] == float(not terminated)
    np.testing.assert_array_equal(term, [False, False, False, True, True, False])
    q, u = task.reset_states(b, np.arange(n, dtype=np.int32))
    assert np.all(np.abs(q - ref.init_qpos) <= 0.01) and np.all(np.abs(u) <= 0.01) and np.abs(u).max() > 0
    assert env.dt == pytest.approx(0.04) and env.unwrapped.max_episode_steps == 1000


def test_inverted_pendulum_extra_reward_terms_see_the_action_and_the_control_period():
    """extra_reward_terms (docstring) get the step's context: the clipped action and dt."""
    from ncpgym.wrappers import RewardTerm

    term = RewardTerm("effort", lambda c: c.dt * np.abs(c.action).sum(axis=1), -1.0)
    env = gym.make_vec("ncpgym/InvertedPendulum-v0", num_envs=2, num_threads=1, extra_reward_terms=[term])
    env.reset(seed=0)
    _, reward, _, _, info = env.step(np.array([[1.5], [-5.0]], np.float32))  # the second clipped to -3
    np.testing.assert_allclose(info["reward_terms"]["effort"], [0.04 * 1.5, 0.04 * 3.0], rtol=1e-12)
    np.testing.assert_allclose(reward, [1.0 - 0.06, 1.0 - 0.12], rtol=1e-12)
    env.close()


# -- PneuNetGrasp-v0 --------------------------------------------------------------------------

def test_pneunet_grasp_observation_reward_termination():
    """Catches: lift/hold constants (z0 = 0.04, z* = 0.2, band 0.03), termination radius
    (0.12, horizontal only), the activation lag (exp(-dt/0.1)) and its target
    A_MAX (c + 1) / 2, the mount velocity command (0.1 m/s) and its clip, the observation's
    positions not relative to the mount, and the entry order."""
    n = 6
    env = gym.make_vec("ncpgym/PneuNetGrasp-v0", num_envs=n, num_threads=1)
    env.reset(seed=0)
    b, task = env.unwrapped.batch, env.unwrapped._c.task
    m = b.model
    # the ball: the free joint after the mount's slide
    ball = m.joint_id("ball")
    bq, bv = m.jnt_qposadr[ball], m.jnt_dofadr[ball]
    assert (bq, bv) == (1, 1)
    zs = np.array([0.02, 0.12, 0.21, 0.235, 0.175, 0.1])
    xy = np.array([[0, 0], [0.05, 0.05], [0, 0], [0, 0], [0.119, 0.0], [0.09, -0.081]])  # last: r = 0.1211
    q = np.array(b.q)
    q[:, 0] = [0.0, 0.01, 0.02, 0.03, 0.04, 0.05]
    q[:, 1:3], q[:, 3] = xy, zs
    put(b, q)
    reward, term, info = task.evaluate(b, None, np.zeros((n, 4)), env.dt)
    lift = np.clip((zs - 0.04) / 0.16, 0, 1)
    hold = (np.abs(zs - 0.2) < 0.03).astype(float)
    np.testing.assert_allclose(reward, lift + hold, rtol=1e-12)
    np.testing.assert_allclose(lift, [0.0, 0.5, 1.0, 1.0, 0.84375, 0.375])
    np.testing.assert_array_equal(hold, [0, 0, 1, 0, 1, 0])
    np.testing.assert_array_equal(term, [False, False, False, False, False, True])
    # actions: chamber commands and the mount velocity, from rest
    env.reset(seed=1)
    a = np.zeros((n, 4), np.float32)
    a[:, :3] = [[1, -1, 0], [0.5, 0.5, 0.5], [-1, -1, -1], [1, 1, 1], [0, 0, 0], [-0.5, 0, 0.5]]
    a[:, 3] = [1, -1, 0.5, 0, 1, -1]
    obs, *_ = env.step(a)
    lag = 1 - np.exp(-0.02 / 0.1)
    act = 0.35 * (a[:, :3] + 1) / 2 * lag
    np.testing.assert_allclose(obs[:, 31:34], act, rtol=1e-6)
    np.testing.assert_allclose(b.activation, np.repeat(act, 7, axis=1), rtol=1e-6)
    np.testing.assert_allclose(obs[:, 36], 0.1 * 0.02 * a[:, 3], rtol=1e-6)  # servo target
    for _ in range(40):  # 0.8 s at -0.1 m/s: the target stops at -0.05
        obs, *_ = env.step(np.tile([0, 0, 0, -1], (n, 1)).astype(np.float32))
    np.testing.assert_allclose(obs[:, 36], -0.05)
    # observation entries of the current state, from their definitions
    mount = np.array([0.0, 0.0, 0.12]) + [0, 0, 1] * b.q[:, :1]
    np.testing.assert_allclose(obs[:, 18:21], b.q[:, 1:4] - mount, rtol=0, atol=1e-12)
    np.testing.assert_allclose(obs[:, 21:25], b.q[:, 4:8])
    np.testing.assert_allclose(obs[:, 25:31], b.u[:, 1:7])
    np.testing.assert_allclose(obs[:, 34], b.q[:, 0])
    np.testing.assert_allclose(obs[:, 35], b.u[:, 0])
    # finger tips: each finger's particles farthest from the mount axis' root along the finger
    x0 = np.asarray(m.particle_pos0)
    first = [int(f0) for f0, _ in task.info["fingers"]]
    count = [int(c) for _, c in task.info["fingers"]]
    for f in range(3):
        idx = np.arange(first[f], first[f] + count[f])
        p = x0[idx]
        axis = np.linalg.svd(p - p.mean(axis=0))[2][0]  # the finger's long axis
        s = (p - p.mean(axis=0)) @ axis
        if np.linalg.norm((p[np.argmax(s)])[:2]) < np.linalg.norm((p[np.argmin(s)])[:2]):
            s = -s  # the tip is the end away from the mount axis
        tip = idx[s > s.max() - 1e-6]
        np.testing.assert_allclose(obs[:, 3 * f:3 * f + 3], b.x[:, tip].mean(axis=1) - mount, atol=1e-12)
        np.testing.assert_allclose(obs[:, 9 + 3 * f:12 + 3 * f], b.v[:, tip].mean(axis=1), atol=1e-12)


def test_pneunet_grasp_info_weights_extra_terms_reset_and_argument_checks():
    """The rest of PneuNetGrasp-v0's definition (mutation survivors of tasks/pneunet_grasp.py):
    the info keys and their values, is_success = hold, the workspace edge (r = 0.12 exactly
    stays), reward_weights and extra_reward_terms (which see the step's action and dt), the
    reset (ball displaced horizontally within +-5 mm, both ways, activations back to 0) and
    the constructor's mesh checks."""
    from ncpgym.tasks import PneuNetGraspTask
    from ncpgym.wrappers import RewardTerm

    n = 6
    effort = RewardTerm("effort", lambda c: -c.dt * np.square(c.action).sum(axis=1), 0.5)
    env = gym.make_vec("ncpgym/PneuNetGrasp-v0", num_envs=n, num_threads=1,
                       reward_weights={"lift": 0.25, "hold": 3.0}, extra_reward_terms=[effort])
    env.reset(seed=0)
    b, task = env.unwrapped.batch, env.unwrapped._c.task
    zs = np.array([0.02, 0.12, 0.21, 0.235, 0.175, 0.1])
    q = np.array(b.q)
    q[:, 1:3] = [[0, 0], [0.12, 0.0], [0, 0], [0, 0], [0.0, -0.12], [0.0849, 0.0849]]  # last: r = 0.12007
    q[:, 3] = zs
    put(b, q)
    action = np.array([[1, 0, 0, 0], [0, 0, 0, 1], [0.5, 0.5, 0, 0], [0, 0, 0, 0], [-1, -1, -1, -1], [0, 0, 2, 0]])
    reward, term, info = task.evaluate(b, None, action, env.dt)
    lift = np.clip((zs - 0.04) / 0.16, 0, 1)
    hold = (np.abs(zs - 0.2) < 0.03).astype(float)
    extra = -0.02 * np.square(action).sum(axis=1)
    np.testing.assert_allclose(reward, 0.25 * lift + 3.0 * hold + 0.5 * extra, rtol=1e-12)
    assert set(info["reward_terms"]) == {"lift", "hold", "effort"}
    # the terms as computed, before their weights
    np.testing.assert_allclose(info["reward_terms"]["lift"], lift, rtol=1e-12)
    np.testing.assert_array_equal(info["reward_terms"]["hold"], hold)
    np.testing.assert_allclose(info["reward_terms"]["effort"], extra, rtol=1e-12)
    np.testing.assert_allclose(info["ball_height"], zs)
    np.testing.assert_allclose(info["lift"], lift)
    np.testing.assert_array_equal(info["hold"], hold)
    np.testing.assert_array_equal(info["is_success"], [False, False, True, False, True, False])
    np.testing.assert_array_equal(term, [False, False, False, False, False, True])  # r = 0.12 stays
    # the spaces: 37 unbounded float64 observations, 4 float32 actions in [-1, 1]
    obs_space, act_space = task.spaces(b.model)
    assert obs_space.shape == (37,) and obs_space.dtype == np.float64
    assert np.all(obs_space.low == -np.inf) and np.all(obs_space.high == np.inf)
    assert act_space.shape == (4,) and act_space.dtype == np.float32
    assert np.all(act_space.low == -1.0) and np.all(act_space.high == 1.0)
    # reset: activations back to zero, the ball displaced by at most 5 mm each way, on the ground
    b.activation[:] = 0.3
    worlds = np.arange(n, dtype=np.int32)
    q, u = task.reset_states(b, worlds)
    assert np.all(b.activation == 0.0)
    q0 = np.asarray(b.model.qpos0, float)
    d = q[:, 1:3] - q0[1:3]
    assert np.all(np.abs(d) <= 0.005) and (d > 0).any() and (d < 0).any() and np.ptp(d) > 0.002
    np.testing.assert_array_equal(q[:, 3:], np.tile(q0[3:], (n, 1)))
    assert np.all(u == 0.0)
    env.close()
    # the mesh argument: three positive counts (one hexahedron per axis is allowed)
    PneuNetGraspTask(mesh=(1, 1, 1))
    for bad in ((8, 2), (8, 2, 0), (8, 2, 2, 2)):
        with pytest.raises(ValueError, match="three positive hexahedron counts"):
            PneuNetGraspTask(mesh=bad)
    with pytest.raises(ValueError, match="mesh sets the strain fingers' grid.*leave mesh at its default"):
        PneuNetGraspTask(actuation="pressure", mesh=(14, 3, 3))
    with pytest.raises(ValueError, match="strain fingers only .*linear co-rotational elements"):
        PneuNetGraspTask(material="neohookean", actuation="pressure")


def test_pneunet_grasp_neohookean_material_definition():
    """material="neohookean": every finger element is App. B's (tet model 1) and the solver
    runs line_search (the default, None, turns it on in worlds with activated Neo-Hookean
    elements: no task option); the linear default keeps linear elements and the damped step; unknown
    materials and the unbuilt pressure combination are refused."""
    from ncpgym.tasks import PneuNetGraspTask

    with pytest.raises(ValueError, match="material"):
        PneuNetGraspTask(material="rubber")
    with pytest.raises(ValueError, match="neohookean"):
        PneuNetGraspTask(material="neohookean", actuation="pressure")
    for material, model_id in (("linear", 0), ("neohookean", 1)):
        env = gym.make_vec("ncpgym/PneuNetGrasp-v0", num_envs=1, num_threads=1, material=material)
        batch = env.unwrapped.batch
        assert set(np.unique(np.asarray(batch.model.tet_model))) == {model_id}
        assert batch.options["line_search"] == (material == "neohookean")
        assert "line_search" not in env.unwrapped.task.solver_options
        assert batch.options["newton_iterations"] == 4 and batch.options["rscale"] == "time_step"
        env.close()


def test_pneunet_grasp_pressure_variant_definition():
    """actuation="pressure": catches the pressure full scale (P_MAX = 1 MPa) and its lag, one
    supply line per finger (activation group f drives that finger's 7 chambers and nothing
    else), the observation in MPa, the fingers' 80-degree tilt, and a mesh argument
    silently ignored."""
    from ncpgym.tasks import PneuNetGraspTask

    with pytest.raises(ValueError, match="actuation"):
        PneuNetGraspTask(actuation="hydraulic")
    with pytest.raises(ValueError, match="mesh"):
        PneuNetGraspTask(actuation="pressure", mesh=(14, 3, 3))
    n = 3
    env = gym.make_vec("ncpgym/PneuNetGrasp-v0", num_envs=n, num_threads=1, actuation="pressure")
    env.reset(seed=0)
    b, task = env.unwrapped.batch, env.unwrapped._c.task
    m = b.model
    assert m.nactgroup == 3 and m.nchamber == 21
    first = [int(f0) for f0, _ in task.info["fingers"]]
    count = [int(c) for _, c in task.info["fingers"]]
    # each chamber's triangles belong to the finger whose group drives it, seven per finger
    tri = np.asarray(m.chamber_triangles).reshape(-1, 3)
    start = np.asarray(m.chamber_start)
    group = np.asarray(m.chamber_group)
    for c in range(m.nchamber):
        f = int(group[c])
        t = tri[start[c]:start[c + 1]]
        assert np.all((t >= first[f]) & (t < first[f] + count[f]))
    np.testing.assert_array_equal(np.bincount(group), [7, 7, 7])
    # the fingers' long axis 80 degrees below the horizontal
    x0 = np.asarray(m.particle_pos0)
    for f in range(3):
        p = x0[first[f]:first[f] + count[f]]
        axis = np.linalg.svd(p - p.mean(axis=0))[2][0]
        assert np.degrees(np.arcsin(abs(axis[2]))) == pytest.approx(80.0, abs=1e-6)
    a = np.zeros((n, 4), np.float32)
    a[:, :3] = [[1, -1, 0], [0.5, 0.5, 0.5], [-0.5, 0, 0.5]]
    obs, *_ = env.step(a)
    lag = 1 - np.exp(-0.02 / 0.1)
    p = 1e6 * (a[:, :3] + 1) / 2 * lag
    np.testing.assert_allclose(b.activation, p, rtol=1e-6)
    np.testing.assert_allclose(obs[:, 31:34], 1e-6 * p, rtol=1e-6)
    obs, *_ = env.step(a)
    p2 = p + (1e6 * (a[:, :3] + 1) / 2 - p) * lag
    np.testing.assert_allclose(b.activation, p2, rtol=1e-6)


# -- HumanoidFlagrun-v0 / Harder: spaces and the reset's random draws --------------------------

def _rotation(quat):
    R = np.zeros(9)
    mujoco.mju_quat2Mat(R, np.asarray(quat, float))
    return R.reshape(3, 3)


@pytest.mark.parametrize("harder", [False, True])
def test_flagrun_spaces_and_reset_draws_follow_the_docstring(harder):
    """From the module docstring: observation Box(-5, 5, (44,)) float32, action Box(-1, 1,
    (17,)) float32; a reset draws from each world's stream the hinge offsets (actuator order),
    the yaw, then the flag's r0, r1, r2 (first flag ahead when r2 < 0.5), and a later
    flag the next three numbers. Computed from a twin batch seeded alike (each world's
    stream depends on the seed and its index only). Catches: bounds or dtypes of the
    spaces, noise subtracted or replacing qpos0, a flag drawing four numbers, the ahead
    rule's mapping."""
    n = 4
    env = gym.make_vec(HARDER if harder else FLAGRUN, num_envs=n, num_threads=1)
    obs_space, act_space = env.single_observation_space, env.single_action_space
    assert obs_space.dtype == np.float32 and obs_space.shape == (44,)
    assert np.all(obs_space.low == -5.0) and np.all(obs_space.high == 5.0)
    assert act_space.dtype == np.float32 and act_space.shape == (17,)
    assert np.all(act_space.low == -1.0) and np.all(act_space.high == 1.0)
    env.reset(seed=7)
    b, task, mj = env.unwrapped.batch, env.unwrapped._c.task, MjFlagrun(harder)
    twin = ncpgym.Batch(b.model, n)
    twin.seed(7)
    w = np.arange(n, dtype=np.int32)
    hq = mj.qadr  # the hinges in actuator order (MuJoCo's compile)
    dq = twin.uniform(w, len(hq), -0.03, 0.03)
    yaw = twin.uniform(w, 1, -np.pi, np.pi)[:, 0]
    r = twin.uniform(w, 3, 0.0, 1.0)
    hx, hy = 0.5 * 105 * 0.25, 0.5 * 50 * 0.25
    x = np.where(r[:, 2] < 0.5, 2.0 + r[:, 0] * (hx - 2.0), (2 * r[:, 0] - 1) * hx)
    np.testing.assert_array_equal(task.flag, np.stack([x, (2 * r[:, 1] - 1) * hy], axis=1))
    np.testing.assert_allclose(b.q[:, hq], mj.qpos0[hq] + dq, rtol=0, atol=1e-15)
    if not harder:
        np.testing.assert_allclose(b.q[:, 3:7], np.stack([np.cos(yaw / 2), 0 * yaw, 0 * yaw, np.sin(yaw / 2)], 1),
                                   atol=1e-15)
    else:
        rt = twin.uniform(w, 1, 0.0, 1.0)[:, 0]
        k = np.floor(3 * rt).astype(int)  # initial rates 0.5: p = 0.6 / 1.8 each
        np.testing.assert_array_equal(task.start, k)
    # a later flag: the timer runs out in world 1 only; it draws the next r0, r1, r2
    task.timer[:] = 100
    task.timer[1] = 1
    task.evaluate(b, task.before_step(b), np.zeros((n, 17)), DT)
    r2 = twin.uniform(np.array([1], np.int32), 3, 0.0, 1.0)[0]
    np.testing.assert_array_equal(task.flag[1], [(2 * r2[0] - 1) * hx, (2 * r2[1] - 1) * hy])
    env.close()


def test_harder_reset_poses_cube_counters_and_the_ema_over_simultaneous_episodes():
    """Docstring: lying starts at z = 0.3 m with orientation Rz(yaw) Ry(-pi/2) (on the back)
    or Rz(yaw) Ry(pi/2) (face down), yaw the one a standing start would have had; the cube
    parked 2 km up, unrotated; the frame and on-ground counters restart at 0 for the reset
    worlds only; two episodes of one start task ending together (both by a fall) move its
    failure rate by 1 - 0.95^2 towards 1. Catches: the yaw taken from the wrong quaternion
    entries or scaled, pitch halved wrongly, the cube parked elsewhere or tilted, counters
    restarting at 1 or in every world, the EMA weight 0.05 n, initial rates other than 0.5."""
    n = 24
    env = gym.make_vec(HARDER, num_envs=n, num_threads=1)
    np.testing.assert_array_equal(env.unwrapped._c.task.failure, [0.5, 0.5, 0.5])  # initial rates
    env.reset(seed=3)
    b, task = env.unwrapped.batch, env.unwrapped._c.task
    twin = ncpgym.Batch(b.model, n)
    twin.seed(3)
    w = np.arange(n, dtype=np.int32)
    nh = 17
    twin.uniform(w, nh, -0.03, 0.03)
    yaw = twin.uniform(w, 1, -np.pi, np.pi)[:, 0]
    assert set(task.start) == {0, 1, 2}
    for i in range(n):
        R = _rotation(b.q[i, 3:7])
        c, s = np.cos(yaw[i]), np.sin(yaw[i])
        if task.start[i] == 0:
            np.testing.assert_allclose(R, [[c, -s, 0], [s, c, 0], [0, 0, 1]], atol=1e-12)
            continue
        assert b.q[i, 2] == 0.3
        up = 1.0 if task.start[i] == 1 else -1.0  # on the back: the chest (body x) faces up
        np.testing.assert_allclose(R[:, 0], [0, 0, up], atol=1e-12)
        np.testing.assert_allclose(R[:, 1], [-s, c, 0], atol=1e-12)
        np.testing.assert_allclose(R[:, 2], [-up * c, -up * s, 0], atol=1e-12)
    cq = task._cube_q
    np.testing.assert_array_equal(b.q[:, cq:cq + 7], np.tile([0, 0, 2000.0, 1, 0, 0, 0], (n, 1)))
    # two worlds of task k end by a fall together; counters of the others untouched
    k = int(task.start[0])
    other = int(np.flatnonzero(task.start == k)[1])
    task.frame[:], task.ground[:] = 50, 7
    task.ended_by_fall[[0, other]] = True
    f0 = task.failure.copy()
    task.reset_states(b, np.array([0, other], np.int32))
    expect = f0.copy()
    expect[k] += (1 - 0.95 ** 2) * (1.0 - f0[k])
    np.testing.assert_allclose(task.failure, expect, rtol=1e-12)
    mask = np.zeros(n, bool)
    mask[[0, other]] = True
    assert np.all(task.frame[mask] == 0) and np.all(task.ground[mask] == 0) and not task.ended_by_fall[mask].any()
    assert np.all(task.frame[~mask] == 50) and np.all(task.ground[~mask] == 7)
    env.close()
