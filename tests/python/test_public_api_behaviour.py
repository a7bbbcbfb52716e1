"""Behaviour of public items that had no test (issue 14, item 5): dynamics.integrate,
kinematic_map and site_jacobian(u=...) against MuJoCo; the non-default linear solvers,
rscale, block_preconditioner, warm_start, thickness and margin from Python; to_mjcf's
solref/solimp; the loader's refusals of frictionloss and height fields."""

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym import dynamics as dyn
from ncpgym import scenes
from ncpgym.errors import UnsupportedFeatureError
from ncpgym.models import from_mujoco, to_mjcf

# a free body, a ball joint, a hinge and a slide: every kind of coordinate
TREE = """<mujoco><worldbody>
  <body name="base" pos="0 0 1"><freejoint/><geom type="box" size="0.1 0.2 0.05"/>
    <body name="arm" pos="0.1 0 0"><joint type="ball"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      <body name="fore" pos="0.3 0 0"><joint type="hinge" axis="0 1 1"/><geom type="sphere" size="0.04"/>
        <body name="tip" pos="0.1 0 0"><joint type="slide" axis="1 0 0"/><geom type="sphere" size="0.02"/>
          <site name="s" pos="0.05 0.02 -0.01"/></body></body></body></body>
</worldbody></mujoco>"""


@pytest.fixture(scope="module")
def tree():
    mj = mujoco.MjModel.from_xml_string(TREE)
    rng = np.random.default_rng(3)
    qs, us = [], []
    for _ in range(10):
        q = mj.qpos0.copy()
        q[:3] += rng.normal(size=3)
        for a in (3, 7):
            quat = rng.normal(size=4)
            q[a:a + 4] = quat / np.linalg.norm(quat)
        q[11:] += rng.uniform(-1, 1, size=2)
        qs.append(q)
        us.append(rng.normal(size=mj.nv))
    return mj, from_mujoco(mj), np.array(qs), np.array(us)


def test_integrate_matches_mj_integrate_pos(tree):
    """q + h G(q) u against mj_integratePos (quaternions by the exponential map): a wrong
    angular frame (world instead of body for the free joint) or a missing renormalisation
    differs at first order in h; the step sizes here make that visible."""
    mj, m, q, u = tree
    for h in (1e-3, 0.05):
        ours = dyn.integrate(m, q, u, h)
        for i in range(len(q)):
            ref = q[i].copy()
            mujoco.mj_integratePos(mj, ref, u[i], h)
            # MuJoCo rotates by exp(h w); q + h G u renormalised agrees to O(h^2 |w|^2)
            np.testing.assert_allclose(ours[i], ref, atol=h * h * (1 + np.abs(u[i]).max() ** 2))
        for a in (3, 7):
            np.testing.assert_allclose(np.linalg.norm(ours[:, a:a + 4], axis=1), 1.0, atol=1e-12)
    # first order in h exactly: (integrate(h) - q) / h -> G u; finite difference of MuJoCo's
    eps = 1e-7
    G = dyn.kinematic_map(m, q)
    for i in range(len(q)):
        ref = q[i].copy()
        mujoco.mj_integratePos(mj, ref, u[i], eps)
        np.testing.assert_allclose(G[i] @ u[i], (ref - q[i]) / eps, atol=1e-5)


def test_kinematic_map_is_the_derivative_of_mujocos_integration(tree):
    """G(q) column by column: d/dh of mj_integratePos(q, e_k, h) at h = 0 (central
    difference), i.e. qdot for a unit velocity of each dof."""
    mj, m, q, _ = tree
    G = dyn.kinematic_map(m, q)
    assert G.shape == (len(q), mj.nq, mj.nv)
    eps = 1e-6
    for i in range(3):
        for k in range(mj.nv):
            e = np.zeros(mj.nv)
            e[k] = 1.0
            p, n = q[i].copy(), q[i].copy()
            mujoco.mj_integratePos(mj, p, e, eps)
            mujoco.mj_integratePos(mj, n, e, -eps)
            np.testing.assert_allclose(G[i][:, k], (p - n) / (2 * eps), atol=1e-8, err_msg=f"dof {k}")


def test_site_jacobian_and_its_derivative_match_mujoco(tree):
    """J against mj_jacSite (rows: linear, angular velocity in world axes) and J-dot u
    against the central difference of J along the trajectory q(t) = integrate(q, u, t)."""
    mj, m, q, u = tree
    d = mujoco.MjData(mj)
    site = mj.site("s").id
    J, Jdu = dyn.site_jacobian(m, q, site, u=u)
    eps = 1e-6
    for i in range(len(q)):
        d.qpos[:] = q[i]
        mujoco.mj_forward(mj, d)
        jp, jr = np.zeros((3, mj.nv)), np.zeros((3, mj.nv))
        mujoco.mj_jacSite(mj, d, jp, jr, site)
        np.testing.assert_allclose(J[i], np.vstack([jp, jr]), atol=1e-10)
        Jp = dyn.site_jacobian(m, dyn.integrate(m, q[i], u[i], eps), site)
        Jm = dyn.site_jacobian(m, dyn.integrate(m, q[i], u[i], -eps), site)
        np.testing.assert_allclose(Jdu[i], (Jp - Jm) @ u[i] / (2 * eps), atol=1e-5 * (1 + np.abs(u[i]).max() ** 2))
    assert np.abs(Jdu).max() > 0.1  # a non-trivial check
    # without u: J only; by name too
    np.testing.assert_array_equal(dyn.site_jacobian(m, q, "s"), J)


def settled_stack(masses=(1.0, 8.0, 64.0), steps=30):
    """The stack after 30 steps from lambda = 0. (Warm-started, the stack settles to exact
    contact, C = 0 to the last bit, the corner of the Fischer-Burmeister function, where a
    step from lambda = 0, as one_step's fresh Simulator takes, converges slowly: the LDL^T
    step carried 0.26 % less than the weight after 8 iterations.)"""
    m, q0 = scenes.heavy_stack(masses=masses)
    sim = ncpgym.Simulator(m, warm_start=False)
    sim.q[:] = q0
    sim.step(nsteps=steps)
    return m, sim.q.copy(), sim.u.copy()


def one_step(m, q, u, **options):
    sim = ncpgym.Simulator(m, **options)
    sim.q[:], sim.u[:] = q, u
    sim.step()
    c = sim.contacts
    # normal force carried by each box (from below): per-corner forces are indeterminate
    level = np.array([c["force"][np.maximum(c["geom1"], c["geom2"]) == g, 0].sum() for g in range(1, m.ngeom)])
    return sim.u.copy(), level, sim.solver_stats


def test_linear_solvers_and_preconditioners_solve_the_stack_step_alike():
    """One step of a settled 1:8:64 stack: every solver and preconditioner that converges
    gives the direct (LDLT) answer (measured 4e-14 m/s, 1.3e-11 N); the block preconditioner
    needs more iterations here (measured 49-174 vs 5-30 with Jacobi scaling) but agrees."""
    m, q, u = settled_stack()
    u0, f0, _ = one_step(m, q, u, linear="ldlt", linear_iterations=200)
    assert f0 == pytest.approx(9.81 * np.cumsum([64.0, 8.0, 1.0])[::-1], rel=1e-3)  # carries the boxes above
    for opts in [dict(linear="pcr"), dict(linear="pcg"), dict(linear="sparse_ldlt"), dict(linear="pcr", dense_max_rows=0),
                 dict(linear="pcr", block_preconditioner=True), dict(linear="pcg", block_preconditioner=True),
                 dict(linear="pcr", block_preconditioner=True, dense_max_rows=0),
                 dict(linear="sparse_ldlt", dense_max_rows=0)]:
        u1, f1, st = one_step(m, q, u, linear_iterations=200, **opts)
        np.testing.assert_allclose(u1, u0, atol=1e-11, err_msg=str(opts))
        np.testing.assert_allclose(f1, f0, rtol=1e-10, err_msg=str(opts))
        # below dense_max_rows the dense LDL^T assembles; PCR/PCG take the form of fewer
        # flops, here matrix-free (36 rows on three 6-dof bodies, Delassus::dense_pays)
        assert st["assembled"] == (opts["linear"] == "sparse_ldlt" and opts.get("dense_max_rows", 64) > 0), opts


def test_kkt_solver_gives_the_dual_direct_solve_on_free_bodies_and_on_a_branched_tree():
    """linear="kkt" solves every Newton direction from the sparse LDL^T of the primal KKT
    system (tree blocks with H's ancestor sparsity); mathematically the same step as the
    dual direct solve of eq. 59. Compared with dense LDL^T of J H^-1 J^T: a pile of 20 free
    bodies (more rows than dense_max_rows, so no dual assembly by default) and the
    humanoid (one branched tree, feet and hands on the ground), one and three Newton
    iterations. Measured agreement 1e-13..1e-12 m/s; a dropped ancestor entry of H or a
    wrong sign on the row block moves u by > 1e-3."""
    from conftest import gym_asset

    pile, qp = scenes.pile(n=20)
    # from lambda = 0: settled warm-started, the pile rests on more redundant contacts, whose
    # impulses split differently between the two solves along the null space of J^T (u still
    # agrees to 1e-9); the comparison needs a state whose impulses are unique
    sim = ncpgym.Simulator(pile, warm_start=False)
    sim.q[:] = qp
    sim.step(nsteps=150)  # fallen and touching: many contacts
    q_pile, u_pile = sim.q.copy(), sim.u.copy()
    hum = ncpgym.load_model(gym_asset("humanoid.xml"))
    sim = ncpgym.Simulator(hum, timestep=1 / 120)
    sim.step(nsteps=150, ctrl=np.zeros(hum.nu))  # collapsed on the ground
    q_hum, u_hum = sim.q.copy(), sim.u.copy()
    for m, q, u in ((pile, q_pile, u_pile), (hum, q_hum, u_hum)):
        for newton in (1, 3):
            out = {}
            for linear in ("ldlt", "kkt"):
                s = ncpgym.Simulator(m, linear=linear, newton_iterations=newton, dense_max_rows=10_000,
                                     refresh_depth=0, timestep=1 / 120)
                s.q[:], s.u[:] = q, u
                s.step()
                out[linear] = (s.u.copy(), s.contacts["force"].copy(), s.solver_stats)
            nrow = 3 * len(out["kkt"][1])
            assert nrow > (64 if m is pile else 12), nrow  # a real contact system
            assert out["ldlt"][2]["assembled"] and not out["kkt"][2]["assembled"]
            assert np.abs(out["kkt"][0] - u).max() > 1e-3  # the contacts changed the velocity
            np.testing.assert_allclose(out["kkt"][0], out["ldlt"][0], atol=1e-9, err_msg=f"{m.nv} dofs, {newton}")
            f_scale = np.abs(out["ldlt"][1]).max()
            np.testing.assert_allclose(out["kkt"][1], out["ldlt"][1], atol=1e-7 * f_scale, err_msg=f"{m.nv} dofs")
    with pytest.raises(ValueError, match="linear"):
        ncpgym.Simulator(pile, linear="kkt2")


def test_proximal_damps_the_newton_matrix_only():
    """proximal adds rho (J_eff H^-1 J_eff^T)_rr to each dual row's diagonal: the Newton
    matrix changes, the NCP function does not. Iterated to convergence (80 Newton
    iterations; the damping slows it: residual 9e-10 after 60 against 1e-14 after 25) the
    damped and undamped steps of the settled stack agree (dual PCR and KKT); at 3 they
    differ (the damping is applied). Bad values are refused."""
    m, q, u = settled_stack()
    for linear in ("pcr", "kkt"):
        # tolerance=0: all 80 iterations run (the default early exit stops each at 1e-9 m/s)
        ref = one_step(m, q, u, linear=linear, newton_iterations=80, tolerance=0)[0]
        np.testing.assert_allclose(one_step(m, q, u, linear=linear, newton_iterations=80, proximal=1e-2,
                                            tolerance=0)[0], ref,
                                   atol=1e-11, err_msg=linear)
        short = [one_step(m, q, u, linear=linear, newton_iterations=3, proximal=p)[0] for p in (0.0, 1e-2)]
        assert np.abs(short[1] - short[0]).max() > 1e-7, linear
    for bad in (-1e-3, float("nan")):
        with pytest.raises(ValueError, match="proximal"):
            ncpgym.Simulator(m, proximal=bad)


def test_proximal_keeps_exact_kkt_directions_converging_in_a_resting_pile():
    """docs/architecture.md "Direct solves and piles": in a pile of 50 bodies (1.25-2.5 s,
    resting and statically indeterminate) the exact KKT direction shifts impulses along the
    near-null space of J H^-1 J^T and the NCP residual after 8 Newton iterations exceeds 1 on
    most steps (measured 64 %); with proximal = 1e-2 on 1 % (PCR, truncated at 50
    iterations: 13 %). A statistic over 150 steps of a chaotic scene, with wide margins."""
    out = {}
    for prox in (0.0, 1e-2):
        m, q0 = scenes.pile(n=50)
        sim = ncpgym.Simulator(m, linear="kkt", proximal=prox)
        sim.q[:] = q0
        res = []
        for k in range(300):
            sim.step()
            r = sim.solver_stats["residual"]
            if k >= 150:
                res.append(r[-1] if len(r) else 0.0)
        out[prox] = np.mean(np.array(res) > 1.0)
    assert out[0.0] > 0.3 and out[1e-2] < 0.1, out


def test_relaxation_solvers_converge_on_a_hanging_chain():
    """Jacobi (damped) and Gauss-Seidel diverge or stall on box contacts (4 coupled corner
    rows; measured) but converge on a chain of distance rows: same positions as LDLT after
    5 steps (measured 2e-8 m Jacobi, 2e-11 m Gauss-Seidel)."""
    m = scenes.hanging_chain(n=10)

    def run(linear):
        sim = ncpgym.Simulator(m, linear=linear, linear_iterations=400)
        sim.step(nsteps=5)
        return sim.x.copy()

    x0 = run("ldlt")
    assert np.abs(x0[-1] - m.particle_pos0[-1]).max() > 1e-4  # it moved
    np.testing.assert_allclose(run("jacobi"), x0, atol=2e-7)
    np.testing.assert_allclose(run("gauss_seidel"), x0, atol=2e-10)


def test_every_rscale_reaches_the_same_solution():
    """r of eq. 66 only preconditions the NCP: with enough Newton iterations (30) all three
    choices reach the same step (measured 1e-12 m/s); at 8 they still differ (2e-5, 3e-4)."""
    m, q, u = settled_stack()
    ref = {r: one_step(m, q, u, rscale=r, newton_iterations=30, tolerance=0)[0]
           for r in ("effective_mass", "time_step", "identity")}
    for r in ("time_step", "identity"):
        np.testing.assert_allclose(ref[r], ref["effective_mass"], atol=1e-10, err_msg=r)
        assert np.abs(one_step(m, q, u, rscale=r)[0] - ref["effective_mass"]).max() > 1e-6, r


def test_warm_start_carries_the_resting_force_into_a_single_newton_iteration():
    """A box resting on the ground with one Newton iteration per step: from lambda = 0 each
    step recovers only part of the weight (measured 3.7 of 9.81 N) and the box sinks
    (1.7e-4 m); warm-started from the previous impulses it carries m g and does not sink."""
    m, q0 = scenes.incline(0.0, 0.5)
    out = {}
    for warm in (False, True):
        sim = ncpgym.Simulator(m, warm_start=warm, newton_iterations=1)
        sim.q[:] = q0
        sim.step(nsteps=120)
        out[warm] = (sim.contacts["force"][:, 0].sum(), sim.q[2] - 0.1)
    assert out[True][0] == pytest.approx(9.81, rel=1e-6) and abs(out[True][1]) < 1e-8
    assert out[False][0] < 0.8 * 9.81 and out[False][1] < -1e-5


def test_thickness_leaves_a_gap_of_that_size():
    """Eq. 9, C = n.(a - b) - d: a box settles d above the ground (measured to 6e-11 m)."""
    m, q0 = scenes.incline(0.0, 0.5)
    for d in (0.0, 0.005):
        sim = ncpgym.Simulator(m, thickness=d)
        sim.q[:] = q0
        sim.step(nsteps=240)
        assert sim.q[2] - 0.1 == pytest.approx(d, abs=1e-8)
        np.testing.assert_allclose(sim.contacts["dist"], d, atol=1e-8)


def test_thickness_larger_than_the_margin_still_rests_at_the_gap():
    """Found by issue 14's tests: with d beyond the margin the resting contacts were never
    detected and the box hovered and bounced (gap 0.036 m for d = 0.02); detection now
    measures the margin from the thickened surface."""
    m, q0 = scenes.incline(0.0, 0.5)
    sim = ncpgym.Simulator(m, thickness=0.02)
    sim.q[:] = q0
    sim.step(nsteps=240)
    assert sim.q[2] - 0.1 == pytest.approx(0.02, abs=1e-6)


def test_margin_creates_speculative_contacts_within_that_distance():
    """A box held 15 mm above the ground without gravity: no contact with the default
    margin (10 mm), four speculative contacts at that distance with margin 20 mm, carrying
    no force and leaving the box where it is."""
    b = ncpgym.Builder()
    b.set_gravity([0, 0, 0])
    b.add_geom(0, "plane")
    body = b.add_body(0, pos=[0, 0, 0.115], inertia=np.eye(3) * 0.01)
    b.add_joint(body, "free")
    b.add_geom(body, "box", size=[0.1, 0.1, 0.1])
    m = b.build()
    for margin, n in ((0.01, 0), (0.02, 4)):
        sim = ncpgym.Simulator(m, margin=margin)
        sim.step()
        c = sim.contacts
        assert len(c["dist"]) == n, margin
        np.testing.assert_allclose(c["dist"], 0.015, atol=1e-12)
        np.testing.assert_allclose(c["force"], 0.0, atol=1e-12)
        assert sim.q[2] == pytest.approx(0.115, abs=1e-12)


def test_to_mjcf_carries_solref_and_solimp_to_every_geom():
    m, _ = scenes.heavy_stack(masses=(1.0, 2.0))
    mj = mujoco.MjModel.from_xml_string(to_mjcf(m, solref="0.004 0.7", solimp="0.8 0.95 0.002 0.4 3"))
    assert mj.ngeom == m.ngeom
    np.testing.assert_allclose(mj.geom_solref, [[0.004, 0.7]] * mj.ngeom)
    np.testing.assert_allclose(mj.geom_solimp, [[0.8, 0.95, 0.002, 0.4, 3]] * mj.ngeom)
    default = mujoco.MjModel.from_xml_string(to_mjcf(m))
    np.testing.assert_allclose(default.geom_solref, [[0.02, 1.0]] * mj.ngeom)  # MuJoCo's default


@pytest.mark.parametrize("xml, element", [
    ('<worldbody><body name="b"><joint name="hinge1"/><geom size="0.1"/></body></worldbody><actuator>'
     '<muscle name="biceps" joint="hinge1" lengthrange="-1 1"/></actuator>',
     r"actuator 'biceps': activation dynamics mjDYN_MUSCLE"),
    ('<asset><hfield name="terrain" nrow="3" ncol="3" size="1 1 0.1 0.1"/></asset><worldbody>'
     '<geom name="ground" type="hfield" hfield="terrain"/><body><freejoint/><geom size="0.1"/></body></worldbody>',
     r"geom 'ground': type mjGEOM_HFIELD"),
])
def test_loader_refuses_muscles_and_height_fields_naming_the_element(xml, element):
    mj = mujoco.MjModel.from_xml_string(f"<mujoco>{xml}</mujoco>")
    with pytest.raises(UnsupportedFeatureError, match=element):
        from_mujoco(mj)
    from_mujoco(mj, strict=False)  # dropped on request


def test_exclude_soft_pair_lets_two_soft_blocks_pass_through_each_other():
    """A soft cube dropped from 5 cm onto another resting on the ground: it lands on it
    (lowest vertex measured 0.097 m) unless the pair is excluded, when it falls through to
    the ground (measured -1e-7 m); the lower cube stands either way."""
    from ncpgym.soft import box_mesh

    def run(exclude):
        b = ncpgym.Builder()
        b.set_timestep(1 / 120)
        b.add_geom(0, "plane")
        v, t = box_mesh(0.1, 2, origin=(-0.05, -0.05, 0.0))
        lower = b.add_soft_body(v, t, 500.0, 1e5, 0.3)
        upper = b.add_soft_body(v + [0, 0, 0.15], t, 500.0, 1e5, 0.3)
        if exclude:
            b.exclude_soft_pair(lower, upper)
        sim = ncpgym.Simulator(b.build())
        sim.step(nsteps=120)
        return sim.x[len(v):, 2].min(), sim.x[:len(v), 2].max()

    on_top, lower_top = run(False)
    assert on_top > 0.09 and lower_top == pytest.approx(0.1, abs=2e-3)
    through, lower_top = run(True)
    assert abs(through) < 2e-3 and lower_top == pytest.approx(0.1, abs=2e-3)
