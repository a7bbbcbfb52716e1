"""Option depenetration_speed: a contact that starts a step already deeper than h v (v the
option, 1 m/s by default) is pushed apart at v, over several steps, instead of within one step
at depth / h (URDFs whose links overlap at qpos0 blew up: benchmarks/model_coverage.py)."""

import numpy as np
import pytest

import ncpgym


def _sunk_box():
    """A 1 kg box placed 5 cm into the floor, no gravity (only the contact moves it)."""
    return ncpgym.load_model("""<mujoco><option timestep="0.002" gravity="0 0 0"/><worldbody>
      <geom type="plane" size="1 1 .1"/><body pos="0 0 0.05"><freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="1"/></body></worldbody></mujoco>""")


def test_a_deep_contact_separates_at_the_bounded_speed():
    """Default: after one step the box has risen h v = 2 mm and moves up at 1 m/s; after 25
    steps it is out (5 cm). With the bound off (0) the first step lifts it the whole 5 cm,
    at 25 m/s (to the damped Newton step's 5e-6 m)."""
    sim = ncpgym.Simulator(_sunk_box())
    sim.step()
    assert sim.q[2] == pytest.approx(0.05 + 0.002, abs=1e-6)
    assert sim.u[2] == pytest.approx(1.0, rel=1e-3)
    sim.step(nsteps=24)
    assert sim.q[2] == pytest.approx(0.1, abs=2e-3)
    fast = ncpgym.Simulator(_sunk_box(), depenetration_speed=0.0)
    fast.step()
    assert fast.q[2] == pytest.approx(0.1, abs=1e-5)
    assert fast.u[2] == pytest.approx(25.0, rel=1e-3)


def test_shallow_contacts_are_untouched():
    """A box resting 1 mm deep (under h v = 2 mm) is lifted out in one step exactly as with
    the bound off: same bits."""
    xml = """<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="1 1 .1"/>
      <body pos="0 0 0.099"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body></worldbody></mujoco>"""
    m = ncpgym.load_model(xml)
    a, b = ncpgym.Simulator(m), ncpgym.Simulator(m, depenetration_speed=0.0)
    a.step(nsteps=10)
    b.step(nsteps=10)
    assert np.array_equal(a.q, b.q) and np.array_equal(a.u, b.u)


LIMIT_MJCF = """<mujoco><compiler angle="radian"/><option timestep="0.002" gravity="0 0 0"/><worldbody><body>
  <joint name="h" axis="0 0 1" range="{lo} {hi}"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/>
  </body></worldbody></mujoco>"""


@pytest.mark.parametrize("lo, hi, start, target", [(0.5, 1.0, 0.0, 0.5), (-1.0, -0.5, 0.0, -0.5)])
def test_a_violated_joint_limit_is_recovered_at_the_bounded_speed(lo, hi, start, target):
    """A hinge starting 0.5 rad outside its range (as go2's calves do at a URDF's qpos0) is
    brought back at limit_recovery_speed (10 rad/s): h v = 0.02 rad per step, exactly, until
    it is back on the bound (then it coasts on at v: nothing slows it); with the bound off
    (0) in one step at 250 rad/s. Both bounds.
    Catches: the slack's sign, the lower/upper slack swapped, the reach not scaled by h."""
    m = ncpgym.load_model(LIMIT_MJCF.format(lo=lo, hi=hi))
    h, v = 0.002, 10.0
    sim = ncpgym.Simulator(m, newton_iterations=20)
    sim.q[0] = start
    path = []
    for _ in range(25):  # 25 h v = 0.5 rad: back on the bound
        sim.step()
        path.append(sim.q[0])
    np.testing.assert_allclose(path, np.sign(target) * h * v * np.arange(1, 26), atol=1e-9)
    assert sim.u[0] == pytest.approx(np.sign(target) * v, rel=1e-6)
    snap = ncpgym.Simulator(m, newton_iterations=20, limit_recovery_speed=0.0)
    snap.q[0] = start
    snap.step()
    assert snap.q[0] == pytest.approx(target, abs=1e-9)
