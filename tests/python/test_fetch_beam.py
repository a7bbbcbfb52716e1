"""Issue 18: the seed's Fetch Beam without the robot (scenes.fetch_beam: 16 links of 3 g
joined by 250 N m/rad bending springs), against statics solved here independently."""

from types import SimpleNamespace

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym import scenes

H = 0.0083  # the seed's time step (Table 2)
SEED = {"newton_iterations": 6, "linear_iterations": 50}  # the seed's budget for this scene
ROWS = {**SEED, "implicit_springs": False}  # the springs as compliant rows of the NCP solve


def exact_tip_load_angles(n, m, k, link, M, g=9.81):
    """Large-deflection statics of the cantilever, by fixed-point iteration: joint i turns
    by its moment over k, the moment of every weight outboard at its true horizontal arm
    (links' weights at their centres, M at the tip)."""
    theta = np.zeros(n)
    for _ in range(200):
        phi = np.cumsum(theta)
        joints = np.concatenate([[0.0], np.cumsum(link * np.cos(phi))])
        com, tip = joints[:n] + 0.5 * link * np.cos(phi), joints[n]
        moment = np.array([m * g * np.sum(com[i:] - joints[i]) + M * g * (tip - joints[i]) for i in range(n)])
        theta = moment / k  # a hinge about +y turns +x towards -z: the weights turn it positively
    return theta


@pytest.mark.parametrize("opts", [SEED, ROWS], ids=["implicit_springs", "springs_as_rows"])
def test_cantilever_under_a_tip_load_deflects_as_exact_statics_predict(opts):
    """0.2 kg at the tip of the 20 cm beam: after 3 s every joint angle equals the exact
    statics within 1e-6 relative, with the seed's 6 Newton / 50 linear iterations, springs
    folded into H or solved as rows."""
    p = scenes.BEAM
    model = scenes.fetch_beam(timestep=H, tip_mass=0.2)
    sim = ncpgym.Simulator(model, **opts)
    sim.mocap_pos[0, 2] = -1.0  # the support out of the way
    for _ in range(int(3.0 / H)):
        sim.step()
    ref = exact_tip_load_angles(p["n"], p["mass"], p["stiffness"], p["link"], 0.2)
    theta = sim.q[: p["n"]]
    assert ref[0] > 1.5e-3  # a real deflection: 1.7 mrad at the root
    np.testing.assert_allclose(theta, ref, rtol=1e-6, atol=1e-6 * np.abs(ref).max())


def raise_support(opts, lift=0.005, seconds=1.5):
    model = scenes.fetch_beam(timestep=H)
    sim = ncpgym.Simulator(model, **opts)
    z0 = float(sim.mocap_pos[0, 2])
    touch = -scenes.BEAM["thickness"] / 2 - 0.005  # the capsule's top at the straight beam's underside
    ramp = int(0.5 / H)
    for k in range(int(seconds / H)):
        sim.mocap_pos[0, 2] = z0 + min(1.0, k / ramp) * (touch + lift - z0)
        sim.step()
    return sim


def test_support_bends_the_beam_as_its_stiffness_predicts_with_pcr_at_the_seeds_budget():
    """The support pushed 5 mm up into the last link: through the contact the joints turn
    as small-deflection statics of the springs predicts (support force 6 N, root 4.6
    mrad) within 1 % with PCR, the springs as rows, at the seed's 6 Newton / 50 linear
    iterations (the residue is the contact point moving along the tilted link); the
    implicit form agrees with the rows within 1 %."""
    ref, F = scenes.fetch_beam_angles(0.005)
    rows = raise_support(ROWS).q[:16].copy()
    assert 4.0 < F < 8.0 and ref[0] < -3e-3
    assert np.abs(rows - ref).max() <= 0.01 * np.abs(ref).max()
    implicit = raise_support(SEED).q[:16]
    assert np.abs(implicit - rows).max() <= 0.01 * np.abs(rows).max()


def test_fetch_beam_angles_are_the_statics_of_the_chain():
    """The reference itself, from its definition: the support force times each joint's arm,
    less the weights' moment, over k, lifts the support point by exactly `lift`; without
    gravity the angles fall linearly to zero at the support."""
    link, n = scenes.BEAM["link"], 16
    theta, F = scenes.fetch_beam_angles(0.004, g=0.0)
    xs = link * (n - 0.5)
    arm = xs - link * np.arange(n)
    assert -np.sum(theta * arm) == pytest.approx(0.004, rel=1e-12)
    np.testing.assert_allclose(theta, -F * arm / 250.0, rtol=1e-12)
    assert F == pytest.approx(250.0 * 0.004 / np.sum(arm**2), rel=1e-12)


def test_mocap_bodies_are_exported_to_mjcf():
    """to_mjcf keeps the support a mocap body, so MuJoCo can move it as ncpgym does."""
    model = scenes.fetch_beam(timestep=H)
    mj = mujoco.MjModel.from_xml_string(ncpgym.models.to_mjcf(model))
    assert mj.nmocap == 1 and mj.body_mocapid[np.flatnonzero(np.asarray(model.body_mocapid) >= 0)[0]] == 0
    d = mujoco.MjData(mj)
    d.mocap_pos[0] = [scenes.BEAM["link"] * 15.5, 0.0, -0.008 + 0.002]  # 2 mm into the last link
    mujoco.mj_forward(mj, d)
    assert d.ncon > 0


# -- FetchBeamInsert-v0: the beam on the robot ----------------------------------------------

def beam_env(n=2, threads=1, seed=0):
    from ncpgym.tasks import fetch_beam_insert as fb

    env = fb.FetchBeamInsertVectorEnv(num_envs=n, num_threads=threads)
    env.reset(seed=seed)
    return env, env.task, env.batch


def test_bend_is_the_angle_between_the_handle_and_the_last_link():
    """Planar bending by hand: turning every link by 0.01 rad about the same axis bends the
    beam by 0.16 rad, the root hinge at the handle included (it carries the largest
    moment); turning them alternately by +-0.01 leaves the ends parallel."""
    env, task, b = beam_env(1)
    q = b.q.copy()
    ys = task.beam_q[0::2]
    q[0, ys] = 0.01
    b.reset(np.ones(1, np.uint8), q, np.zeros_like(b.u))
    assert task.bend(b)[0] == pytest.approx(0.16, rel=1e-9)
    q[0, ys] = 0.01 * (-1.0) ** np.arange(16)
    b.reset(np.ones(1, np.uint8), q, np.zeros_like(b.u))
    assert task.bend(b)[0] < 1e-7
    env.close()


def test_scripted_insertion_and_the_terms_follow_the_docstring():
    """Scripted: tip over the hole's centre, then 3.3 cm into it, straight (bend < 0.05 rad)
    in every world, is_success once d >= 3 cm; at the start the terms equal what MuJoCo's
    kinematics of the same joints and the docstring's weights give."""
    from ncpgym.tasks import fetch_beam_insert as fb

    env, task, b = beam_env(4, threads=2, seed=3)
    mj = task.mj
    d = mujoco.MjData(mj)
    _, reward, _, _, info = env.step(np.zeros((4, 3), np.float32))
    d.qpos[:] = b.q[0]
    d.mocap_pos[:] = b.mocap_pos[0]
    mujoco.mj_kinematics(mj, d)
    tip, top = d.site_xpos[mj.site("beam_tip").id], d.mocap_pos[0] + [0, 0, 0.04]
    terms = {k: v[0] for k, v in info["reward_terms"].items()}
    assert terms["reach"] == pytest.approx(-np.linalg.norm(tip - top), rel=1e-9)
    assert terms["insert"] == 0.0 and terms["success"] == 0.0 and terms["action"] == 0.0
    assert terms["bend"] < 1e-3
    weights = {"reach": 5, "insert": 5, "success": 5, "bend": -5, "action": -0.01}  # the docstring's
    assert reward[0] == pytest.approx(sum(w * terms[k] for k, w in weights.items()), rel=1e-12)
    for k in range(1, 90):
        _, reward, term, _, info = env.step(fb.scripted_actions(task, b, k).astype(np.float32))
        assert not term.any()
    assert np.all(info["is_success"]), (info["depth"], info["bend"])
    np.testing.assert_allclose(info["depth"], 0.033, atol=2e-3)
    assert np.all(info["bend"] < 0.05) and np.all(info["reward_terms"]["insert"] == 1.0)
    assert np.all(info["reward_terms"]["success"] == 1.0)
    env.close()


def test_depth_earns_nothing_while_the_beam_is_bent():
    """The docstring's insert term by hand: depth d counts (d / 3 cm, at most 1) only while
    the bend b < 0.05 rad; success needs d >= 3 cm and b < 0.05. Contexts built by hand."""
    from ncpgym.tasks import fetch_beam_insert as fb
    from ncpgym.wrappers import RewardComposition, StepContext

    depth = np.array([0.015, 0.015, 0.035, 0.035, 0.029])
    bend = np.array([0.01, 0.06, 0.049, 0.051, 0.0])
    success = (depth >= 0.03) & (bend < 0.05)
    ctx = StepContext(SimpleNamespace(num_worlds=5), np.zeros((5, 3)), 1 / 30, {"reach": np.zeros(5), "depth": depth, "bend": bend,
                                                        "success": success})
    _, terms = RewardComposition(fb.default_terms())(ctx)
    np.testing.assert_allclose(terms["insert"], [0.5, 0.0, 1.0, 0.0, 0.029 / 0.03], rtol=1e-12)
    np.testing.assert_array_equal(terms["success"], [0.0, 0.0, 1.0, 0.0, 0.0])


def test_the_beam_is_welded_to_the_gripper():
    """Through reaching and inserting, the handle keeps the gripper's pose (it is part of
    the gripper's body tree, no joint between them) while the arm moved the gripper."""
    from ncpgym.tasks import fetch_beam_insert as fb

    env, task, b = beam_env(1)
    g, h = task.mj.body("robot0:gripper_link").id, task.handle
    start = b.xpos[0, g].copy()
    for k in range(60):
        env.step(fb.scripted_actions(task, b, k).astype(np.float32))
    assert np.linalg.norm(b.xpos[0, g] - start) > 0.05
    np.testing.assert_allclose(b.xpos[0, h], b.xpos[0, g], atol=1e-12)
    np.testing.assert_allclose(b.xquat[0, h], b.xquat[0, g], atol=1e-12)
    env.close()


def test_fetch_beam_insert_is_a_gymnasium_env_and_deterministic():
    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    from ncpgym.tasks import fetch_beam_insert as fb

    env = gym.make("ncpgym/FetchBeamInsert-v0")
    check_env(env.unwrapped, skip_render_check=True)
    env.close()
    runs = []
    for threads, n in ((1, 2), (2, 3)):
        e = fb.FetchBeamInsertVectorEnv(num_envs=n, num_threads=threads)
        e.reset(seed=[5, 6] + [7] * (n - 2))
        rng = np.random.default_rng(1)
        for _ in range(12):
            obs, *_ = e.step(rng.uniform(-1, 1, (3, 3))[:n].astype(np.float32))
        runs.append(obs[:2].copy())
        e.close()
    np.testing.assert_array_equal(runs[0], runs[1])


def test_fetch_beam_insert_refuses_unknown_arguments():
    import gymnasium as gym

    with pytest.raises(TypeError, match="unexpected"):
        gym.make_vec("ncpgym/FetchBeamInsert-v0", num_envs=1, mesh=3)
    with pytest.raises(ValueError, match="unknown reward terms"):
        gym.make_vec("ncpgym/FetchBeamInsert-v0", num_envs=1, reward_weights={"lift": 1.0})


def test_success_needs_the_depth_and_a_straight_beam():
    """A state built by hand and judged by the task: the fixture moved so that the tip is
    3.5 cm below the hole's top, inside its outline. Straight (bend 0): success, insert 1.
    Every link turned by 0.004 rad (bend 0.064 > 0.05): no success, insert 0, though d is the
    same 3.5 cm."""
    env, task, b = beam_env(1)
    ys = task.beam_q[0::2]
    for turn, ok in ((0.0, True), (0.004, False)):
        q = b.q.copy()
        q[0, ys] = turn
        b.reset(np.ones(1, np.uint8), q, np.zeros_like(b.u))
        tip = task.tip_pos(b)[0].copy()
        b.mocap_pos[0, 0] = [tip[0], tip[1], tip[2] + 0.035 - 0.04]  # the hole's top (fixture + 4 cm) 3.5 cm above
        b.forward()
        _, _, info = task.evaluate(b, None, np.zeros((1, 3)), 4 * 0.0083)
        assert info["depth"][0] == pytest.approx(0.035, abs=1e-9)
        assert info["bend"][0] == pytest.approx(16 * turn, abs=1e-9)
        assert info["is_success"][0] == ok
        assert info["reward_terms"]["success"][0] == float(ok) and info["reward_terms"]["insert"][0] == float(ok)
    env.close()
