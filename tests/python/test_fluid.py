"""MuJoCo's fluid forces on rigid bodies (issue 61 item 6). The inertia-box model: Gymnasium's
Swimmer loads strictly and its contact-free accelerations are MuJoCo's to 1e-9 relative (the
fluid forces inside qfrc_passive to 1e-12); a box coasting through a viscous or a dense
medium slows as the documented drag laws say, step by step. The ellipsoid model (a geom's
fluidshape): each of its seven terms alone, on every geom type, equals MuJoCo's qfrc_fluid;
a ball falls at the terminal speed its blunt drag gives, and a spinning ball is pushed sideways
by the Magnus and added-mass forces as the documentation's example says."""

import os

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym import dynamics as dyn
from ncpgym.errors import UnsupportedFeatureError


def _swimmer():
    import gymnasium

    return os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets", "swimmer.xml")


def test_swimmer_loads_and_its_accelerations_are_mujocos():
    path = _swimmer()
    mj = mujoco.MjModel.from_xml_path(path)
    assert mj.opt.density == 4000 and mj.opt.viscosity == 0.1
    m = ncpgym.load_model(path)  # strict
    d = mujoco.MjData(mj)
    rng = np.random.default_rng(0)
    for _ in range(20):
        q = mj.qpos0 + rng.normal(0, 0.3, mj.nq)
        u = rng.normal(0, 1.0, mj.nv)
        ctrl = rng.uniform(mj.actuator_ctrlrange[:, 0], mj.actuator_ctrlrange[:, 1])
        d.qpos[:], d.qvel[:], d.ctrl[:] = q, u, ctrl
        mujoco.mj_forward(mj, d)
        assert np.abs(d.qfrc_fluid).max() > 1.0  # the fluid acts
        scale = np.abs(d.qfrc_passive).max()
        np.testing.assert_allclose(dyn.passive(m, q, u), d.qfrc_passive, rtol=0, atol=1e-12 * scale)
        qacc = dyn.forward(m, q, u, d.qfrc_actuator)
        np.testing.assert_allclose(qacc, d.qacc, rtol=0, atol=1e-9 * np.abs(d.qacc).max())


def _coasting_box(density, viscosity, wind="0 0 0"):
    """A free 2 kg box of half sizes (0.2, 0.1, 0.05) without gravity: its equivalent inertia
    box is itself (r_i^2 = 3 (I_j + I_k - I_i) / 2M with I_x = M (b^2 + c^2) / 3 ...)."""
    return ncpgym.load_model(f"""<mujoco><option timestep="0.01" gravity="0 0 0" density="{density}"
      viscosity="{viscosity}" wind="{wind}"/><worldbody><body><freejoint/>
      <geom type="box" size="0.2 0.1 0.05" mass="2"/></body></worldbody></mujoco>""")


def test_stokes_drag_slows_a_coasting_box_geometrically():
    """Viscosity beta only: f = -6 beta pi r_eq v, r_eq = (0.2 + 0.1 + 0.05) / 3, taken at
    each step's start, so v_n = v_0 (1 - h 6 beta pi r_eq / M)^n exactly; the angular
    velocity decays with 8 beta pi r_eq^3 / I_z likewise."""
    beta, h, M, r_eq = 0.5, 0.01, 2.0, 0.35 / 3
    sim = ncpgym.Simulator(_coasting_box(0.0, beta))
    sim.u[0], sim.u[5] = 1.0, 2.0  # x velocity (world), spin about the box's z
    sim.step(nsteps=100)
    assert sim.u[0] == pytest.approx((1 - h * 6 * beta * np.pi * r_eq / M) ** 100, rel=1e-12)
    Iz = M * (0.2**2 + 0.1**2) / 3
    assert sim.u[5] == pytest.approx(2.0 * (1 - h * 8 * beta * np.pi * r_eq**3 / Iz) ** 100, rel=1e-9)


def test_quadratic_drag_and_wind_act_per_face():
    """Density rho only, moving along the box's y axis (frontal face 2 r_x x 2 r_z): the drag
    -2 rho r_x r_z |v| v, taken at each step's start (the map iterated here); against a wind
    of 0.5 m/s along y the relative velocity is what decays (a box at rest is pushed along)."""
    rho, h, M = 1.2, 0.01, 2.0
    k = 2 * rho * 0.2 * 0.05 / M
    for wind, v0 in ((0.0, 3.0), (0.5, 0.0)):
        sim = ncpgym.Simulator(_coasting_box(rho, 0.0, wind=f"0 {wind} 0"))
        sim.u[1] = v0
        sim.step(nsteps=200)
        v = v0
        for _ in range(200):
            v -= h * k * abs(v - wind) * (v - wind)
        assert sim.u[1] == pytest.approx(v, rel=1e-12)
        assert abs(sim.u[0]) < 1e-15 and abs(sim.u[2]) < 1e-15


_ELLIPSOIDS = """<mujoco><option density="{rho}" viscosity="{beta}" wind="0.3 -0.2 0.1" gravity="0 0 0"/>
  <asset><mesh name="tet" vertex="0 0 0  0.2 0 0  0 0.1 0  0 0 0.05  0.1 0.1 0.1"/></asset>
  <worldbody><body pos="0 0 1"><freejoint/>
    <geom type="box" size="0.2 0.1 0.01" pos="0.1 0 0" euler="10 20 30" fluidshape="ellipsoid" fluidcoef="{c}"/>
    <geom type="capsule" size="0.03 0.1" pos="0 0.1 0" fluidshape="ellipsoid" fluidcoef="{c}"/>
    <geom type="cylinder" size="0.05 0.02" pos="0 0 0.1" euler="0 90 0" fluidshape="ellipsoid" fluidcoef="{c}"/>
    <geom type="box" size="0.05 0.05 0.05" pos="0 0 -0.1"/>
    <body pos="0.3 0 0"><joint type="hinge" axis="0 1 0"/>
      <geom type="ellipsoid" size="0.1 0.05 0.02" fluidshape="ellipsoid" fluidcoef="{c}"/>
      <geom type="sphere" size="0.04" pos="0 0 0.05" fluidshape="ellipsoid" fluidcoef="{c}"/></body>
    <body pos="0 -0.3 0"><joint type="ball"/><geom type="mesh" mesh="tet" fluidshape="ellipsoid" fluidcoef="{c}"/></body>
    <body pos="0 0.3 0"><joint type="slide" axis="1 1 0"/><geom type="capsule" size="0.02 0.1"/></body>
  </body></worldbody></mujoco>"""


@pytest.mark.parametrize("term", ["added mass", "blunt", "slender", "angular", "kutta", "magnus", "viscous", "all"])
def test_ellipsoid_model_terms_are_mujocos(term):
    """One term at a time (the added-mass forces come with every density > 0): blunt, slender and
    angular drag, Kutta and Magnus lift through fluidcoef, Stokes resistance through viscosity;
    every geom type MuJoCo fits an ellipsoid to, a wind, and a body without fluidshape (the
    last, which keeps the inertia-box model) in random states."""
    coef = {"blunt": "0.5 0 0 0 0", "slender": "0 0.25 0 0 0", "angular": "0 0 1.5 0 0", "kutta": "0 0 0 1 0",
            "magnus": "0 0 0 0 1", "all": "0.5 0.25 1.5 1 1"}.get(term, "0 0 0 0 0")
    rho, beta = (0.0, 0.01) if term == "viscous" else (1.2, 0.01 if term == "all" else 0.0)
    xml = _ELLIPSOIDS.format(rho=rho, beta=beta, c=coef)
    mj = mujoco.MjModel.from_xml_string(xml)
    m = ncpgym.load_model(xml)  # strict
    d = mujoco.MjData(mj)
    rng = np.random.default_rng(1)
    for _ in range(10):
        q = mj.qpos0.copy()
        q[3:7] = rng.normal(size=4)
        q[3:7] /= np.linalg.norm(q[3:7])
        q[8:12] = rng.normal(size=4)
        q[8:12] /= np.linalg.norm(q[8:12])
        q[7], q[12] = rng.normal(), rng.normal(0, 0.1)
        d.qpos[:], d.qvel[:] = q, rng.normal(0, 2.0, mj.nv)
        mujoco.mj_forward(mj, d)
        assert np.abs(d.qfrc_fluid).max() > 1e-4  # the term acts
        np.testing.assert_allclose(dyn.passive(m, d.qpos, d.qvel), d.qfrc_passive, rtol=0,
                                   atol=1e-12 * np.abs(d.qfrc_passive).max())
        np.testing.assert_allclose(dyn.forward(m, d.qpos, d.qvel, np.zeros(mj.nv)), d.qacc, rtol=0,
                                   atol=1e-9 * np.abs(d.qacc).max())


def _ball(coef, rho=1.2, gravity="0 0 -9.81", radius=0.05, mass=0.01):
    return ncpgym.load_model(f"""<mujoco><option timestep="0.002" density="{rho}" gravity="{gravity}"/>
      <worldbody><body><freejoint/><geom type="sphere" size="{radius}" mass="{mass}" fluidshape="ellipsoid"
      fluidcoef="{coef}"/></body></worldbody></mujoco>""")


def test_a_ball_falls_at_its_blunt_drag_terminal_speed():
    """For a sphere the slender, Kutta and added-mass forces vanish without spin (A_max = A_v =
    pi r^2, n = v), so only -rho C_blunt pi r^2 |v| v opposes gravity: m g = rho C pi r^2 v_t^2,
    a fixed point the explicit step reaches exactly (without the medium the ball would fall at
    g t: 59 m/s after 6 s)."""
    rho, c, r, mass, g = 1.2, 0.5, 0.05, 0.01, 9.81
    sim = ncpgym.Simulator(_ball(f"{c} 0.25 1.5 1 1", rho, radius=r, mass=mass))
    sim.step(nsteps=3000)  # 6 s, 13 time constants v_t / g
    v_t = np.sqrt(mass * g / (rho * c * np.pi * r**2))  # 4.56 m/s
    assert sim.u[2] == pytest.approx(-v_t, rel=1e-6)
    assert np.abs(sim.u[[0, 1, 3, 4, 5]]).max() < 1e-12


@pytest.mark.parametrize("c_magnus", [1.0, 0.0])
def test_a_spinning_ball_is_pushed_sideways(c_magnus):
    """Without drag coefficients, a ball moving at v along x spinning at w about z feels the Magnus
    lift C_M rho V w x v and the added-mass force (rho m_A v) x w, m_A = V / 2 for a sphere
    (kappa = 2/3): together (C_M - 1/2) rho V w x v, along +y for C_M = 1 and -y without Magnus
    (the documentation's example: the two terms oppose). One step from rest in y gives
    u_y = h f_y / m."""
    rho, r, mass, h, v, w = 1.2, 0.05, 0.01, 0.002, 3.0, 20.0
    sim = ncpgym.Simulator(_ball(f"0 0 0 0 {c_magnus}", rho, gravity="0 0 0", radius=r, mass=mass))
    sim.u[0], sim.u[5] = v, w
    sim.step()
    V = 4 / 3 * np.pi * r**3
    # rel 1e-5: MuJoCo's compiler integrates kappa numerically (the added mass it writes is V / 2 to 1e-6)
    assert sim.u[1] == pytest.approx(h * (c_magnus - 0.5) * rho * V * w * v / mass, rel=1e-5)
