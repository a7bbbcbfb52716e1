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


@pytest.mark.parametrize("material", ["linear", "neohookean"])
def test_soft_tomato_reads_its_mass(material):
    """The seed's tomato (§10.1.1: Young 0.1 MPa, Poisson 0.45, 1000 kg/m^3; an ellipsoid of
    384 tetrahedra, 7 cm wide and 5.6 cm tall) dropped onto the platform: once at rest the
    needle reads the particles' total mass within 1 % (the soft/rigid contact carries the
    whole weight into the scale: Newton's third law through the contacts) and the tomato is
    at rest. (With App. B's three principal-stretch rows the Neo-Hookean tomato never
    settled, jittering at 1-10 cm/s, and the scale read 1.5x its mass: soft/tet.hpp.)"""
    from ncpgym.models import built, mujoco_builder
    from ncpgym.soft import add_mesh, ball_mesh

    h = 1 / 120
    mj = sc.scale_world(h)
    b = mujoco_builder(mj)
    top = 2 * sc.HOUSING[2] + sc.PLATE_LIFT + sc.PLATE[2]
    v, t = ball_mesh(0.035, 4)
    v = v * [1.0, 1.0, 0.8] + [0.0, 0.0, top + 0.028 + 0.003]
    add_mesh(b, v, t, density=1000.0, young=1e5, poisson=0.45, model=material, friction=0.75)
    model = built(b, "test")
    sim = ncpgym.Simulator(model)  # the default solver options
    for _ in range(int(round(3.0 / h))):
        sim.step()
    mass = float(np.sum(model.particle_mass))
    needle = float(sim.q[mj.jnt_qposadr[mj.joint("scale_needle").id]])
    assert 0.1 < mass < 0.2
    assert sc.reading(needle) == pytest.approx(mass, rel=1e-2)
    assert np.abs(sim.v).max() < 0.01  # at rest


def test_fetch_tomato_scene_is_this_tomato_on_this_scale():
    """scenes.fetch_tomato (the benchmark scene) holds the tomato built above from the
    seed's numbers: same particles, masses (0.1-0.2 kg in all) and elements."""
    from ncpgym import scenes
    from ncpgym.soft import ball_mesh

    m = scenes.fetch_tomato()
    v, t = ball_mesh(0.035, 4)
    top = 2 * sc.HOUSING[2] + sc.PLATE_LIFT + sc.PLATE[2]
    v = v * [1.0, 1.0, 0.8] + [0.0, 0.0, top + 0.028 + 0.003]
    np.testing.assert_allclose(np.asarray(m.particle_pos0), v, atol=1e-12)
    np.testing.assert_array_equal(np.asarray(m.tet_particles), t)
    assert m.ntet == 384 and 0.1 < float(np.sum(m.particle_mass)) < 0.2
    vol = np.linalg.det(v[t[:, 1:]] - v[t[:, :1]]).sum() / 6.0
    assert float(np.sum(m.particle_mass)) == pytest.approx(1000.0 * vol, rel=1e-12)
