"""MuJoCo's fluid forces on rigid bodies, the inertia-box model (issue 61 item 6): Gymnasium's
Swimmer loads strictly and its contact-free accelerations are MuJoCo's to 1e-9 relative (the
fluid forces inside qfrc_passive to 1e-12); a box coasting through a viscous or a dense
medium slows as the documented drag laws say, step by step."""

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


def test_ellipsoid_fluid_model_is_refused():
    xml = """<mujoco><option density="1.2"/><worldbody><body><freejoint/>
      <geom name="wing" type="box" size="0.2 0.1 0.01" fluidshape="ellipsoid"/></body></worldbody></mujoco>"""
    with pytest.raises(UnsupportedFeatureError) as e:
        ncpgym.load_model(xml)
    assert str(e.value).splitlines()[1:] == ["  geom 'wing': fluidshape ellipsoid (MuJoCo's ellipsoid fluid model)"]
