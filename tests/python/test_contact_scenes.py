"""Validation scenes of the non-smooth Newton solver (nonsmooth-newton-ncp.txt §10),
asserted against analytic mechanics."""

import numpy as np
import pytest

import ncpgym
from ncpgym import scenes

G = 9.81


def run(sim, seconds):
    n = int(round(seconds / sim.timestep))
    sim.step(nsteps=n)


def test_block_sticks_on_incline_when_mu_exceeds_tan_theta():
    theta, mu = np.deg2rad(20), 0.5  # tan(20 deg) = 0.36 < mu
    m, q0 = scenes.incline(theta, mu)
    # Sticking needs a converged friction solve: with the damped step t = 0.75 each
    # Newton iteration removes 3/4 of the error, and 8 leave a creep of ~5e-5 m/s.
    sim = ncpgym.Simulator(m, newton_iterations=12)
    sim.q[:] = q0
    run(sim, 5.0)
    drift = np.linalg.norm(sim.q[:3] - q0[:3])
    assert drift < 1e-4, f"block drifted {drift:.2e} m"


@pytest.mark.parametrize("ncp", ["fischer_burmeister", "minimum_map"])
def test_block_slides_with_coulomb_acceleration(ncp):
    theta, mu = np.deg2rad(30), 0.3  # tan(30 deg) = 0.58 > mu
    m, q0 = scenes.incline(theta, mu)
    sim = ncpgym.Simulator(m, ncp=ncp)
    sim.q[:] = q0
    downhill = np.array([0.0, -np.cos(theta), -np.sin(theta)])
    run(sim, 0.5)
    v1, t1 = sim.u[:3] @ downhill, 0.5
    run(sim, 1.0)
    v2, t2 = sim.u[:3] @ downhill, 1.5
    a = (v2 - v1) / (t2 - t1)
    expect = G * (np.sin(theta) - mu * np.cos(theta))
    assert a == pytest.approx(expect, rel=0.02), f"a = {a:.4f}, expected {expect:.4f}"


def test_box_on_plane_fischer_burmeister_spreads_force_evenly():
    m, q0 = scenes.incline(0.0, 0.5)
    sim = ncpgym.Simulator(m)
    q0[0:3] += [0.0, 0.0, 0.0]
    sim.q[:] = q0
    run(sim, 1.0)
    f = sim.contacts["force"][:, 0]
    assert len(f) == 4
    assert f.std() / f.mean() <= 0.05
    assert f.sum() == pytest.approx(G * 1.0, rel=0.01)  # the four carry the weight


def test_heavy_stack_holds():
    """Mass ratio 4096:1, mu = 0.5, h = 1/120: after 10 s penetration and drift <= 1 mm."""
    m, q0 = scenes.heavy_stack()
    sim = ncpgym.Simulator(m)
    sim.q[:] = q0
    run(sim, 10.0)
    q = sim.q.reshape(-1, 7)
    half = 0.2
    gaps = np.diff(np.concatenate([[-half], q[:, 2]])) - 2 * half  # box-ground, box-box
    assert -gaps.min() <= 1e-3, f"max penetration {-gaps.min():.2e} m"
    drift = np.linalg.norm(q[:, :2], axis=1).max()
    assert drift <= 1e-3, f"lateral drift {drift:.2e} m"
