"""Ellipsoid geoms (issue 61 item 6): their true support function in the convex path. Signed
distances to spheres, capsules, boxes, cylinders and other ellipsoids equal MuJoCo's
mj_geomDistance at random poses; an ellipsoid rests on a plane at its semi-axis along the
normal; the Shadow hand's egg models load strictly."""

import os

import mujoco
import numpy as np
import pytest

import ncpgym

OTHERS = {"sphere": "0.05", "capsule": "0.04 0.06", "box": "0.05 0.03 0.04", "cylinder": "0.04 0.05",
          "ellipsoid": "0.03 0.07 0.05"}


def _quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def test_ellipsoid_distances_are_mujocos():
    """40 random poses per partner shape, separated and overlapping (|dist| up to ~5 cm):
    the signed distance equals MuJoCo's (GJK/EPA at ccd_tolerance 1e-12) to 1e-7 m, and the
    witness points are |dist| apart."""
    rng = np.random.default_rng(0)
    bodies = []
    for k, (kind, size) in enumerate(OTHERS.items()):
        for i in range(40):
            p = rng.normal(0, 0.06, 3)
            q1, q2 = _quat(rng), _quat(rng)
            bodies.append(f'<body pos="{k} {i} 0" quat="{" ".join(map(str, q1))}"><freejoint/>'
                          f'<geom name="e{k}_{i}" type="ellipsoid" size="0.08 0.05 0.03"/></body>'
                          f'<body pos="{k + p[0]} {i + p[1]} {p[2]}" quat="{" ".join(map(str, q2))}"><freejoint/>'
                          f'<geom name="o{k}_{i}" type="{kind}" size="{size}"/></body>')
    xml = f'<mujoco><option gravity="0 0 0"/><worldbody>{"".join(bodies)}</worldbody></mujoco>'
    mj = mujoco.MjModel.from_xml_string(xml)
    mj.opt.ccd_tolerance, mj.opt.ccd_iterations = 1e-12, 1000
    d = mujoco.MjData(mj)
    mujoco.mj_kinematics(mj, d)
    m = ncpgym.load_model(mj)
    sim = ncpgym.Simulator(m)
    sim.q[:] = d.qpos
    overlapping = 0
    for k in range(len(OTHERS)):
        for i in range(40):
            g1, g2 = mj.geom(f"e{k}_{i}").id, mj.geom(f"o{k}_{i}").id
            fromto = np.zeros(6)
            ref = mujoco.mj_geomDistance(mj, d, g1, g2, 1.0, fromto)
            dist, ft = sim.geom_distance(g1, g2, 1.0)
            assert dist == pytest.approx(ref, abs=1e-7), (k, i)
            assert np.linalg.norm(np.asarray(ft[3:]) - ft[:3]) == pytest.approx(abs(dist), abs=1e-7)
            overlapping += ref < 0
    assert 20 < overlapping < 180  # both regimes were visited


def test_ellipsoid_rests_on_its_semi_axis_along_the_normal():
    """Dropped from 2 cm with its 3 cm semi-axis vertical it comes to rest with its centre
    3 cm above the plane and upright; turned by 90 degrees about x, 5 cm up."""
    for euler, height in (("0 0 0", 0.03), ("90 0 0", 0.05)):
        xml = f"""<mujoco><option timestep="0.002"/><worldbody><geom type="plane" size="1 1 0.1"/>
          <body pos="0 0 {height + 0.02}" euler="{euler}"><freejoint/>
            <geom type="ellipsoid" size="0.08 0.05 0.03" mass="1"/></body></worldbody></mujoco>"""
        sim = ncpgym.Simulator(ncpgym.load_model(xml))
        sim.step(nsteps=500)
        assert sim.q[2] == pytest.approx(height, abs=1e-5), euler
        assert np.linalg.norm(sim.u) < 1e-4


def test_shadow_hand_egg_models_load_strictly():
    import gymnasium_robotics

    hand = os.path.join(os.path.dirname(gymnasium_robotics.__file__), "envs", "assets", "hand")
    for name in ("manipulate_egg.xml", "manipulate_egg_touch_sensors.xml"):
        m = ncpgym.load_model(os.path.join(hand, name))  # strict
        assert int(mujoco.mjtGeom.mjGEOM_ELLIPSOID) in [int(t) for t in m.geom_type]
