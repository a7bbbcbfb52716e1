"""The Allegro hand (right) on a 6-DOF wrist, palm up, holding a soft foam ball: the world of
the seed's Allegro Ball scene (Macklin et al. 2019 §10.1.3, Fig. 3: "full coupling
between the articulated fingers and the ball's internal dynamics") and of
ncpgym/AllegroSqueeze-v0.

The hand is the URDF of the installed ``example-robot-data`` package
(``allegro_hand_description/urdf/allegro_right_hand.urdf``, BSD; ``pip install
"ncpgym[robots]"``), compiled by MuJoCo's compiler (its invalid link inertias repaired with
MuJoCo's ``balanceinertia``); nothing of it is copied here. It collides through
the URDF's own geometry: a box per link and a sphere of 12 mm per fingertip.

What this module adds (written for ncpgym):
- The wrist: the palm link carries three slides and three hinges (world x, y, z) on
  implicit PD servos (slides kp 2e4 N/m, kv 300 N s/m, about critically damped for the
  1.1 kg hand, sagging 0.5 mm under gravity; hinges kp 500 N m/rad, kv 20 N m s/rad), so
  a task can move the hand; the squeeze task holds them still.
- The fingers: implicit PD position servos on the 16 finger joints, kp = FINGER_KP
  N m/rad, kv = FINGER_KV N m s/rad (time constant 0.03 s; 0.3 rad of error presses a
  fingertip 10 cm out with about 10 N). The URDF's joint damping (3-10 N m s/rad, time
  constants of seconds on links of 10-65 g) is replaced by 0.05 N m s/rad: with it a
  finger takes seconds to close. Its dry joint friction (5-12 N m, ten times what the
  servos can apply: the fingers would never move) is dropped; ncpgym has no joint
  friction rows (the loader refuses it). Its effort limits (15 N m per finger joint, which
  MuJoCo's URDF import turns into each joint's actuatorfrcrange) are dropped too: they never
  bind (the servos reach kp x 2 rad = 6 N m at the joint ranges' ends), and ncpgym does not
  clamp actuator forces (the loader refuses it). Friction mu = 0.8 on every hand geom (the
  seed's DexNet value).
- The palm and the thumb's second link do not collide: their URDF boxes overlap by up to
  7.5 mm near the thumb's lower joint limit (starting there, the step that resolves it
  throws the hand about).
- The pose: palm normal (the link frame's +x) pointing up, fingers along world +x, the
  palm face at height PALM_HEIGHT.
- The ball (``add_ball``): a ``ball_mesh`` of radius BALL_RADIUS with 6 n^3 tetrahedra
  (384 at n = 4, the seed's ball has 427), resting on the palm between the finger roots
  and the wrist.
"""

from __future__ import annotations

import importlib.metadata as md
from pathlib import Path
from typing import NamedTuple

import mujoco
import numpy as np

FINGER_KP, FINGER_KV, FINGER_DAMPING = 3.0, 0.1, 0.05
SLIDE_KP, SLIDE_KV = 2e4, 300.0
HINGE_KP, HINGE_KV = 500.0, 20.0
FRICTION = 0.8
PALM_HEIGHT = 0.10          # the palm face above the floor (m)
PALM_FACE = 0.0111          # the palm face's x in the palm link frame (collision box)
BALL_RADIUS = 0.045
BALL_AT = -0.040            # the ball centre's z in the palm link frame (finger roots at 0)
WRIST = ["wrist_x", "wrist_y", "wrist_z", "wrist_rx", "wrist_ry", "wrist_rz"]
FINGER_JOINTS = [f"joint_{k}.0" for k in range(16)]
TIPS = ["tip_0", "tip_1", "tip_2", "tip_3"]  # fingertip sphere geoms: index, middle, ring, thumb
# the palm link frame in the world: its x (palm normal) up, its z (the fingers) along +x
PALM_R = np.array([[0.0, 0.0, 1.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0]])
# palm down (grasping from above): its x down, its z along +x
PALM_DOWN_R = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])


def allegro_urdf() -> Path:
    """The right Allegro hand URDF of the installed ``example-robot-data`` package."""
    try:
        dist = md.distribution("example-robot-data")
    except md.PackageNotFoundError:
        raise ModuleNotFoundError(
            "the Allegro hand comes from the PyPI package example-robot-data: pip install \"ncpgym[robots]\" "
            "(or pip install example-robot-data)") from None
    path = Path(str(dist.locate_file(
        "cmeel.prefix/share/example-robot-data/robots/allegro_hand_description/urdf/allegro_right_hand.urdf")))
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing from the installed example-robot-data")
    return path


def palm_quat(R: np.ndarray = PALM_R) -> np.ndarray:
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, np.ascontiguousarray(R).ravel())
    return q


def palm_origin() -> np.ndarray:
    """The palm link's origin in the world (its face at PALM_HEIGHT, centred over x = 0)."""
    return np.array([0.0, 0.0, PALM_HEIGHT]) - PALM_R @ np.array([PALM_FACE, 0.0, BALL_AT])


def ball_centre() -> np.ndarray:
    """Where the ball rests at the start: on the palm face, BALL_AT along the fingers."""
    return palm_origin() + PALM_R @ np.array([PALM_FACE + BALL_RADIUS, 0.0, BALL_AT])


def _edit(spec: mujoco.MjSpec, timestep: float, R: np.ndarray, origin: np.ndarray) -> None:
    spec.option.timestep = timestep
    spec.compiler.balanceinertia = True  # the URDF's link inertias break A + B >= C
    palm = spec.worldbody.bodies[0]
    palm.pos = origin
    palm.quat = palm_quat(R)
    # the wrist: slides and hinges along the world axes (the palm's frame: R^T e_k)
    for k, name in enumerate(WRIST):
        axis = R.T[:, k % 3]
        jtype = mujoco.mjtJoint.mjJNT_SLIDE if k < 3 else mujoco.mjtJoint.mjJNT_HINGE
        palm.add_joint(name=name, type=jtype, axis=axis)
        kp, kv = (SLIDE_KP, SLIDE_KV) if k < 3 else (HINGE_KP, HINGE_KV)
        _servo(spec, name, kp, kv)
    for j in spec.joints:
        if j.name in FINGER_JOINTS:
            j.damping = [FINGER_DAMPING, 0.0, 0.0]
            j.frictionloss = 0.0
            j.actfrclimited = mujoco.mjtLimited.mjLIMITED_FALSE  # the URDF's effort: never binds
    for name in FINGER_JOINTS:
        _servo(spec, name, FINGER_KP, FINGER_KV)
    # the URDF's palm box and the thumb's second link overlap by up to 7.5 mm near the
    # thumb's lower joint limit (a collision model coarser than the real hand)
    spec.add_exclude(bodyname1=palm.name, bodyname2="link_13.0")
    for g in spec.geoms:
        g.friction = [FRICTION, 0.005, 0.0001]
        tip = g.type == mujoco.mjtGeom.mjGEOM_SPHERE  # the URDF's only spheres: the fingertips
        g.rgba = [0.92, 0.92, 0.9, 1.0] if tip else [0.3, 0.3, 0.33, 1.0]  # as on the real hand
        if tip:
            g.name = f"tip_{len([1 for h in spec.geoms if h.name.startswith('tip_')])}"
    spec.worldbody.add_geom(name="floor", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[1.0, 1.0, 0.1],
                            friction=[FRICTION, 0.005, 0.0001])


def _servo(spec: mujoco.MjSpec, joint: str, kp: float, kv: float) -> None:
    spec.add_actuator(name=f"act_{joint}", target=joint, trntype=mujoco.mjtTrn.mjTRN_JOINT,
                      gaintype=mujoco.mjtGain.mjGAIN_FIXED, gainprm=[kp] + [0.0] * 9,
                      biastype=mujoco.mjtBias.mjBIAS_AFFINE, biasprm=[0.0, -kp, -kv] + [0.0] * 7)


def hand_world(timestep: float, xml_out: str | Path | None = None, *, palm: str = "up", origin=None,
               edit=None) -> mujoco.MjModel:
    """The hand on its wrist over a floor, compiled by MuJoCo (actuators: the six wrist
    servos, then the 16 finger servos, targets in joint units: wrist targets are
    displacements from the start pose). ``palm``: "up" (PALM_R, the palm face at
    PALM_HEIGHT: the squeeze world) or "down" (PALM_DOWN_R, the palm link's origin at
    ``origin``: grasping from above). ``edit(spec)`` adds to the world (a table, objects).
    ``xml_out``: also write the world as MJCF (the renderer reads it)."""
    from ...models.loader import compile_urdf

    if palm not in ("up", "down"):
        raise ValueError(f"palm must be 'up' or 'down', got {palm!r}")
    R = PALM_R if palm == "up" else PALM_DOWN_R
    if origin is None:
        if palm == "down":
            raise ValueError("hand_world(palm='down') needs the palm's origin")
        origin = palm_origin()
    captured = {}

    def edit_all(spec):
        _edit(spec, timestep, R, np.asarray(origin, float))
        if edit is not None:
            edit(spec)
        captured["spec"] = spec

    mj = compile_urdf(allegro_urdf(), edit=edit_all)
    if xml_out is not None:
        # MjSpec.to_xml leaves out the compiler's balanceinertia: say it again for the renderer
        xml = captured["spec"].to_xml().replace('<compiler angle="radian"', '<compiler angle="radian" balanceinertia="true"', 1)
        Path(xml_out).write_text(xml)
    return mj


# -- the pinch synergy (palm down): one closure s for all 16 finger joints ------------------------
# Index, middle and ring keep their spread at 0 and flex (f, g, g) from a table fitted (least
# squares on MuJoCo's forward kinematics, offline) so that each fingertip centre stays
# GRASP_DEPTH below the palm origin while it sweeps along the fingers from 0.100 m (s = 0) to
# 0.021 m (s = 1) ahead of it; the thumb, rotated under the palm, sweeps towards them from
# -0.045 m to 0.002 m at about the same depth (a straight line in joint space between two
# poses found by a grid search). Objects are pinched between the thumb and the three
# fingertips about GRASP_X ahead of the palm origin; s > 1 keeps closing, so the servos
# squeeze whatever blocks them (tests check the sweep against MuJoCo's kinematics).
GRASP_DEPTH = 0.085
GRASP_X = 0.028
GRASP_MAX = 1.3
_SYNERGY_FG = np.array([[0.721, 0.099], [0.526, 0.439], [0.473, 0.606], [0.465, 0.728], [0.488, 0.822],
                        [0.535, 0.895], [0.604, 0.949], [0.693, 0.984], [0.797, 1.001]])
_THUMB_OPEN = np.array([1.1, 1.1, 0.407, 1.6])
_THUMB_CLOSED = np.array([1.4, 0.5, 1.003, 0.231])


def grasp_synergy(s) -> np.ndarray:
    """Finger joint targets [..., 16] (FINGER_JOINTS order) at closures ``s`` [...] in
    [0, GRASP_MAX] (clipped): 0 open around an object, 1 the fingertips meet the thumb."""
    s = np.clip(np.asarray(s, float), 0.0, GRASP_MAX)
    knots = np.linspace(0.0, 1.0, len(_SYNERGY_FG))
    f = np.interp(np.minimum(s, 1.0), knots, _SYNERGY_FG[:, 0])
    g = np.interp(np.minimum(s, 1.0), knots, _SYNERGY_FG[:, 1]) + np.maximum(s - 1.0, 0.0)
    zero = np.zeros_like(s)
    finger = np.stack([zero, f, g, g], axis=-1)
    thumb = _THUMB_OPEN + s[..., None] * (_THUMB_CLOSED - _THUMB_OPEN)
    return np.concatenate([finger, finger, finger, thumb], axis=-1)


class HandIndices(NamedTuple):
    """Where the hand lives in a compiled world: qpos and dof addresses of the finger and
    wrist joints (FINGER_JOINTS, WRIST order), their servos' actuator indices, the finger
    joints' ranges and the fingertip geoms (TIPS)."""

    finger_q: np.ndarray
    finger_v: np.ndarray
    finger_act: np.ndarray
    wrist_q: np.ndarray
    wrist_v: np.ndarray
    wrist_act: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    tips: np.ndarray


def hand_indices(mj: mujoco.MjModel) -> HandIndices:
    """The hand's indices in ``mj`` (a ``hand_world``; servos are named act_<joint>)."""
    qadr = lambda names: np.array([int(mj.jnt_qposadr[mj.joint(n).id]) for n in names])  # noqa: E731
    dadr = lambda names: np.array([int(mj.jnt_dofadr[mj.joint(n).id]) for n in names])  # noqa: E731
    servos = [mj.actuator(a).name.removeprefix("act_") for a in range(mj.nu)]
    act = lambda names: np.array([servos.index(n) for n in names])  # noqa: E731
    lo, hi = mj.jnt_range[[mj.joint(n).id for n in FINGER_JOINTS]].T
    return HandIndices(qadr(FINGER_JOINTS), dadr(FINGER_JOINTS), act(FINGER_JOINTS), qadr(WRIST), dadr(WRIST),
                       act(WRIST), lo, hi, np.array([mj.geom(n).id for n in TIPS]))


def add_ball(builder, *, radius: float = BALL_RADIUS, n: int = 4, young: float = 3e4, poisson: float = 0.2,
             density: float = 300.0, model: str = "neohookean", centre=None) -> tuple[int, int]:
    """Add the soft ball (a ``ball_mesh``) to ``builder`` at ``centre`` (default: resting on
    the palm). Returns (first particle, first tet)."""
    from ...soft import add_mesh, ball_mesh

    v, t = ball_mesh(radius, n, ball_centre() if centre is None else centre)
    return add_mesh(builder, v, t, density=density, young=young, poisson=poisson, model=model,
                    radius=0.0, friction=FRICTION)
