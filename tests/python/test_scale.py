"""The mechanical scale of issue 18 (``ncpgym.envs.scale``): a weight at rest on the
platform turns the needle by the angle the spring constant and the gear predict (Hooke's
law, analytic), through the coupling row alone; over full scale the travel limit holds."""

import mujoco
import numpy as np
import pytest

import ncpgym
from ncpgym.envs import scale as sc
from ncpgym.models import from_mujoco


def settle(mass, seconds=4.0, h=1 / 120):
    def edit(spec):
        top = 2 * sc.HOUSING[2] + sc.PLATE_LIFT + sc.PLATE[2]
        b = spec.worldbody.add_body(name="weight", pos=[0.01, -0.005, top + 0.022])
        b.add_freejoint()
        b.add_geom(type=mujoco.mjtGeom.mjGEOM_BOX, size=[0.02, 0.02, 0.02], mass=mass)

    mj = sc.scale_world(h, edit=edit)
    sim = ncpgym.Simulator(from_mujoco(mj))  # strict: springs, limits and the gear all load
    for _ in range(int(round(seconds / h))):
        sim.step()
    q = lambda n: float(sim.q[mj.jnt_qposadr[mj.joint(n).id]])  # noqa: E731
    return q("scale_needle"), q("scale_slide")


@pytest.mark.parametrize("mass", [0.1, 0.2, 0.5])
def test_needle_reads_the_weight_hooke_and_the_gear_predict(mass):
    needle, slide = settle(mass)
    compression = mass * 9.81 / 200.0  # m g / k, by hand from the docstring's SPRING
    assert slide == pytest.approx(-compression, rel=1e-3)
    assert needle == pytest.approx(30.0 * compression, rel=1e-3)  # GEAR = -30 rad/m
    assert sc.reading(needle) == pytest.approx(mass, rel=1e-2)


def test_empty_scale_reads_zero_and_a_heavy_weight_stops_at_full_scale():
    needle, slide = settle(1e-9, seconds=1.0)
    assert abs(slide) < 1e-6 and abs(needle) < 3e-5  # the tare
    needle, slide = settle(1.0)  # 1 kg > 0.04 m x 200 N/m / g = 0.815 kg
    assert slide == pytest.approx(-0.04, abs=2e-4)
    assert sc.reading(needle) == pytest.approx(0.04 * 200.0 / 9.81, rel=1e-2)
