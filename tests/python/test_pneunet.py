"""PneuNet finger (issue 7 in progress): inflating the chambers curls the finger."""

import numpy as np
import pytest

import ncpgym
from ncpgym.envs.pneunet import CHAMBERS, LENGTH, add_finger, finger_mesh


def test_finger_mesh_has_seven_chambers_along_its_back():
    verts, tets, groups, stiff = finger_mesh()
    assert set(np.unique(groups[groups >= 0])) == set(range(CHAMBERS))
    c = verts[tets].mean(axis=1)
    assert np.all(c[groups >= 0, 2] > c[stiff, 2].max())  # chambers above the stiff layer


def test_inflating_the_chambers_curls_the_finger_towards_its_stiff_side():
    # quasi-static: h = 1/30 s, a coarse finger; the dual sparse LDL^T solves exactly too
    b = ncpgym.Builder()
    b.set_timestep(1 / 30)
    b.set_gravity([0, 0, 0])
    first, n, _ = add_finger(b, n=(8, 2, 2))
    m = b.build()
    assert m.nactgroup == CHAMBERS and m.ntet == 192
    sim = ncpgym.Simulator(m, soft_solver="dual", linear="sparse_ldlt")
    x0 = np.asarray(m.particle_pos0)
    tip = np.flatnonzero(np.abs(x0[:, 0] - LENGTH) < 1e-9)
    for k in range(45):  # pressure ramps up, then holds
        sim.activation[:] = 0.2 * min(1.0, k / 15)
        sim.step()
    assert sim.solver_stats["linear_residual"][-1] < 1e-8
    d = sim.x[tip].mean(axis=0) - x0[tip].mean(axis=0)
    assert np.isfinite(sim.x).all()
    # the longer back bends the finger down (towards the stiff bottom) and draws the tip back
    assert d[2] < -0.04 and d[0] < -0.02, d
    for k in range(45):  # and deflates
        sim.activation[:] = 0.2 * max(0.0, 1 - k / 15)
        sim.step()
    np.testing.assert_allclose(sim.x[tip].mean(axis=0), x0[tip].mean(axis=0), atol=2e-3)


def gripper_tips(sim, info):
    return np.stack([sim.x[t].mean(axis=0) for t in info["tips"]])


def test_inflating_the_gripper_curls_its_fingers_inward_and_downward():
    from ncpgym.envs.pneunet import build_gripper

    m, info = build_gripper(n=(8, 2, 2), tilt=np.radians(70), root_radius=0.03, mount_height=0.12,
                            timestep=0.02)
    sim = ncpgym.Simulator(m, **ncpgym.tasks.PneuNetGraspTask.solver_options)
    sim.q[1] = 0.5  # the ball out of reach
    t0 = gripper_tips(sim, info)
    for k in range(25):
        sim.activation[:] = 0.05
        sim.step()
    t = gripper_tips(sim, info)
    inward = np.linalg.norm(t0[:, :2], axis=1) - np.linalg.norm(t[:, :2], axis=1)
    down = t0[:, 2] - t[:, 2]
    assert np.all(inward > 0.02) and np.all(down > 0.005), (inward, down)  # measured 29 mm, 10 mm
    np.testing.assert_allclose(inward, inward[0], atol=1e-6)  # the three fingers alike


def _close_and_lift(n, **kw):
    """The scripted grasp on PneuNetGrasp-v0 (n worlds, seed 3): close to activation 0.25 for
    0.6 s, lift until the ball is at 0.2 m, hold; 280 steps (5.6 s), none terminated or
    diverged. Returns the ball heights and mount positions per step (280, n) and the last
    rewards."""
    import gymnasium as gym

    env = gym.make_vec("ncpgym/PneuNetGrasp-v0", num_envs=n, num_threads=min(n, 2), max_episode_steps=300, **kw)
    obs, _ = env.reset(seed=3)
    close = 2 * 0.25 / 0.35 - 1  # chamber command for activation 0.25
    heights, mount = [], []
    for k in range(280):
        ball_z = obs[:, 20] + 0.12 + obs[:, 34]  # ball relative to the mount + mount height
        lift = np.where((k >= 30) & (ball_z < 0.2), 1.0, 0.0)
        a = np.column_stack([np.full((n, 3), close), lift]).astype(np.float32)
        obs, reward, term, trunc, info = env.step(a)
        heights.append(info["ball_height"].copy())
        mount.append(obs[:, 34].copy())
        assert not term.any() and not info["diverged"].any()
    env.close()
    return np.array(heights), np.array(mount), reward


@pytest.mark.parametrize("material", ["linear", "neohookean"])
def test_scripted_close_and_lift_picks_the_ball_up_and_holds_it_for_two_seconds(material):
    """Both finger materials (the Neo-Hookean gripper with line_search; with the damped step it
    diverges on every step of this script, docs/architecture.md)."""
    heights, mount, reward = _close_and_lift(2, material=material)
    assert np.all(heights[-1] > 0.18)  # lifted 14 cm off the ground
    hold = heights[-100:]  # the last 2 s: still in the grip
    assert np.all(np.ptp(hold, axis=0) < 0.01), np.ptp(hold, axis=0)
    rel = hold - mount[-100:]  # the ball against the mount: no slip, little jitter
    assert np.all(np.ptp(rel, axis=0) < 2e-4), np.ptp(rel, axis=0)  # still: 0.9 mm before the task's solver options
    assert np.all(np.abs(rel[-10:].mean(axis=0) - rel[:10].mean(axis=0)) < 1e-4)
    assert np.all(reward == 2.0)  # lifted and held at the target


def _scripted_hold(monkeypatch, options):
    """The scripted close and lift in one world with the task's solver options replaced: the
    held ball's motion against the mount over the last 2 s (ptp, m)."""
    from ncpgym.tasks import PneuNetGraspTask

    monkeypatch.setattr(PneuNetGraspTask, "solver_options", options)
    heights, mount, _ = _close_and_lift(1)
    assert heights[-1, 0] > 0.18  # lifted 14 cm and held there
    return np.ptp(heights[-100:, 0] - mount[-100:, 0])


def test_default_solver_options_hold_the_ball_in_the_soft_grip(monkeypatch):
    """Issue 20: the default options hold the ball, with the seed's 4 Newton iterations
    (Table 2) to within 1 mm of the mount (measured 0.066 mm; over reset seeds 1-8
    0.047-0.066 mm) and with the default 8 to within 1 cm: there the later iterates cycle
    between contact states (docs/architecture.md "Held contacts do not converge either way")
    and the jitter depends on the draw and on the build's rounding (session 33, seeds 1-8:
    0.62-4.2 mm, median 1.0; the session-32 build 0.73-7.6 mm, median 1.0; seed 3 0.74 mm
    then, 2.5 mm now). The mixed r-factor gives the rows that move a finger particle the
    time-step r, and the geometric-stiffness shift is the secant at fixed lambda. With
    eq. 66's r on those rows too (rscale="effective_mass") the ball jitters by 10.7 mm
    (seeds 1-8: 9.3-12.1 mm; docs/architecture.md, "One set of solver defaults")."""
    assert ncpgym.SolverOptions().rscale == "mixed"
    assert _scripted_hold(monkeypatch, {"newton_iterations": 4}) < 1e-3
    assert _scripted_hold(monkeypatch, {}) < 1e-2  # lifted and held (asserted in _scripted_hold)
    assert _scripted_hold(monkeypatch, {"newton_iterations": 4, "rscale": "effective_mass"}) > 3e-3


def test_pressure_gripper_closes_on_the_ball_lifts_it_and_holds_it():
    """actuation="pressure" (issue 22): 0.75 MPa in every chamber, then the mount up to its
    range. The ball is held at 0.19 m (the hold band, below z* = 0.2: the grip sits lower
    than the strain gripper's) for the last 2 s without slipping. Catches the pressure
    scale or the supply-line layout going wrong (no grip), the tilt or nu left at the strain
    gripper's (the ball stops below the band, measured 0.171 m at 70 degrees)."""
    import gymnasium as gym

    env = gym.make_vec("ncpgym/PneuNetGrasp-v0", num_envs=2, num_threads=2, max_episode_steps=300,
                       actuation="pressure")
    obs, _ = env.reset(seed=3)
    close = 2 * 0.75 - 1  # chamber command for 0.75 MPa of P_MAX = 1 MPa
    heights, mount = [], []
    for k in range(280):  # 5.6 s: close for 0.6 s, then lift until the mount's range ends
        lift = 1.0 if k >= 30 else 0.0
        a = np.column_stack([np.full((2, 3), close), np.full(2, lift)]).astype(np.float32)
        obs, reward, term, trunc, info = env.step(a)
        heights.append(info["ball_height"].copy())
        mount.append(obs[:, 34].copy())
        assert not term.any() and not info["diverged"].any()
    heights, mount = np.array(heights), np.array(mount)
    np.testing.assert_allclose(obs[:, 36], 0.15)  # the servo target at the end of its range
    assert np.all(heights[-1] > 0.185), heights[-1]  # measured 0.1909
    hold = heights[-100:]
    rel = hold - mount[-100:]  # the ball against the mount: no slip, little jitter
    assert np.all(np.ptp(rel, axis=0) < 1e-4), np.ptp(rel, axis=0)  # measured 4e-6
    assert np.all(info["is_success"])
    assert np.all(info["reward_terms"]["hold"] == 1.0)
    env.close()


def test_grasp_env_follows_gymnasium_and_is_deterministic():
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    check_env(gym.make("ncpgym/PneuNetGrasp-v0").unwrapped, skip_render_check=True)

    def rollout(threads, n):
        env = gym.make_vec("ncpgym/PneuNetGrasp-v0", num_envs=n, num_threads=threads)
        env.reset(seed=11)
        rng = np.random.default_rng(0)
        out = []
        for _ in range(20):
            a = np.tile(rng.uniform(-1, 1, 4), (n, 1)).astype(np.float32)  # world 0's actions
            a[1:] = -a[1:]  # the other worlds do something else
            obs, *_ = env.step(a)
            out.append(obs[0].copy())
        env.close()
        return np.array(out)

    a, b = rollout(1, 1), rollout(2, 3)
    assert np.array_equal(a, b)


def test_hollow_finger_has_its_chambers_cut_out_and_still_curls():
    from ncpgym.soft import tet_centroids

    v, t, g, stiff = finger_mesh((30, 3, 4), hollow=True)
    v_full, t_full, _, _ = finger_mesh((30, 3, 4))
    assert 0.5 * len(t_full) < len(t) < len(t_full)  # cavities removed (1,452 of 2,160)
    assert set(np.unique(g[g >= 0])) == set(range(CHAMBERS))  # every chamber keeps walls
    c = tet_centroids(v, t)
    base, step = 0.1 * LENGTH, 0.9 * LENGTH / CHAMBERS
    mid = base + (np.arange(CHAMBERS) + 0.5) * step  # chamber centres: empty now
    for x in mid:
        near = (np.abs(c[:, 0] - x) < 0.002) & (np.abs(c[:, 1]) < 0.004) & (np.abs(c[:, 2] - 0.0125) < 0.002)
        assert not near.any()
    b = ncpgym.Builder()
    b.set_timestep(1 / 30)
    b.set_gravity([0, 0, 0])
    add_finger(b, n=(30, 3, 4), hollow=True)
    m = b.build()
    assert m.nsoft == 1
    full = ncpgym.Builder()
    add_finger(full, n=(30, 3, 4))
    assert len(m.surface_triangles) > len(full.build().surface_triangles)  # the cavities' walls
    sim = ncpgym.Simulator(m)
    x0 = np.asarray(m.particle_pos0)
    tip = np.flatnonzero(np.abs(x0[:, 0] - LENGTH) < 1e-9)
    for k in range(30):
        sim.activation[:] = 0.1 * min(1.0, k / 10)
        sim.step()
    d = sim.x[tip].mean(axis=0) - x0[tip].mean(axis=0)
    assert d[2] < -0.01 and np.abs(sim.v).max() < 1e-4  # curled down (measured 19 mm), at rest


def test_seed_mesh_gripper_holds_the_ball_at_the_seed_time_step():
    """The seed's PneuNet scene size (14 x 3 x 3 hexahedra per finger, 2,268 tets) at its time
    step (Table 2: h = 0.0083 s; here 1/120) with the task's solver options: closed on the
    ball over 0.5 s, the mount lifted 5 cm from 0.6 s, then held for 0.5 s. The ball rises
    with the mount and stays in the grip (issue 20's speed figure is measured on this
    scene: benchmarks/soft.py)."""
    from ncpgym.envs.pneunet import build_gripper
    from ncpgym.tasks import PneuNetGraspTask

    h = 1 / 120
    model, _ = build_gripper(n=(14, 3, 3), tilt=np.radians(70.0), root_radius=0.03, mount_height=0.12, timestep=h)
    assert model.ntet == 2268
    sim = ncpgym.Simulator(model, **PneuNetGraspTask.solver_options)
    rel = []
    for k in range(240):
        t = k * h
        sim.activation[:] = 0.35 * min(1.0, t / 0.5)
        sim.ctrl[:] = 0.0 if t < 0.6 - 1e-9 else min(0.05, (t - 0.6) * 0.1)
        sim.step()
        if k >= 180:  # the mount at its 5 cm: hold
            rel.append(sim.q[3] - sim.q[0])  # ball centre height against the mount slide
    rel = np.array(rel)
    assert sim.q[3] > 0.085  # lifted from 0.04 with the mount (5 cm; measured 0.0896)
    # held against the mount: it creeps up by 0.10 mm over the 0.5 s as the fingers settle
    assert np.ptp(rel) < 5e-4, np.ptp(rel)
