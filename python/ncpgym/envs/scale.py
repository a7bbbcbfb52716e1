"""A working mechanical kitchen scale, written for ncpgym (issue 18, the seed's Fetch Tomato
scene: "a mechanical scale ... modeled through rigid bodies connected by prismatic and
revolute joints that drive the needle", Macklin et al. 2019 §10.1.1, Fig. 1).

The mechanism: a weighing platform (a plate on a post, PLATFORM_MASS kg) on a vertical
slide held up by a linear spring (SPRING N/m, damping DAMPING N s/m; its rest length
chosen so the empty platform rests at q = 0: the tare), and a needle on a horizontal
hinge in front of the housing, driven by the platform through a rack and pinion: a joint
coupling q_needle = GEAR q_slide (an equality row solved by the NCP solver with every other
constraint). The needle is a bar centred on its axis, so gravity exerts no torque on it and
the needle angle reads the load alone: a mass m at rest on the platform compresses the
spring by m g / SPRING and turns the needle by -GEAR m g / SPRING (``reading`` inverts
that). The platform travels from TRAVEL[0] to TRAVEL[1] m (joint limits).

``add_scale(spec, pos)`` adds one to a ``mujoco.MjSpec`` (a Fetch world, a test);
``scale_world`` compiles a scale alone on a floor.
"""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np

SPRING = 200.0              # N/m
DAMPING = 8.0               # N s/m (about 0.3 of critical damping with a 0.5 kg load)
GEAR = -30.0                # needle rad per metre of platform travel (down turns it clockwise)
PLATFORM_MASS = 0.2         # kg: plate and post
TRAVEL = (-0.04, 0.01)      # m: the slide's range (0.8 kg full scale)
GRAVITY = 9.81
HOUSING = np.array([0.08, 0.08, 0.03])   # half sizes (m)
PLATE = np.array([0.07, 0.07, 0.005])
PLATE_LIFT = 0.05           # the plate's centre above the housing top at the tare
PLATE_TOP = 2 * HOUSING[2] + PLATE_LIFT + PLATE[2]   # the empty plate's top above the housing's base


def add_scale(spec: mujoco.MjSpec, pos, *, prefix: str = "scale", mocap: bool = False) -> None:
    """Housing (static), platform (slide ``{prefix}_slide``, plate geom ``{prefix}_plate``)
    and needle (hinge ``{prefix}_needle``) of a scale whose housing stands on ``pos``.
    ``mocap=True`` hangs it all on a mocap body ``{prefix}`` at ``pos``, so each world can
    place its scale (``Batch.mocap_pos``)."""
    pos = np.asarray(pos, float)
    wb = spec.worldbody
    if mocap:
        wb = wb.add_body(name=prefix, pos=pos, mocap=True)
        pos = np.zeros(3)
    wb.add_geom(name=f"{prefix}_housing", type=mujoco.mjtGeom.mjGEOM_BOX, size=HOUSING,
                pos=pos + [0, 0, HOUSING[2]], rgba=[0.85, 0.85, 0.82, 1.0])
    platform = wb.add_body(name=f"{prefix}_platform", pos=pos + [0.0, 0.0, 2 * HOUSING[2] + PLATE_LIFT])
    # the spring's rest position: the empty platform's weight balanced at q = 0
    platform.add_joint(name=f"{prefix}_slide", type=mujoco.mjtJoint.mjJNT_SLIDE, axis=[0, 0, 1],
                       stiffness=SPRING, springref=PLATFORM_MASS * GRAVITY / SPRING, damping=DAMPING,
                       range=list(TRAVEL), limited=mujoco.mjtLimited.mjLIMITED_TRUE)
    platform.add_geom(name=f"{prefix}_plate", type=mujoco.mjtGeom.mjGEOM_BOX, size=PLATE,
                      mass=0.8 * PLATFORM_MASS, rgba=[0.75, 0.75, 0.78, 1.0], friction=[0.9, 0.005, 0.0001])
    platform.add_geom(name=f"{prefix}_post", type=mujoco.mjtGeom.mjGEOM_CYLINDER, size=[0.01, PLATE_LIFT / 2, 0],
                      pos=[0, 0, -PLATE_LIFT / 2], mass=0.2 * PLATFORM_MASS, contype=0, conaffinity=0,
                      rgba=[0.5, 0.5, 0.52, 1.0])
    # the dial and its needle on the housing's -y face
    face = pos + [0.0, -HOUSING[1] - 0.002, HOUSING[2]]
    wb.add_geom(name=f"{prefix}_dial", type=mujoco.mjtGeom.mjGEOM_CYLINDER, size=[0.025, 0.001, 0],
                pos=face, quat=[np.sqrt(0.5), np.sqrt(0.5), 0, 0], contype=0, conaffinity=0,
                rgba=[1.0, 1.0, 0.97, 1.0])
    needle = wb.add_body(name=f"{prefix}_needle_body", pos=face + [0.0, -0.003, 0.0])
    needle.add_joint(name=f"{prefix}_needle", type=mujoco.mjtJoint.mjJNT_HINGE, axis=[0, 1, 0])
    # a bar centred on its axis (pointer and tail): no gravity torque
    needle.add_geom(name=f"{prefix}_pointer", type=mujoco.mjtGeom.mjGEOM_CAPSULE, fromto=[0, 0, -0.02, 0, 0, 0.02],
                    size=[0.0015, 0, 0], mass=0.002, contype=0, conaffinity=0, rgba=[0.8, 0.1, 0.1, 1.0])
    # the rack and pinion: q_needle = GEAR q_slide (MuJoCo's joint equality: q1 = poly(q2))
    data = np.zeros(mujoco.mjNEQDATA)
    data[1] = GEAR
    spec.add_equality(name=f"{prefix}_gear", type=mujoco.mjtEq.mjEQ_JOINT, objtype=mujoco.mjtObj.mjOBJ_JOINT,
                      name1=f"{prefix}_needle", name2=f"{prefix}_slide", data=data)
    # the platform slides inside the housing: they do not collide
    spec.add_exclude(bodyname1=prefix if mocap else "world", bodyname2=f"{prefix}_platform")


def reading(needle_angle) -> np.ndarray:
    """The mass (kg) the needle shows: the needle angle turned back into the spring's
    compression (a dial printed from SPRING, GEAR and g)."""
    return -SPRING * np.asarray(needle_angle, float) / (GEAR * GRAVITY)


def scale_world(timestep: float = 1 / 120, *, edit=None, xml_out=None) -> mujoco.MjModel:
    """A scale on a floor (the housing at the origin), compiled by MuJoCo; ``edit(spec)``
    adds to it (weights, objects); ``xml_out`` also writes it as MJCF (for the renderer)."""
    spec = mujoco.MjSpec()
    spec.option.timestep = timestep
    spec.worldbody.add_geom(name="floor", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[1, 1, 0.1])
    add_scale(spec, [0.0, 0.0, 0.0])
    if edit is not None:
        edit(spec)
    mj = spec.compile()
    if xml_out is not None:
        Path(xml_out).write_text(spec.to_xml())
    return mj
