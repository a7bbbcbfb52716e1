"""ABB YuMi (IRB 14000) in front of a cabinet with a drawer: the world of the seed's YuMi
cabinet scene (Macklin et al. 2019 §10.3, Fig. 15 left).

The robot is the URDF and coarse STL meshes shipped in the PyPI sdist ``rtb-data==1.0.1``
(``rtbdata/xacro/yumi_description``, BSD-2-Clause, Örebro University), compiled by MuJoCo's
compiler from the installed package (``pip install "ncpgym[robots]"``); nothing of it is
copied here. Its ``<mimic>`` fingers become joint couplings (equality rows).

What this module adds (written for ncpgym):
- Collision geometry: the URDF's link meshes themselves (600-5,200 vertices), each as its
  convex hull (MuJoCo's, as MuJoCo collides them), friction 1; the torso, concave, as the
  convex parts CoACD splits it into (``collision_model``). The robot collides with the
  world around it (floor, cabinet, drawer, handle) but not with itself (contype 2,
  conaffinity 0 on the robot; 1 and 3 on the rest): the task moves one arm in front of the
  body, and adjacent links' hulls overlap at the joints.
- Gravity compensation on every robot body (MJCF gravcomp = 1), as YuMi's own controller
  compensates the arms' weight: the servos hold a pose without sagging.
- Implicit PD position servos on every joint (solved implicitly by the Newton step, so
  any gain is stable): arm joints kp = 1000 N m/rad, kv = 100 N m s/rad (time constant
  kv/kp = 0.1 s, overdamped for the arm's 0.1-0.5 kg m^2); the driven finger of each
  gripper kp = 1000 N/m, kv = 10 N s/m (the other follows through the coupling; 10 N of
  squeeze per cm of closing left). tests/python/test_yumi.py checks tracking without
  overshoot at h = 1/120 and holding still. The URDF's effort limits (300 N m on the arm
  joints, 20 N on the fingers; MuJoCo's URDF import makes them each joint's
  actuatorfrcrange, clamping the servos' force) are dropped: ncpgym does not clamp actuator
  forces (the loader refuses it), so a servo far from its target pushes harder than the
  real arm could.
- A cabinet (a mocap body, so its pose can differ per world) of 0.40 x 0.50 x 0.40 m
  (depth, width, height) on the floor in front of the right arm, with a drawer on a slide
  joint (0 to 0.4 m out, damping 3 N s/m, 1.5 kg) and a bar handle (capsule, radius 1 cm,
  12 cm long) 6 cm in front of the drawer front, 0.30 m above the floor.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import mujoco
import numpy as np

ARM_KP, ARM_KV = 1000.0, 100.0
GRIP_KP, GRIP_KV = 1000.0, 10.0
DRAWER_DAMPING = 3.0
DRAWER_TRAVEL = 0.4
HANDLE_RADIUS, HANDLE_HALF = 0.01, 0.06
CABINET_POS = (0.60, -0.15, 0.0)   # the cabinet's front-centre on the floor, facing -x
CABINET_SIZE = (0.40, 0.50, 0.40)   # depth, width, height
HANDLE_HEIGHT = 0.30                # the bar's centre above the floor

GRIP_POINT = (0.0, 0.0, 0.1167)     # between the fingers (mid-length), in the link-7 frame (z: approach, x: closing)
ARM = {side: [f"yumi_joint_{k}_{side}" for k in (1, 2, 7, 3, 4, 5, 6)] for side in ("r", "l")}
GRIPPER = {side: f"gripper_{side}_joint" for side in ("r", "l")}
FINGERS = {side: [f"gripper_{side}_finger_r", f"gripper_{side}_finger_l"] for side in ("r", "l")}
# the torso's mesh: concave (the waist is cut back 0.45 m under the chest), so its hull
# would fill the space the drawer opens into; split into convex parts (from_mujoco's
# decompose_geoms; CoACD at threshold 0.2: 5 parts, ~25 s on the first load, then cached)
TORSO_GEOM = "yumi_torso"
TORSO_COACD_THRESHOLD = 0.2
# the fingers' collision geoms: their URDF meshes (as hulls)
FINGER_GEOMS = {side: [f"{f}_mesh" for f in fingers] for side, fingers in FINGERS.items()}


def yumi_urdf() -> Path:
    """The YuMi URDF of the installed ``rtb-data`` package."""
    spec = importlib.util.find_spec("rtbdata")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            "the YuMi model comes from the PyPI package rtb-data 1.0.1: pip install \"ncpgym[robots]\" "
            "(or pip install rtb-data==1.0.1)")
    path = Path(spec.submodule_search_locations[0]) / "xacro" / "yumi_description" / "urdf" / "yumi.urdf"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: ncpgym needs rtb-data==1.0.1, whose sdist ships the YuMi")
    return path


# contact bits: the robot (2) meets the world around it (1, accepting 1 and 2), not itself
ROBOT_BITS, WORLD_BITS = (2, 0), (1, 3)
FRICTION = [1.0, 0.005, 0.0001]


def _box(parent, name, size, pos, rgba, collide=True):
    ct, ca = WORLD_BITS if collide else (0, 0)
    return parent.add_geom(name=name, type=mujoco.mjtGeom.mjGEOM_BOX, size=size, pos=pos, rgba=rgba,
                           contype=ct, conaffinity=ca, friction=FRICTION)


def _edit(spec: mujoco.MjSpec, timestep: float) -> None:
    spec.option.timestep = timestep
    spec.compiler.discardvisual = False  # keep the cabinet's drawn-only geoms (and the drawer's mass)
    # the robot: its link meshes collide (as hulls) with the world, not with each other;
    # gravity compensated; servos on every joint
    for g in spec.geoms:
        if g.type == mujoco.mjtGeom.mjGEOM_MESH:
            g.contype, g.conaffinity = ROBOT_BITS
            g.friction = FRICTION
            g.group = 0  # drawn (MuJoCo's URDF import puts collision geoms in a hidden group)
            g.rgba = [0.82, 0.82, 0.85, 1]
            body = g.parent.name
            if body == "yumi_body":
                g.name = TORSO_GEOM
            if body.startswith("gripper_") and body.endswith(("finger_r", "finger_l")):
                g.name = f"{body}_mesh"  # the task reads the fingers' contacts by name
                g.rgba = [0.2, 0.2, 0.2, 1]
    for body in spec.bodies[1:]:
        if body.name.startswith(("yumi_", "gripper_")):
            body.gravcomp = 1.0
    for j in spec.joints:  # the URDF's effort limits: no force clamp in ncpgym (docstring)
        j.actfrclimited = mujoco.mjtLimited.mjLIMITED_FALSE
    spec.worldbody.add_light(pos=[0.5, -0.5, 2.5], dir=[0, 0.2, -1], diffuse=[0.8, 0.8, 0.8])
    for side in ("r", "l"):
        # the grip point: between the fingers, half-way along them (link 7 frame)
        spec.body(f"yumi_link_7_{side}").add_site(name=f"grip_{side}", pos=list(GRIP_POINT))
        for j in ARM[side]:
            a = spec.add_actuator(name=f"act_{j}", target=j, trntype=mujoco.mjtTrn.mjTRN_JOINT)
            a.set_to_position(kp=ARM_KP, kv=ARM_KV)
        a = spec.add_actuator(name=f"act_{GRIPPER[side]}", target=GRIPPER[side], trntype=mujoco.mjtTrn.mjTRN_JOINT)
        a.set_to_position(kp=GRIP_KP, kv=GRIP_KV)
    # the floor and the cabinet: a mocap body (posed per world), the drawer on a slide
    spec.worldbody.add_geom(name="floor", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[3, 3, 0.1],
                            rgba=[0.45, 0.45, 0.48, 1], contype=WORLD_BITS[0], conaffinity=WORLD_BITS[1])
    depth, width, height = CABINET_SIZE
    cab = spec.worldbody.add_body(name="cabinet", pos=list(CABINET_POS), mocap=True)
    wood, t = [0.55, 0.38, 0.22, 1], 0.01
    _box(cab, "cabinet_top", [depth / 2, width / 2, t], [depth / 2, 0, height - t], wood)
    _box(cab, "cabinet_bottom", [depth / 2, width / 2, t], [depth / 2, 0, t], wood)
    _box(cab, "cabinet_back", [t, width / 2, height / 2], [depth - t, 0, height / 2], wood)
    for s, y in (("left", width / 2 - t), ("right", -width / 2 + t)):
        _box(cab, f"cabinet_{s}", [depth / 2, t, height / 2], [depth / 2, y, height / 2], wood)
    drawer = cab.add_body(name="drawer", pos=[0, 0, 0])
    drawer.add_joint(name="drawer_slide", type=mujoco.mjtJoint.mjJNT_SLIDE, axis=[-1, 0, 0],
                     range=[0, DRAWER_TRAVEL], damping=DRAWER_DAMPING)
    inner = [0.7, 0.55, 0.35, 1]
    dd, dw, dh = depth - 3 * t, width / 2 - 2 * t, (height - 4 * t) / 2
    _box(drawer, "drawer_front", [t, dw, dh], [t, 0, height / 2], inner)
    _box(drawer, "drawer_floor", [dd / 2, dw, t / 2], [dd / 2, 0, 2.5 * t], inner, collide=False)
    drawer.add_geom(name="drawer_mass", type=mujoco.mjtGeom.mjGEOM_BOX, size=[dd / 2, dw, 0.002],
                    pos=[dd / 2, 0, 3 * t], mass=1.5, contype=0, conaffinity=0, rgba=[0, 0, 0, 0])
    for y in (-HANDLE_HALF + 0.01, HANDLE_HALF - 0.01):  # posts (drawn only)
        drawer.add_geom(type=mujoco.mjtGeom.mjGEOM_CYLINDER, size=[0.005, 0.03, 0],
                        pos=[-0.03, y, HANDLE_HEIGHT], quat=[0.7071068, 0, 0.7071068, 0],
                        contype=0, conaffinity=0, rgba=[0.8, 0.8, 0.8, 1])
    drawer.add_geom(name="handle", type=mujoco.mjtGeom.mjGEOM_CAPSULE, size=[HANDLE_RADIUS, HANDLE_HALF, 0],
                    pos=[-0.06, 0, HANDLE_HEIGHT], quat=[0.7071068, 0.7071068, 0, 0], rgba=[0.85, 0.85, 0.85, 1],
                    friction=FRICTION, contype=WORLD_BITS[0], conaffinity=WORLD_BITS[1])
    # the drawer slides inside the cabinet: its box walls do not touch (the slide joint does)
    spec.add_exclude(bodyname1="cabinet", bodyname2="drawer")


def drawer_world(timestep: float = 1 / 120, xml_out: str | os.PathLike | None = None) -> mujoco.MjModel:
    """The compiled MuJoCo model of YuMi and the cabinet (ncpgym.models.from_mujoco turns it
    into an ncpgym Model); ``xml_out`` also writes it as MJCF (for the renderer)."""
    from ...models import compile_urdf

    held = {}

    def edit(spec):
        _edit(spec, timestep)
        held["spec"] = spec

    mj = compile_urdf(yumi_urdf(), edit=edit)
    if xml_out is not None:
        Path(xml_out).write_text(held["spec"].to_xml())
    return mj


def collision_model(mj: mujoco.MjModel):
    """The ncpgym Model of a compiled drawer world: link meshes as hulls, the torso in
    convex parts (see TORSO_GEOM)."""
    from ...models import from_mujoco

    return from_mujoco(mj, convex_decomposition="hull", decompose_geoms=[TORSO_GEOM],
                       coacd_threshold=TORSO_COACD_THRESHOLD)


def home_pose(mj: mujoco.MjModel) -> np.ndarray:
    """qpos with both arms bent forward (grippers in front of the chest, pointing ahead)
    and the grippers open: the start of the drawer task."""
    q = mj.qpos0.copy()
    for side, sign in (("r", 1.0), ("l", -1.0)):
        for name, val in zip(ARM[side], (sign * 0.3, -1.3, -sign * 0.6, 0.4, sign * 0.1, 0.6, 0.0)):
            q[mj.jnt_qposadr[mj.joint(name).id]] = val
        for name in (GRIPPER[side], GRIPPER[side] + "_m"):
            q[mj.jnt_qposadr[mj.joint(name).id]] = 0.02
    return q
