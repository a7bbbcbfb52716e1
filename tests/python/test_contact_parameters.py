"""Contact parameters per pair as MuJoCo resolves them (condim, friction, priority, margin,
explicit <contact><pair>), and torsional and rolling friction (condim 4 and 6) in the
Newton solve's elliptic cone (issue 61, items 1-2): MuJoCo's own contacts are the oracle for
the resolution; closed forms for the spinning sphere, the rolling ball and the pinch grasp."""

import mujoco
import numpy as np
import pytest
from scipy.optimize import brentq

import ncpgym
from ncpgym.errors import UnsupportedFeatureError

G = 9.81
R = 0.1  # sphere radius (m)

# Spheres 1 mm into a plane, one per rule: condim 1 with a larger mu than the plane's
# (Hopper's foot: the contact is condim 3 with the larger mu), a higher priority (its own
# condim 6 and friction), condim 4 with a margin (the larger condim, elementwise max friction),
# and an explicit pair (its own condim, friction and margin; the geom pair, which the filter
# would also admit, collides once).
RESOLUTION_MJCF = f"""<mujoco><worldbody>
  <geom name="floor" type="plane" size="5 5 .1" condim="3" friction="0.7 0.02 0.001"/>
  <body pos="0 0 {R - 0.001}"><freejoint/><geom name="one" size="{R}" condim="1" friction="2 0.001 0.00001"/></body>
  <body pos="1 0 {R - 0.001}"><freejoint/>
    <geom name="prio" size="{R}" condim="6" priority="1" friction="0.3 0.01 0.002"/></body>
  <body pos="2 0 {R - 0.001}"><freejoint/>
    <geom name="four" size="{R}" condim="4" margin="0.003" friction="0.5 0.05 0.0001"/></body>
  <body pos="3 0 {R - 0.001}"><freejoint/><geom name="paired" size="{R}" condim="3"/></body>
</worldbody><contact>
  <pair geom1="floor" geom2="paired" condim="1" friction="0.9 0.9 0.03 0.004 0.004" margin="0.002"/>
</contact></mujoco>"""


def _by_pair(geom1, geom2, rows):
    out = {}
    for a, b, row in zip(geom1, geom2, rows):
        out.setdefault((min(a, b), max(a, b)), []).append(row)
    return out


def test_contact_parameters_resolved_per_pair_as_mujoco_does():
    """Each pair's condim, sliding/torsional/rolling friction and margin equal MuJoCo's
    contact's (dim, friction[0], [2], [3], includemargin) at the same state, one contact per
    sphere in both (the explicit pair once). A contact reports the coefficients its condim
    uses (a condim-1 contact none)."""
    mj = mujoco.MjModel.from_xml_string(RESOLUTION_MJCF)
    d = mujoco.MjData(mj)
    mujoco.mj_forward(mj, d)
    con = d.contact[:d.ncon]
    theirs = _by_pair(con.geom1, con.geom2,
                      [(int(c.dim), c.friction[0], c.friction[2], c.friction[3], c.includemargin) for c in con])
    sim = ncpgym.Simulator(ncpgym.load_model(RESOLUTION_MJCF, strict=True))
    sim.step()
    c = sim.contacts
    ours = _by_pair(c["geom1"], c["geom2"], [(int(k), *f, mg) for k, f, mg in
                                             zip(c["condim"], c["friction_coefficients"], c["margin"])])
    assert set(ours) == set(theirs) and len(theirs) == 4
    expect = {"one": (3, 2.0, 0.0, 0.0, 0.0), "prio": (6, 0.3, 0.01, 0.002, 0.0),
              "four": (4, 0.7, 0.05, 0.0, 0.003), "paired": (1, 0.0, 0.0, 0.0, 0.002)}
    for pair, rows in theirs.items():
        name = mj.geom(pair[1]).name
        assert len(rows) == 1 and len(ours[pair]) == 1, name
        dim, *fr, margin = rows[0]
        # MuJoCo keeps all five coefficients on every contact; those its condim uses act
        fr = [f if dim >= k else 0.0 for f, k in zip(fr, (3, 4, 6))]
        got = ours[pair][0]
        assert got[0] == dim and np.allclose(got[1:4], fr, rtol=0, atol=1e-15) and got[4] == margin, name
        assert got == pytest.approx(expect[name], abs=1e-15), name


def _sphere(condim, spin=0.0, roll=0.0, margin=0.0):
    return ncpgym.load_model(f"""<mujoco><option timestep="0.002"/><worldbody>
      <geom type="plane" size="50 5 .1" friction="0.1 0 0"/>
      <body pos="0 0 {R + margin}"><freejoint/>
        <geom type="sphere" size="{R}" mass="1" condim="{condim}" margin="{margin}" friction="1 {spin} {roll}"/>
      </body></worldbody></mujoco>""")


def test_spinning_sphere_stops_when_the_torsional_coefficient_says():
    """A 1 kg sphere spinning at 10 rad/s about the vertical on a plane touches it at one
    point with no sliding speed: only torsion acts, a torque mu_t m g against the spin, so
    w(t) = w0 - t mu_t m g / I with I = 2/5 m R^2 (24.525 rad/s^2 for mu_t = 0.01 m), and it
    stays stopped from t = 0.408 s. At 16 Newton iterations the rate is exact to 1e-6 (8, the
    default, leave the lagged W 1 % over the cone). Without torsion (condim 3) it spins on."""
    alpha = 0.01 * G / (0.4 * R * R)
    sim = ncpgym.Simulator(_sphere(4, spin=0.01), newton_iterations=16)
    sim.u[5] = 10.0
    sim.step(nsteps=100)
    assert sim.u[5] == pytest.approx(10.0 - alpha * 0.2, rel=1e-5)
    assert sim.contacts["torque"][0] == pytest.approx([0, 0, -0.01 * G], abs=1e-6)
    sim.step(nsteps=150)  # t = 0.5 s > 0.408 s
    assert abs(sim.u[5]) < 1e-6
    free = ncpgym.Simulator(_sphere(3, spin=0.01), newton_iterations=16)
    free.u[5] = 10.0
    free.step(nsteps=250)
    assert free.u[5] == pytest.approx(10.0, abs=1e-6)


def test_rolling_ball_decelerates_as_the_closed_form_says():
    """A ball rolling at 1 m/s with rolling friction mu_r = 2 mm (condim 6) and sliding mu 1.
    The contact slides in the rolling direction only, so in the elliptic cone the rolling
    torque and the sliding force F = m a share the normal force:
    (I / R + m R) a = -mu_r m g sqrt(1 - (F / (mu m g))^2), solved here by root finding
    (-0.14013 m/s^2; -mu_r g / 1.4 R without the sharing). The mean deceleration over 0.2-1 s
    at 16 Newton iterations matches to 1e-3; condim 3 keeps rolling."""
    I = 0.4 * R * R
    a = brentq(lambda a: (I / R + R) * a + 0.002 * G * np.sqrt(1 - (a / G) ** 2), -5, 0)
    sim = ncpgym.Simulator(_sphere(6, roll=0.002), newton_iterations=16)
    sim.u[0], sim.u[4] = 1.0, 1.0 / R
    sim.step(nsteps=100)
    v1 = sim.u[0]
    sim.step(nsteps=400)
    assert (sim.u[0] - v1) / 0.8 == pytest.approx(a, rel=1e-3)
    assert sim.u[4] * R == pytest.approx(sim.u[0], abs=1e-3)  # rolling, not skidding
    plain = ncpgym.Simulator(_sphere(3, roll=0.002), newton_iterations=16)
    plain.u[0], plain.u[4] = 1.0, 1.0 / R
    plain.step(nsteps=500)
    assert plain.u[0] > 0.99


def _pinch(condim, d, N=10.0, mu_t=0.02):
    """A 0.5 kg bar pinched by two 1 cm spheres pressed with N each from either side at
    distance d from its centre of mass: gravity turns it about the pinch axis with m g d."""
    xml = f"""<mujoco><option timestep="0.002"/><worldbody>
      <body name="bar" pos="0 0 0.5"><freejoint/>
        <geom type="box" size="0.15 0.02 0.02" mass="0.5" condim="{condim}" friction="1 {mu_t} 0.0001"/></body>
      <body pos="{d} -0.03 0.5"><joint name="j1" type="slide" axis="0 1 0"/><geom size="0.01" mass="0.1"/></body>
      <body pos="{d} 0.03 0.5"><joint name="j2" type="slide" axis="0 -1 0"/><geom size="0.01" mass="0.1"/></body>
    </worldbody><actuator><motor joint="j1"/><motor joint="j2"/></actuator></mujoco>"""
    sim = ncpgym.Simulator(ncpgym.load_model(xml), newton_iterations=16)
    sim.ctrl[:] = N
    sim.step(nsteps=250)
    return 2 * np.arccos(min(1.0, abs(sim.q[3]))), sim


def test_pinch_grasp_holds_a_bar_by_torsion_against_a_torque_it_cannot_hold_without():
    """Gravity's torque about the pinch axis, m g d = 0.245 N m at d = 5 cm, is below the two
    contacts' torsional capacity 2 mu_t sqrt(N^2 - (m g / 2 mu)^2) = 0.388 N m: the bar holds,
    each contact carrying m g d / 2; without torsion (condim 3) nothing resists that torque
    and the bar swings down; at d = 10 cm (0.49 N m) it slips despite torsion."""
    angle, sim = _pinch(4, 0.05)
    assert angle < 1e-6
    np.testing.assert_allclose(np.abs(sim.contacts["torque"][:, 1]), 0.5 * G * 0.05 / 2, rtol=1e-6)
    assert _pinch(3, 0.05)[0] > 1.0
    assert _pinch(4, 0.1)[0] > 0.3


def test_margin_holds_a_contact_at_its_distance():
    """MuJoCo's geom margin: the contact acts from that distance on (MuJoCo 4.0.1: dist below
    the margin, checked on its includemargin above), so a resting sphere sits 3 mm up."""
    sim = ncpgym.Simulator(_sphere(3, margin=0.003))
    sim.step(nsteps=250)
    assert sim.q[2] == pytest.approx(R + 0.003, abs=1e-6)


def test_gap_anisotropic_pairs_and_conflicting_duplicates_are_refused():
    base = RESOLUTION_MJCF
    cases = ((base.replace('condim="4" margin="0.003"', 'condim="4" margin="0.003" gap="0.001"'),
              "  geom 'four': gap 0.001"),
             (base.replace("0.9 0.9 0.03", "0.9 0.8 0.03"),
              "  contact pair '' (0): anisotropic friction (0.9, 0.8, 0.03, 0.004, 0.004)"),
             (base.replace("</contact>", '<pair geom1="floor" geom2="paired" condim="3"/></contact>'),
              "  contact pair 1: geoms (0, 4) listed twice with different parameters"))
    for xml, line in cases:
        with pytest.raises(UnsupportedFeatureError) as e:
            ncpgym.load_model(xml)
        assert str(e.value).splitlines()[1:] == [line]
    # the same pair twice with the same parameters is one pair (the Shadow hand lists one so)
    twice = base.replace("</contact>", base[base.index("<pair"):base.index("</contact>")] + "</contact>")
    assert ncpgym.load_model(twice).npair == 1


WELDS_MJCF = """<mujoco><option gravity="0 0 0"/><worldbody><geom name="ground" size="0.3"/>
  <body name="static"><geom name="gs" size="0.3"/>
    <body name="d"><joint type="hinge"/><geom name="gd" size="0.3"/></body></body>
  <body name="a"><joint type="hinge"/><geom name="ga" size="0.3"/>
    <body name="welded"><geom name="gw" size="0.3"/>
      <body name="b"><joint type="hinge"/><geom name="gb" size="0.3"/>
        <body name="c"><joint type="hinge"/><geom name="gc" size="0.3"/></body></body></body></body>
  </worldbody></mujoco>"""


def test_filter_treats_welded_bodies_as_one_as_mujoco_does():
    """Every geom overlaps every other: the pairs that get a contact are MuJoCo's. A body
    without joints moves with its parent and is filtered as part of it (MuJoCo's weldid):
    b's parent is 'welded', itself welded to a, so b touches neither; c (b's child) does
    touch 'welded' and a. A jointed body under a static one (d under 'static') touches it:
    the parent filter never applies to what is welded to the world. Catches: the parent
    filter on bodies instead of welded groups (b-a would collide, d-static would not)."""
    mj = mujoco.MjModel.from_xml_string(WELDS_MJCF)
    d = mujoco.MjData(mj)
    mujoco.mj_forward(mj, d)
    mj_pairs = {tuple(sorted((mj.geom(int(c.geom1)).name, mj.geom(int(c.geom2)).name))) for c in d.contact[:d.ncon]}
    sim = ncpgym.Simulator(ncpgym.load_model(WELDS_MJCF))
    sim.step()
    c = sim.contacts
    ours = {tuple(sorted((mj.geom(int(g1)).name, mj.geom(int(g2)).name))) for g1, g2 in zip(c["geom1"], c["geom2"])}
    assert ours == mj_pairs
    assert ("gd", "gs") in ours and ("gb", "gw") not in ours and ("ga", "gb") not in ours and ("gc", "gw") in ours


CLUTCH_MJCF = """<mujoco><option timestep="0.002"/><worldbody>
  <geom type="plane" size="1 1 0.1" condim="1"/>
  <body name="lower" pos="0 0 0.05"><freejoint/><geom type="cylinder" size="0.2 0.05" mass="2" condim="1"/></body>
  <body name="upper" pos="0 0 0.15"><freejoint/>
    <geom type="cylinder" size="0.1 0.05" mass="1" condim="4" friction="0 0.05 0" priority="1"/></body>
  </worldbody></mujoco>"""


def test_torsional_friction_between_two_moving_bodies_is_a_clutch():
    """A disc spinning at 10 rad/s on a heavier one that rests on a frictionless floor,
    coupled by torsional friction only (condim 4, sliding friction 0): the torsion rows act on
    both bodies, equal and opposite, so the pair's angular momentum about the vertical is kept
    (to 1e-6) and both end spinning together at I1 w0 / (I1 + I2) (a clutch). Catches: a sign
    on the second body's row (the momentum would change), torsion acting on one body only."""
    sim = ncpgym.Simulator(ncpgym.load_model(CLUTCH_MJCF), newton_iterations=20)
    sim.u[11] = 10.0  # upper's spin about z (its free joint's dofs 6..11)
    i1, i2 = 1 * 0.1**2 / 2, 2 * 0.2**2 / 2
    L0 = i1 * 10.0
    for _ in range(1000):
        sim.step()
    assert i1 * sim.u[11] + i2 * sim.u[5] == pytest.approx(L0, rel=1e-6)
    assert sim.u[11] == pytest.approx(i1 * 10.0 / (i1 + i2), rel=1e-3)
    assert sim.u[5] == pytest.approx(sim.u[11], rel=1e-3)
