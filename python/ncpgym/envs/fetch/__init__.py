"""The Fetch mobile manipulator at Gymnasium-Robotics' table: the robot of the seed's Fetch
Tomato and Fetch Beam scenes (Macklin et al. 2019 §10.1.1-2, Fig. 1 and 7).

The robot is Gymnasium-Robotics' ``envs/assets/fetch/pick_and_place.xml`` (MIT; meshes in
``envs/assets/stls/fetch``), read from the installed package and compiled by MuJoCo's
compiler; nothing of it is copied here. What this module changes, through ``mujoco.MjSpec``:

- The arm is driven by implicit PD position servos on its seven joints (kp = ARM_KP
  N m/rad, kv = ARM_KV N m s/rad: time constant kv/kp = 0.02 s; solved implicitly by the
  Newton step, so stable at any time step), and a task moves the grip site by
  resolved-rate control (``ik_targets``: damped least squares on the grip site's Jacobian,
  integrated into the servo targets, which also removes the servos' gravity sag, with the
  goal's own motion fed forward; a grip goal moving at 0.15 m/s is followed within 3 mm
  and reached with at most 3 mm of overshoot, where kp = 2000, kv = 200 without feed
  forward lagged 28 mm and overshot 9). The targets lead the measured joints by at most
  MAX_LEAD rad, which bounds how hard the arm pushes against what blocks it (kp x
  MAX_LEAD = 500 N m).
- Gymnasium-Robotics drives the gripper through a weld to a mocap body instead; with
  ncpgym's rigid weld that moves the gripper by a whole action increment within one
  physics step (a jerk that shakes a soft tomato loose) and lets the arm push through
  anything, since a weld row has no force bound; the servos bound the force by their
  gains. The mocap body and its weld are removed.
- The mobile base is fixed at Gymnasium-Robotics' start (its three slide joints, damped by
  1e11 to hold it still in MuJoCo, are removed); torso lift and head joints hold their
  start through servos (the torso's stiff: kp 1e5 N/m).
- The fingers: Gymnasium-Robotics' finger servos (kp 30,000 N/m on 4 kg fingers with
  100 kg of armature, tuned for MuJoCo's explicit integrator) squeeze with 1,000 N when
  closed on a 7 cm object. Here each finger has kp = GRIP_KP, kv = GRIP_KV and armature
  0.1 kg, so squeeze force is GRIP_KP x how far the target is inside the object's surface
  (10 N per cm). Finger pads have the seed's tomato friction 0.75.
- Collision: the link meshes collide (convex hulls, ncpgym's mesh collision), as do the
  finger boxes, with robot.xml's condim 4: torsional friction (the pads' coefficient
  0.005 m, the larger of a pair's) resists a rigid object turning in the grasp; contacts
  with soft bodies (the tomato) are condim 3.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

import mujoco
import numpy as np

ARM = ["robot0:shoulder_pan_joint", "robot0:shoulder_lift_joint", "robot0:upperarm_roll_joint",
       "robot0:elbow_flex_joint", "robot0:forearm_roll_joint", "robot0:wrist_flex_joint",
       "robot0:wrist_roll_joint"]
HOLD = ["robot0:torso_lift_joint", "robot0:head_pan_joint", "robot0:head_tilt_joint"]
FINGERS = ["robot0:r_gripper_finger_joint", "robot0:l_gripper_finger_joint"]
PADS = ["robot0:r_gripper_finger_link", "robot0:l_gripper_finger_link"]
GRIP_SITE = "robot0:grip"
MAX_LEAD = 0.05             # rad: servo targets ahead of the measured arm joints, at most
ARM_KP, ARM_KV = 10000.0, 200.0
HOLD_KP, HOLD_KV = 5000.0, 500.0          # head joints
TORSO_KP, TORSO_KV = 1e5, 1e4              # N/m, N s/m: the lift carries ~25 kg, 2.5 mm of sag
GRIP_KP, GRIP_KV = 1000.0, 100.0
FINGER_RANGE = (0.0, 0.05)
PAD_FRICTION = 0.75
BASE_POS = (0.6919, 0.7441, 0.0)    # Gymnasium-Robotics' base body plus its slides' start
TABLE_POS, TABLE_HALF = np.array([1.3, 0.75, 0.2]), np.array([0.25, 0.35, 0.2])
TABLE_TOP = float(TABLE_POS[2] + TABLE_HALF[2])
# the gripper pointing down (gripper x to -z), fingers closing along world y: Gymnasium-
# Robotics' gripper orientation (quaternion 0.707 0 0.707 0)
DOWN = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])
# arm joints of the start pose: grip site 0.23 m above the table, 5 cm short of its centre, pointing down
HOME_ARM = (0.0, -0.97, 0.0, 2.02, 0.0, 0.52, 0.0)
HOME_TORSO = 0.15


def fetch_xml() -> Path:
    """Gymnasium-Robotics' Fetch pick-and-place MJCF of the installed package."""
    spec = importlib.util.find_spec("gymnasium_robotics")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError('the Fetch model comes from gymnasium-robotics: pip install "ncpgym[robots]"')
    path = Path(spec.submodule_search_locations[0]) / "envs" / "assets" / "fetch" / "pick_and_place.xml"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing from the installed gymnasium-robotics")
    return path


def _servo(spec: mujoco.MjSpec, joint: str, kp: float, kv: float) -> None:
    a = spec.add_actuator(name=f"act_{joint}", target=joint, trntype=mujoco.mjtTrn.mjTRN_JOINT)
    a.set_to_position(kp=kp, kv=kv)


def fetch_spec(timestep: float) -> mujoco.MjSpec:
    """Fetch and its table as an MjSpec, edited as the module docstring says (no object:
    tasks add theirs)."""
    spec = mujoco.MjSpec.from_file(str(fetch_xml()))
    spec.option.timestep = timestep
    spec.compiler.discardvisual = False
    for name in ("object0", "floor0", "robot0:mocap"):  # the block, the goal marker, the mocap body
        spec.delete(spec.body(name))
    for eq in list(spec.equalities):
        spec.delete(eq)
    for act in list(spec.actuators):
        spec.delete(act)
    base = spec.body("robot0:base_link")
    for j in list(base.joints):
        spec.delete(j)
    base.pos = list(BASE_POS)
    for j in ARM:
        _servo(spec, j, ARM_KP, ARM_KV)
    for j in HOLD:
        spec.joint(j).damping = [0.0, 0.0, 0.0]
        torso = j == "robot0:torso_lift_joint"
        _servo(spec, j, TORSO_KP if torso else HOLD_KP, TORSO_KV if torso else HOLD_KV)
    for j in FINGERS:
        joint = spec.joint(j)
        joint.armature, joint.damping = 0.1, [0.0, 0.0, 0.0]
        _servo(spec, j, GRIP_KP, GRIP_KV)
    for g in PADS:
        spec.geom(g).friction = [PAD_FRICTION, 0.005, 0.0001]
    return spec


def compile_spec(spec: mujoco.MjSpec, xml_out=None) -> mujoco.MjModel:
    mj = spec.compile()
    if xml_out is not None:
        xml = spec.to_xml()
        # the meshes are read from the installed package wherever the file is written
        meshdir = str((fetch_xml().parent / spec.meshdir).resolve())
        texdir = str((fetch_xml().parent / spec.texturedir).resolve())
        xml = xml.replace(f'meshdir="{spec.meshdir}"', f'meshdir="{meshdir}"').replace(
            f'texturedir="{spec.texturedir}"', f'texturedir="{texdir}"')
        Path(xml_out).write_text(xml)
    return mj


@dataclass(frozen=True)
class FetchIndices:
    arm_q: np.ndarray
    arm_v: np.ndarray
    arm_act: np.ndarray
    finger_q: np.ndarray
    finger_v: np.ndarray
    finger_act: np.ndarray
    act_q: np.ndarray      # every servo's joint qpos address
    arm_lo: np.ndarray
    arm_hi: np.ndarray
    grip_site: int
    pads: np.ndarray       # the two finger pad geoms
    finger_bodies: np.ndarray


def indices(mj: mujoco.MjModel) -> FetchIndices:
    qadr = lambda names: np.array([mj.jnt_qposadr[mj.joint(n).id] for n in names])  # noqa: E731
    dadr = lambda names: np.array([mj.jnt_dofadr[mj.joint(n).id] for n in names])  # noqa: E731
    servos = [mj.actuator(a).name.removeprefix("act_") for a in range(mj.nu)]
    act = lambda names: np.array([servos.index(n) for n in names])  # noqa: E731
    rng = mj.jnt_range[[mj.joint(n).id for n in ARM]]
    limited = mj.jnt_limited[[mj.joint(n).id for n in ARM]].astype(bool)
    lo = np.where(limited, rng[:, 0], -np.pi)
    hi = np.where(limited, rng[:, 1], np.pi)
    return FetchIndices(qadr(ARM), dadr(ARM), act(ARM), qadr(FINGERS), dadr(FINGERS), act(FINGERS), qadr(servos), lo, hi,
                        mj.site(GRIP_SITE).id, np.array([mj.geom(g).id for g in PADS]),
                        np.array([mj.geom(g).bodyid for g in PADS]))


def home_pose(mj: mujoco.MjModel, opening: float = 0.045, arm=HOME_ARM) -> np.ndarray:
    """qpos of the start pose: the arm at ``arm`` (default: over the table's near half,
    gripper pointing down), torso at HOME_TORSO, fingers ``opening`` m apart each (0 to 0.05)."""
    q = mj.qpos0.copy()
    for name, val in zip(ARM, arm):
        q[mj.jnt_qposadr[mj.joint(name).id]] = val
    q[mj.jnt_qposadr[mj.joint("robot0:torso_lift_joint").id]] = HOME_TORSO
    for name in FINGERS:
        q[mj.jnt_qposadr[mj.joint(name).id]] = opening
    return q


def noisy_home(home: np.ndarray, idx: FetchIndices, batch, worlds: np.ndarray, noise: float) -> np.ndarray:
    """Rows [len(worlds), nq] of the home pose with each arm joint moved by uniform noise in
    [-noise, noise] rad from each world's stream, kept within the joint limits."""
    q = np.tile(home, (len(worlds), 1))
    q[:, idx.arm_q] += batch.uniform(worlds, 7, -noise, noise)
    q[:, idx.arm_q] = np.clip(q[:, idx.arm_q], idx.arm_lo, idx.arm_hi)
    return q


def grip_frame(batch, idx: FetchIndices) -> tuple[np.ndarray, np.ndarray]:
    """The grip site's position [N, 3] and rotation [N, 3, 3] in every world."""
    n = batch.num_worlds
    return batch.site_xpos[:, idx.grip_site], batch.site_xmat[:, idx.grip_site].reshape(n, 3, 3)


def yaw_frame(yaw) -> np.ndarray:
    """Gripper orientations [..., 3, 3] pointing down, turned by ``yaw`` about world z."""
    yaw = np.asarray(yaw, float)
    c, s = np.cos(yaw), np.sin(yaw)
    Rz = np.zeros(yaw.shape + (3, 3))
    Rz[..., 0, 0], Rz[..., 0, 1], Rz[..., 1, 0], Rz[..., 1, 1], Rz[..., 2, 2] = c, -s, s, c, 1.0
    return Rz @ DOWN


def rotation_error(R_goal: np.ndarray, R: np.ndarray) -> np.ndarray:
    """Rotation vectors [N, 3] (world axes) turning R [N, 3, 3] into R_goal."""
    E = R_goal @ np.swapaxes(R, -1, -2)
    v = np.stack([E[:, 2, 1] - E[:, 1, 2], E[:, 0, 2] - E[:, 2, 0], E[:, 1, 0] - E[:, 0, 1]], axis=1)
    n = np.linalg.norm(v, axis=1)
    angle = np.arctan2(n / 2, (np.trace(E, axis1=1, axis2=2) - 1) / 2)
    scale = np.where(n > 1e-12, angle / np.maximum(n, 1e-12), 0.5)
    return v * scale[:, None]


def ik_targets(model, q: np.ndarray, idx: FetchIndices, targets: np.ndarray, pos_goal: np.ndarray,
               R_goal: np.ndarray, grip_pos: np.ndarray, grip_R: np.ndarray, *, gain: float = 0.3,
               goal_step: np.ndarray | None = None, damping: float = 0.05, max_step: float = 0.1,
               max_lead: float | None = None) -> np.ndarray:
    """The arm's servo targets [N, 7] after one resolved-rate step towards (pos_goal [N, 3],
    R_goal [N, 3, 3]) from the measured grip pose: damped least squares on the grip site's
    Jacobian, dq = J^T (J J^T + damping^2 I)^-1 gain e (e: position error and rotation
    vector), added to the current targets (an integral action: the servos' gravity sag is
    removed), each joint's change capped at ``max_step`` rad and the result kept in range.
    ``goal_step`` [N, 3], the goal's move this step, is fed forward (added to gain e), so a
    moving goal is followed without the lag an integral action alone builds up. The targets
    stay within ``max_lead`` (default MAX_LEAD) rad of the measured joints: no wind-up
    when the arm is blocked."""
    from ... import dynamics as dyn

    J = dyn.site_jacobian(model, q, idx.grip_site)[:, :, idx.arm_v]  # [N, 6, 7]
    err = gain * np.concatenate([pos_goal - grip_pos, rotation_error(R_goal, grip_R)], axis=1)
    if goal_step is not None:
        err[:, :3] += goal_step
    A = J @ np.swapaxes(J, 1, 2) + damping**2 * np.eye(6)
    dq = np.einsum("nij,nj->ni", np.swapaxes(J, 1, 2), np.linalg.solve(A, err[..., None])[..., 0])
    lead = MAX_LEAD if max_lead is None else max_lead
    q_arm = q[:, idx.arm_q]
    new = np.clip(targets + np.clip(dq, -max_step, max_step), q_arm - lead, q_arm + lead)
    return np.clip(new, idx.arm_lo, idx.arm_hi)


# -- the tomato scene (the seed's Fetch Tomato, §10.1.1, Fig. 1) ------------------------------

TOMATO_RADII = (0.035, 0.035, 0.028)   # an ellipsoid 7 cm wide, 5.6 cm tall
TOMATO_YOUNG, TOMATO_POISSON, TOMATO_DENSITY = 1e5, 0.45, 1000.0  # the seed's material
TOMATO_POS = (1.25, 0.50)              # its start on the table (x, y)
SCALE_POS = (1.25, 1.00)               # the scale housing's centre on the table (x, y)


def tomato_spec(timestep: float) -> mujoco.MjSpec:
    """Fetch, its table and a mechanical scale (``ncpgym.envs.scale``, a mocap body so each
    world can place it) 0.5 m along +y from the tomato's start."""
    from .. import scale

    spec = fetch_spec(timestep)
    scale.add_scale(spec, [SCALE_POS[0], SCALE_POS[1], TABLE_TOP], mocap=True)
    spec.worldbody.add_light(pos=[1.0, 0.2, 2.5], dir=[0.2, 0.3, -1], diffuse=[0.6, 0.6, 0.6])
    return spec


def add_tomato(builder, *, n: int = 4, model: str = "neohookean", centre=None) -> tuple[int, int]:
    """Add the seed's tomato (Young 0.1 MPa, Poisson 0.45, 1000 kg/m^3, friction 0.75; a
    ``ball_mesh`` of 6 n^3 tetrahedra squashed to TOMATO_RADII, 384 at n = 4 against the
    seed's 319) resting on the table at TOMATO_POS, or centred at ``centre``."""
    from ...soft import add_mesh, ball_mesh

    v, t = ball_mesh(1.0, n)
    c = np.array([*TOMATO_POS, TABLE_TOP + TOMATO_RADII[2] + 0.001]) if centre is None else np.asarray(centre, float)
    return add_mesh(builder, v * np.array(TOMATO_RADII) + c, t, density=TOMATO_DENSITY, young=TOMATO_YOUNG,
                    poisson=TOMATO_POISSON, model=model, friction=PAD_FRICTION)
