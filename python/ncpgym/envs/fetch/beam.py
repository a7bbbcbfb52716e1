"""Fetch holding a flexible beam over a fixture with a square hole: the world of the seed's
Fetch Beam scene (Macklin et al. 2019 §10.1.2, Fig. 7: "a beam of 16 rigid bodies of
0.003 kg joined with bending stiffness 250 N m", inserted by the robot).

The beam, written for ncpgym: a handle fixed to the gripper between its fingers (the beam
is welded to the hand: part of its kinematic tree, not held by friction), then 16 links of
3 g, each BEAM_LINK long and BEAM_SECTION square, hanging along the gripper's approach
axis; each joined to the previous by two hinges (about the gripper's y and z axes, the
bending axes of a square section) with BEAM_STIFFNESS N m/rad springs. Tasks solve the
springs as rows of the NCP solve (``implicit_springs=False``): the seed's point is that
relaxation cannot make such joints stiff, PCR can (``benchmarks/contact_scenes.py``,
fetch_beam rows). The fixture: a block on the table with a square hole HOLE wide and
HOLE_DEPTH deep, a mocap body so each world can place it.
"""

from __future__ import annotations

import mujoco
import numpy as np

from . import PADS, TABLE_TOP, fetch_spec

BEAM_LINKS = 16
BEAM_MASS = 0.003            # kg per link (the seed's)
BEAM_STIFFNESS = 250.0       # N m/rad per bending hinge (the seed's)
BEAM_LINK = 0.0125           # m: a 20 cm beam
BEAM_SECTION = 0.006         # m, square
HANDLE = 0.04                # m of handle between the finger pads, from the gripper link's origin
HOLE = 0.014                 # m: the hole's side (4 mm of clearance each way)
HOLE_DEPTH = 0.04
FIXTURE_HALF = 0.04          # m: the block's half width
FIXTURE_POS = (1.25, 0.75)   # its centre on the table (x, y)
BEAM_FRICTION = 0.3


def tip_offset() -> float:
    """The beam's tip below the gripper link's origin along its approach axis (m)."""
    return HANDLE + BEAM_LINKS * BEAM_LINK


def _box(parent, name, half, pos, rgba, **kw):
    return parent.add_geom(name=name, type=mujoco.mjtGeom.mjGEOM_BOX, size=list(half), pos=list(pos), rgba=rgba,
                           friction=[BEAM_FRICTION, 0.005, 0.0001], **kw)


def add_beam(spec: mujoco.MjSpec) -> None:
    """The handle and the 16 links on the gripper (gripper x is the approach axis)."""
    grip = spec.body("robot0:gripper_link")
    steel = [0.55, 0.6, 0.68, 1.0]
    handle = grip.add_body(name="beam_handle", pos=[0.0, 0.0, 0.0])
    _box(handle, "beam_handle", [HANDLE / 2, BEAM_SECTION / 2, BEAM_SECTION / 2], [HANDLE / 2, 0, 0], steel,
         mass=0.01)
    for f in PADS:  # the fingers rest on the handle; the weld holds it
        spec.add_exclude(bodyname1=f, bodyname2="beam_handle")
    parent, pos = handle, HANDLE
    half = [BEAM_LINK / 2, BEAM_SECTION / 2, BEAM_SECTION / 2]
    for i in range(BEAM_LINKS):
        link = parent.add_body(name=f"beam{i}", pos=[pos, 0.0, 0.0])
        for axis, name in (([0, 1, 0], f"beam{i}_bend_y"), ([0, 0, 1], f"beam{i}_bend_z")):
            link.add_joint(name=name, type=mujoco.mjtJoint.mjJNT_HINGE, axis=axis, stiffness=BEAM_STIFFNESS)
        _box(link, f"beam{i}", half, [BEAM_LINK / 2, 0, 0], steel, mass=BEAM_MASS)
        parent, pos = link, BEAM_LINK
    parent.add_site(name="beam_tip", pos=[BEAM_LINK, 0, 0])


def add_fixture(spec: mujoco.MjSpec) -> None:
    """A block FIXTURE_HALF x 2 wide and HOLE_DEPTH tall with a square hole through its
    middle (four walls on a floor plate), on the table at FIXTURE_POS (a mocap body)."""
    body = spec.worldbody.add_body(name="fixture", pos=[*FIXTURE_POS, TABLE_TOP], mocap=True)
    grey = [0.35, 0.4, 0.45, 1.0]
    h, w, d = FIXTURE_HALF, HOLE / 2, HOLE_DEPTH
    wall = (h - w) / 2
    for name, half, pos in (
            ("fixture_xp", [wall, h, d / 2], [w + wall, 0, d / 2]), ("fixture_xn", [wall, h, d / 2], [-w - wall, 0, d / 2]),
            ("fixture_yp", [w, wall, d / 2], [0, w + wall, d / 2]), ("fixture_yn", [w, wall, d / 2], [0, -w - wall, d / 2])):
        _box(body, name, half, pos, grey)
    _box(body, "fixture_floor", [h, h, 0.002], [0, 0, 0.002], grey)
    body.add_site(name="hole_top", pos=[0, 0, d])


def beam_spec(timestep: float) -> mujoco.MjSpec:
    spec = fetch_spec(timestep)
    add_beam(spec)
    add_fixture(spec)
    spec.worldbody.add_light(pos=[1.0, 0.2, 2.5], dir=[0.2, 0.3, -1], diffuse=[0.6, 0.6, 0.6])
    return spec


def beam_joints(mj: mujoco.MjModel) -> np.ndarray:
    """qpos addresses of the beam's 32 bending hinges (y, z of link 0, then link 1...)."""
    return np.array([mj.jnt_qposadr[mj.joint(f"beam{i}_bend_{a}").id] for i in range(BEAM_LINKS) for a in "yz"])


# arm joints with the grip site at (1.25, 0.75, 0.74): the beam's tip 8 cm above the hole
BEAM_HOME_ARM = (0.013, -1.139, -0.003, 1.761, 0.001, 0.949, 0.01)
HANDLE_GRIP = 0.002          # m per finger: the fingers resting on the handle


def home_pose(mj: mujoco.MjModel) -> np.ndarray:
    from . import home_pose as fetch_home

    return fetch_home(mj, opening=HANDLE_GRIP, arm=BEAM_HOME_ARM)
