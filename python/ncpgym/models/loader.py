"""Compile MJCF/URDF with MuJoCo's compiler and convert the compiled model into an
ncpgym Model through the Builder.

MuJoCo does the parsing, defaults, unit conversion, inertia computation from geoms and
fusing of static URDF links; ncpgym reads back the compiled arrays (mjModel), so both
engines see the same bodies, joints and inertias in the same qpos/qvel order.
"""

from __future__ import annotations

import copy
import logging
import os
import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path

import mujoco
import numpy as np

from .. import _core
from ..errors import ModelError, UnsupportedFeatureError
from . import decompose
from .hull import convex_hull, hull_triangles

log = logging.getLogger("ncpgym")

_GEOM_TYPES = {
    int(mujoco.mjtGeom.mjGEOM_PLANE): "plane",
    int(mujoco.mjtGeom.mjGEOM_SPHERE): "sphere",
    int(mujoco.mjtGeom.mjGEOM_CAPSULE): "capsule",
    int(mujoco.mjtGeom.mjGEOM_BOX): "box",
    int(mujoco.mjtGeom.mjGEOM_CYLINDER): "cylinder",
    int(mujoco.mjtGeom.mjGEOM_ELLIPSOID): "ellipsoid",
    int(mujoco.mjtGeom.mjGEOM_MESH): "mesh",
}
_JOINT_TYPES = {
    int(mujoco.mjtJoint.mjJNT_FREE): "free",
    int(mujoco.mjtJoint.mjJNT_BALL): "ball",
    int(mujoco.mjtJoint.mjJNT_SLIDE): "slide",
    int(mujoco.mjtJoint.mjJNT_HINGE): "hinge",
}
# MuJoCo compiler errors on invalid inertial data in URDFs, and the compiler option that
# repairs each (a logged warning says the model was changed).
_INERTIA_REPAIRS = (
    ("A + B >= C", {"balanceinertia": "true"}),
    ("mass and inertia of moving bodies", {"boundmass": "1e-6", "boundinertia": "1e-9"}),
)


def load_model(
    path: str | os.PathLike | mujoco.MjModel,
    *,
    floating_base: bool = False,
    strict: bool = True,
    convex_decomposition: str = "auto",
    coacd_threshold: float = 0.05,
    decompose_geoms: Iterable[str] = (),
    self_collision: str = "auto",
) -> _core.Model:
    """Load an MJCF (``.xml``) or URDF (``.urdf``) file as an ncpgym Model.

    The file is compiled by MuJoCo's compiler (the ``mujoco`` package) and converted.

    Args:
        path: model file; or MJCF text (a string starting with ``<``); or a compiled
            ``mujoco.MjModel`` (converted as :func:`from_mujoco` does).
        floating_base: URDF only: give the root link a free joint (MuJoCo's URDF import
            welds it to the world otherwise).
        strict: raise :class:`UnsupportedFeatureError` for features that change the
            dynamics and are not supported yet (muscles, height fields, soft equality
            constraints, ...). With ``strict=False`` they are
            dropped and each is logged as a warning.
        convex_decomposition: how mesh geoms collide. ``"hull"``: as their convex hull (as
            in MuJoCo). ``"auto"``: concave meshes are split into convex parts with CoACD
            (extra ``decompose``), each a mesh geom ``<geom>/part<k>`` on the same body with
            the geom's pose, friction and contact bits; a mesh counts as concave when its
            surface is closed and encloses less than 90 % of its hull's volume (surfaces
            that are not closed keep their hull). ``"all"``: every mesh geom that can
            collide is decomposed, closed or not. Parts are cached on disk (see
            :mod:`ncpgym.models.decompose`), so only a mesh's first load runs CoACD.
        coacd_threshold: CoACD's concavity threshold, in (0, 1] (smaller: more, tighter
            parts).
        decompose_geoms: names of mesh geoms split into convex parts whatever
            ``convex_decomposition`` says (one concave mesh among convex ones: a robot's
            torso, ncpgym.envs.yumi); a name that is not a mesh geom raises ValueError.
        self_collision: URDF only. ``"auto"``: links whose collision geometry already
            interpenetrates at the rest pose (qpos0 with each limited joint clamped into its
            range) do not collide with each other, one ``<contact><exclude>`` per pair,
            logged (the rule of MoveIt's setup assistant for pairs "in collision by
            default"; PyBullet loads URDFs without self-collision at all): nested links'
            meshes overlapping by centimetres would otherwise be pushed apart by hard
            contact rows that no motion of the joints can satisfy. ``"all"``: every pair
            MuJoCo's filter lets collide, as MuJoCo's own import (whose soft contacts ride
            such overlaps out). MJCF files are loaded as written.

    Equality constraints (``connect``, ``weld``, ``joint``) become rigid bilateral rows of the
    Newton solve: MuJoCo's default ``solref`` (0.02, 1) and any ``solimp`` describe MuJoCo's
    own softening of every constraint and are read as rigid, and so is any ``solref`` stiffer
    than the default (a time constant <= 0.02 s, any damping ratio: dm_control's tendon
    couplings use 0.005, 0.5); a negative ``solref`` (-stiffness, 0) gives a compliant row
    with compliance 1/stiffness; softer ``solref`` values are refused (their softness depends
    on MuJoCo's effective mass).
    Mocap bodies are kinematic, posed per world (``Batch.mocap_pos``, ``mocap_quat``).

    Raises:
        FileNotFoundError: the file does not exist.
        ModelError: MuJoCo cannot compile the file (the message carries MuJoCo's reason).
        UnsupportedFeatureError: see ``strict``.
        ValueError: ``convex_decomposition`` is not one of "auto", "hull", "all", or
            ``coacd_threshold`` is not in (0, 1], or ``self_collision`` not "auto" or "all".
        ImportError: a mesh needs decomposing and coacd is not installed.
    """
    decompose.check_options(convex_decomposition, coacd_threshold)
    if self_collision not in ("auto", "all"):
        raise ValueError(f"self_collision must be 'auto' or 'all', got {self_collision!r}")
    if isinstance(path, mujoco.MjModel) or (isinstance(path, str) and path.lstrip().startswith("<")):
        if floating_base:
            raise ValueError("floating_base applies to URDF files")
        if isinstance(path, mujoco.MjModel):
            mjm, source = path, "<MjModel>"
        else:
            mjm, source = _compile(lambda: mujoco.MjModel.from_xml_string(path), "<MJCF text>"), "<MJCF text>"
        return from_mujoco(mjm, source=source, strict=strict, convex_decomposition=convex_decomposition,
                           coacd_threshold=coacd_threshold, decompose_geoms=decompose_geoms)
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"model file not found: {path}")
    suffix = path.suffix.lower()
    if suffix == ".urdf":
        mjm = compile_urdf(path, floating_base, self_collision=self_collision)
    elif suffix in (".xml", ".mjcf"):
        if floating_base:
            raise ValueError("floating_base applies to URDF files; MJCF declares <freejoint/>")
        mjm = _compile(lambda: mujoco.MjModel.from_xml_path(str(path)), path)
    else:
        raise ModelError(f"{path}: unknown model format '{suffix}' (expected .xml or .urdf)")
    return from_mujoco(mjm, source=str(path), strict=strict, convex_decomposition=convex_decomposition,
                       coacd_threshold=coacd_threshold, decompose_geoms=decompose_geoms)


def _compile(fn, path):
    try:
        return fn()
    except ValueError as e:  # MuJoCo reports parse and compile errors as ValueError
        raise ModelError(f"{path}: MuJoCo could not compile the model: {e}") from None


def compile_urdf(path: str | os.PathLike, floating_base: bool = False, edit=None,
                 self_collision: str = "all") -> mujoco.MjModel:
    """MuJoCo's compile of a URDF, as ``load_model`` makes it (visuals dropped, package://
    meshes resolved, invalid inertias repaired with a logged warning); ``edit(spec)`` may
    change the MjSpec first (worlds built around a third-party robot, ncpgym.envs.yumi).
    ``self_collision="auto"`` excludes the link pairs that interpenetrate at the rest pose
    (see load_model; the default "all" keeps MuJoCo's import)."""
    path = Path(path)
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise ModelError(f"{path}: malformed URDF: {e}") from None
    if root.tag != "robot":
        raise ModelError(f"{path}: not a URDF file (root element <{root.tag}>, expected <robot>)")
    # Visual meshes are never simulated; collision meshes are kept when their files exist
    # (package:// URIs resolved against the directories above the URDF; relative names in
    # the URDF's own <mujoco><compiler meshdir> (or assetdir), as MuJoCo looks, then beside
    # the URDF).
    own = root.find("mujoco/compiler")
    meshdir = None if own is None else own.get("meshdir", own.get("assetdir"))
    for link in root.iter("link"):
        for vis in link.findall("visual"):
            link.remove(vis)
        for col in link.findall("collision"):
            mesh = col.find("geometry/mesh")
            if mesh is None:
                continue
            resolved = _resolve_mesh(path, mesh.get("filename", ""), meshdir)
            if resolved is None or not resolved.lower().endswith((".stl", ".obj", ".msh")):
                log.info("%s: dropping collision mesh %s of link '%s' (MuJoCo cannot read it)",
                         path, mesh.get("filename"), link.get("name"))
                link.remove(col)
            else:
                mesh.set("filename", resolved)
    compiler = _mujoco_compiler_element(root)
    compiler.set("strippath", "false")  # the resolved absolute paths, kept whole

    def build(extra, excludes=()):
        for k, v in extra.items():
            compiler.set(k, v)
        spec = mujoco.MjSpec.from_string(ET.tostring(root, encoding="unicode"))
        if floating_base:
            bodies = spec.worldbody.bodies
            if len(bodies) != 1:
                raise ModelError(f"{path}: floating_base needs exactly one root link")
            bodies[0].add_freejoint()
        if edit is not None:
            edit(spec)
        for name1, name2 in excludes:
            ex = spec.add_exclude()
            ex.bodyname1, ex.bodyname2 = name1, name2
        return spec.compile()

    extra: dict[str, str] = {}
    while True:
        try:
            mjm = build(extra)
            if self_collision != "auto":
                return mjm
            overlaps = _rest_pose_overlaps(mjm)
            if not overlaps:
                return mjm
            log.info("%s: %d link pairs interpenetrate at the rest pose and do not collide (self_collision="
                     "'auto'): %s", path, len(overlaps),
                     ", ".join(f"{a}-{b} ({-1000 * depth:.1f} mm)" for (a, b), depth in overlaps.items()))
            return build(extra, list(overlaps))
        except ModelError:  # ours (a ValueError too): not MuJoCo's to repair or rename
            raise
        except ValueError as e:
            fix = next((f for key, f in _INERTIA_REPAIRS if key in str(e) and not
                        set(f) <= set(extra)), None)
            if fix is None:
                raise ModelError(f"{path}: MuJoCo could not compile the URDF: {e}") from None
            log.warning("%s: invalid inertial data (%s); compiling with MuJoCo's %s",
                        path, str(e).splitlines()[0], ", ".join(f"{k}={v}" for k, v in fix.items()))
            extra.update(fix)


def _rest_pose_overlaps(mjm: mujoco.MjModel) -> dict[tuple[str, str], float]:
    """Body pairs (by name) whose geoms interpenetrate at the rest pose, qpos0 with each
    limited hinge and slide clamped into its range, by MuJoCo's own collision detection,
    with the deepest penetration (a negative distance) of each."""
    d = mujoco.MjData(mjm)
    for j in range(mjm.njnt):
        if mjm.jnt_limited[j] and mjm.jnt_type[j] in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE):
            a = mjm.jnt_qposadr[j]
            d.qpos[a] = np.clip(d.qpos[a], *mjm.jnt_range[j])
    mujoco.mj_fwdPosition(mjm, d)
    out: dict[tuple[str, str], float] = {}
    for c in d.contact[:d.ncon]:
        if c.dist >= 0:
            continue
        b1, b2 = sorted((int(mjm.geom_bodyid[c.geom1]), int(mjm.geom_bodyid[c.geom2])))
        key = (mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_BODY, b1), mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_BODY, b2))
        out[key] = min(out.get(key, 0.0), float(c.dist))
    return out


def _mujoco_compiler_element(root: ET.Element) -> ET.Element:
    mj = root.find("mujoco")
    if mj is None:
        mj = ET.SubElement(root, "mujoco")
    comp = mj.find("compiler")
    if comp is None:
        comp = ET.SubElement(mj, "compiler")
    return comp


def _nonzero(mjm: mujoco.MjModel, field: str, index) -> bool:
    """Whether the model's ``field`` (absent in older MuJoCo: False) is nonzero at index."""
    values = getattr(mjm, field, None)
    return values is not None and bool(np.any(np.asarray(values)[index] != 0))


def _resolve_mesh(urdf: Path, filename: str, meshdir: str | None = None) -> str | None:
    m = re.match(r"package://(.*)", filename)
    if m is None:
        if os.path.isabs(filename):
            return filename if Path(filename).is_file() else None
        # MuJoCo reads a relative name in meshdir (the whole name, or with strippath, the
        # default for URDF, its last part); ncpgym also finds it beside the URDF
        cands = [] if meshdir is None else [urdf.parent / meshdir / filename,
                                            urdf.parent / meshdir / Path(filename).name]
        cand = next((c for c in cands + [urdf.parent / filename] if c.is_file()), None)
        return None if cand is None else str(cand)
    rel = m.group(1)
    for base in urdf.resolve().parents:  # the package root is some directory above the URDF
        cand = base / rel
        if cand.is_file():
            return str(cand)
    return None


def _name(mjm, obj, i) -> str:
    return mujoco.mj_id2name(mjm, obj, i) or ""


_DEFAULT_SOLREF = (0.02, 1.0)


def _add_equality(b, mjm, e: int, unsupported: list[str], tendon_map: dict[int, int]) -> None:
    """One MuJoCo equality as a bilateral row group of the Newton solve (see load_model)."""
    name = _name(mjm, mujoco.mjtObj.mjOBJ_EQUALITY, e)
    kind = mujoco.mjtEq(mjm.eq_type[e])
    who = f"equality '{name}' ({kind.name})"
    data, solref = mjm.eq_data[e], tuple(float(x) for x in mjm.eq_solref[e])
    compliance = 0.0
    if solref[0] < 0:
        if solref[1] != 0:
            unsupported.append(f"{who}: solref damping {-solref[1]} (only a stiffness, -k 0, is supported)")
            return
        compliance = 1.0 / -solref[0]
    elif not (0 < solref[0] <= _DEFAULT_SOLREF[0] and solref[1] > 0):
        # MuJoCo's default softness is read as rigid, so a stiffer one is too
        unsupported.append(f"{who}: solref {solref} (softer than MuJoCo's default (0.02, 1), through "
                           "MuJoCo's effective mass; use solref='-stiffness 0' for a compliant constraint)")
        return
    active = bool(mjm.eq_active0[e])
    o1, o2 = int(mjm.eq_obj1id[e]), int(mjm.eq_obj2id[e])
    if kind in (mujoco.mjtEq.mjEQ_CONNECT, mujoco.mjtEq.mjEQ_WELD):
        if int(mjm.eq_objtype[e]) != int(mujoco.mjtObj.mjOBJ_BODY):
            unsupported.append(f"{who}: defined between sites")
            return
        if kind == mujoco.mjtEq.mjEQ_CONNECT:
            b.add_connect(o1, o2, data[0:3], data[3:6], compliance=compliance, active=active, name=name)
            return
        if data[10] != 1:
            unsupported.append(f"{who}: torquescale {data[10]}")
            return
        b.add_weld(o1, o2, relpos=data[3:6], relquat=data[6:10], anchor=data[0:3],
                   compliance=compliance, active=active, name=name)
    elif kind == mujoco.mjtEq.mjEQ_JOINT:
        b.add_joint_coupling(o1, o2, list(data[0:5]), compliance=compliance, active=active, name=name)
    elif kind == mujoco.mjtEq.mjEQ_TENDON:
        if any(o >= 0 and o not in tendon_map for o in (o1, o2)):
            unsupported.append(f"{who}: its tendon is not loaded")
            return
        b.add_tendon_coupling(tendon_map[o1], tendon_map[o2] if o2 >= 0 else -1, list(data[0:5]),
                              compliance=compliance, active=active, name=name)
    else:
        unsupported.append(f"{who}: {kind.name} constraint")


_DYNAMICS = {mujoco.mjtDyn.mjDYN_INTEGRATOR: "integrator", mujoco.mjtDyn.mjDYN_FILTER: "filter",
             mujoco.mjtDyn.mjDYN_FILTEREXACT: "filterexact"}


def _add_actuators(b, mjm, tendon_map: dict[int, int], unsupported: list[str]) -> dict[int, tuple[int, float]]:
    """MuJoCo's actuators on joints and on tendons: motors (gain only), position servos,
    general fixed-gain actuators with an affine bias, and dampers (a gain on the velocity alone),
    with their force ranges and activation dynamics (integrator, filter, filterexact). Returns
    MuJoCo's id -> (ncpgym's id, the gain ncpgym keeps in a motor's gear)."""
    act_map: dict[int, tuple[int, float]] = {}
    for a in range(mjm.nu):
        name = _name(mjm, mujoco.mjtObj.mjOBJ_ACTUATOR, a)
        trn = int(mjm.actuator_trntype[a])
        target = int(mjm.actuator_trnid[a, 0])
        if trn == int(mujoco.mjtTrn.mjTRN_TENDON) and target not in tendon_map:
            unsupported.append(f"actuator '{name}': its tendon is not loaded")
            continue
        if trn not in (int(mujoco.mjtTrn.mjTRN_JOINT), int(mujoco.mjtTrn.mjTRN_TENDON)):
            unsupported.append(f"actuator '{name}': transmission type {mujoco.mjtTrn(trn).name}")
            continue
        dyn = mujoco.mjtDyn(mjm.actuator_dyntype[a])
        if dyn != mujoco.mjtDyn.mjDYN_NONE and dyn not in _DYNAMICS:
            unsupported.append(f"actuator '{name}': activation dynamics {dyn.name}")
            continue
        if dyn != mujoco.mjtDyn.mjDYN_NONE and mjm.actuator_actearly[a]:
            unsupported.append(f"actuator '{name}': actearly (the force reading the next activation)")
            continue
        tau = float(mjm.actuator_dynprm[a, 0])
        if dyn in (mujoco.mjtDyn.mjDYN_FILTER, mujoco.mjtDyn.mjDYN_FILTEREXACT) and not tau > 0:
            unsupported.append(f"actuator '{name}': a filter's time constant {tau:g}")
            continue
        gain, bias = mjm.actuator_gainprm[a], mjm.actuator_biasprm[a]
        # MuJoCo's damper: an affine gain on the velocity alone and no bias, f = -kv ctrl V
        damper = (mjm.actuator_gaintype[a] == mujoco.mjtGain.mjGAIN_AFFINE and gain[0] == 0 and gain[1] == 0
                  and gain[2] < 0 and not np.any(bias[:3]) and trn == int(mujoco.mjtTrn.mjTRN_JOINT)
                  and dyn == mujoco.mjtDyn.mjDYN_NONE and mjm.actuator_ctrllimited[a] and mjm.actuator_ctrlrange[a, 0] >= 0)
        if mjm.actuator_gaintype[a] != mujoco.mjtGain.mjGAIN_FIXED and not damper:
            unsupported.append(f"actuator '{name}': gain type {mujoco.mjtGain(mjm.actuator_gaintype[a]).name}")
            continue
        if any(_nonzero(mjm, f, a) for f in ("actuator_damping", "actuator_dampingpoly", "actuator_armature")):
            unsupported.append(f"actuator '{name}': damping or armature of the actuator (MuJoCo 4)")
        if _nonzero(mjm, "actuator_delay", a):
            unsupported.append(f"actuator '{name}': control delay (MuJoCo 4)")
        ctrlrange = tuple(mjm.actuator_ctrlrange[a]) if mjm.actuator_ctrllimited[a] else None
        gear = float(mjm.actuator_gear[a, 0])
        affine_bias = mjm.actuator_biastype[a] == mujoco.mjtBias.mjBIAS_AFFINE
        # a zero affine bias is none (MuJoCo's <cylinder> without one)
        motor = not damper and (mjm.actuator_biastype[a] == mujoco.mjtBias.mjBIAS_NONE
                                or (affine_bias and not np.any(bias[:3])))
        servo = affine_bias and bias[0] == 0 and np.isclose(bias[1], -gain[0])
        affine = affine_bias and bias[1] <= 0 and bias[2] <= 0  # b0 alone: a constant force added
        if not (motor or servo or affine or damper):
            unsupported.append(f"actuator '{name}': gain/bias combination (gain {gain[0]:g}, bias "
                               f"{tuple(float(x) for x in bias[:3])})")
            continue
        # forcerange bounds MuJoCo's scalar force gain * ctrl + bias; ncpgym's motor force is
        # its control (the gain is in its gear), so a motor's bounds are divided by the gain
        lo, hi = (float(x) for x in mjm.actuator_forcerange[a])
        if motor:
            lo, hi = sorted((lo / gain[0], hi / gain[0])) if gain[0] != 0 else (-np.inf, np.inf)
        if trn == int(mujoco.mjtTrn.mjTRN_TENDON):  # f = g ctrl + b0 - kp L - kv dL/dt, explicit
            aid = (b.add_tendon_actuator(tendon_map[target], gear=gear * gain[0], ctrlrange=ctrlrange, name=name)
                   if motor else
                   b.add_tendon_actuator(tendon_map[target], gear=gear, ctrlrange=ctrlrange, ctrlgain=float(gain[0]),
                                         bias0=float(bias[0]), kp=float(-bias[1]), kv=float(-bias[2]), name=name))
        elif damper:  # f = -kv ctrl V with MuJoCo's kv = -gain[2], implicit in qdot
            aid = b.add_actuator(target, "damper", gear=gear, ctrlrange=ctrlrange, kv=float(-gain[2]), name=name)
        elif motor:
            aid = b.add_actuator(target, "motor", gear=gear * gain[0], ctrlrange=ctrlrange, name=name)
        elif servo:
            aid = b.add_actuator(target, "position", gear=gear, ctrlrange=ctrlrange, kp=float(gain[0]),
                                 kv=float(-bias[2]), name=name)
        else:  # <general> gain g, bias [b0, -kp, -kv]: f = g ctrl + b0 - kp L - kv dL/dt
            aid = b.add_affine_actuator(target, gear=gear, ctrlrange=ctrlrange, ctrlgain=float(gain[0]),
                                        bias0=float(bias[0]), kp=float(-bias[1]), kv=float(-bias[2]), name=name)
        act_map[a] = (aid, float(gain[0]) if motor else 1.0)
        if dyn != mujoco.mjtDyn.mjDYN_NONE:
            b.set_actuator_dynamics(aid, _DYNAMICS[dyn], tau=tau, actrange=tuple(float(x) for x in mjm.actuator_actrange[a])
                                    if mjm.actuator_actlimited[a] else None)
        if mjm.actuator_forcelimited[a] and np.isfinite(lo) and np.isfinite(hi):
            b.set_actuator_forcerange(aid, lo, hi)
    return act_map


_W = mujoco.mjtWrap
_SPATIAL_WRAPS = {int(_W.mjWRAP_SITE), int(_W.mjWRAP_PULLEY), int(_W.mjWRAP_SPHERE), int(_W.mjWRAP_CYLINDER)}
_WRAP_GEOMS = {int(_W.mjWRAP_SPHERE): "sphere", int(_W.mjWRAP_CYLINDER): "cylinder"}


def _add_tendon(b, mjm, t: int, unsupported: list[str]) -> int | None:
    """A fixed tendon (Builder.add_fixed_tendon) or a spatial one through sites and pulleys,
    wrapping around spheres and cylinders (Builder.add_spatial_tendon), with its limits,
    stiffness, damping and frictionloss.""" 
    name = _name(mjm, mujoco.mjtObj.mjOBJ_TENDON, t)
    adr, num = int(mjm.tendon_adr[t]), int(mjm.tendon_num[t])
    types = [int(w) for w in mjm.wrap_type[adr:adr + num]]
    fixed = set(types) == {int(_W.mjWRAP_JOINT)}
    if not fixed and not set(types) <= _SPATIAL_WRAPS:  # SHOULD NOT OCCUR: MuJoCo's wrap types
        unsupported.append(f"tendon '{name}': wrap types {sorted(set(types) - _SPATIAL_WRAPS)}")
        return None
    for field in ("tendon_actfrclimited", "tendon_dampingpoly", "tendon_stiffnesspoly"):
        if _nonzero(mjm, field, t):
            unsupported.append(f"tendon '{name}': {field.split('_', 1)[1]}")
    lo, hi = (float(x) for x in mjm.tendon_lengthspring[t])
    common = dict(range=tuple(mjm.tendon_range[t]) if mjm.tendon_limited[t] else None,
                  stiffness=float(mjm.tendon_stiffness[t]), damping=float(mjm.tendon_damping[t]),
                  frictionloss=float(mjm.tendon_frictionloss[t]), springlength=(lo, hi), name=name)
    if fixed:
        joints = [int(j) for j in mjm.wrap_objid[adr:adr + num]]
        coef = [float(c) for c in mjm.wrap_prm[adr:adr + num]]
        return b.add_fixed_tendon(joints, coef, **common)

    def term(k):
        kind = types[k - adr]
        if kind == int(_W.mjWRAP_SITE):
            return int(mjm.wrap_objid[k])
        if kind == int(_W.mjWRAP_PULLEY):
            return ("pulley", float(mjm.wrap_prm[k]))
        return (_WRAP_GEOMS[kind], int(mjm.wrap_objid[k]), int(round(mjm.wrap_prm[k])))  # the side site or -1

    path = [term(k) for k in range(adr, adr + num)]
    return b.add_spatial_tendon(path, **common)


# site types that are solids (touch sensors' zones): MuJoCo's geom type numbers
_SITE_SHAPES = {int(t) for t in (mujoco.mjtGeom.mjGEOM_SPHERE, mujoco.mjtGeom.mjGEOM_CAPSULE,
                                 mujoco.mjtGeom.mjGEOM_ELLIPSOID, mujoco.mjtGeom.mjGEOM_CYLINDER,
                                 mujoco.mjtGeom.mjGEOM_BOX)}
_S = mujoco.mjtSensor
_SENSORS = {_S.mjSENS_TOUCH: "touch", _S.mjSENS_JOINTPOS: "jointpos", _S.mjSENS_JOINTVEL: "jointvel",
            _S.mjSENS_TENDONPOS: "tendonpos", _S.mjSENS_TENDONVEL: "tendonvel",
            _S.mjSENS_ACTUATORPOS: "actuatorpos", _S.mjSENS_ACTUATORVEL: "actuatorvel",
            _S.mjSENS_ACTUATORFRC: "actuatorfrc", _S.mjSENS_FRAMEPOS: "framepos", _S.mjSENS_FRAMEQUAT: "framequat",
            _S.mjSENS_GYRO: "gyro", _S.mjSENS_VELOCIMETER: "velocimeter", _S.mjSENS_FRAMELINVEL: "framelinvel",
            _S.mjSENS_FRAMEANGVEL: "frameangvel", _S.mjSENS_FRAMEXAXIS: "framexaxis",
            _S.mjSENS_FRAMEYAXIS: "frameyaxis", _S.mjSENS_FRAMEZAXIS: "framezaxis",
            _S.mjSENS_SUBTREECOM: "subtreecom", _S.mjSENS_SUBTREELINVEL: "subtreelinvel",
            _S.mjSENS_SUBTREEANGMOM: "subtreeangmom", _S.mjSENS_ACCELEROMETER: "accelerometer",
            _S.mjSENS_FORCE: "force", _S.mjSENS_TORQUE: "torque"}
_FRAME_SENSORS = (_S.mjSENS_FRAMEPOS, _S.mjSENS_FRAMEQUAT, _S.mjSENS_FRAMELINVEL, _S.mjSENS_FRAMEANGVEL,
                  _S.mjSENS_FRAMEXAXIS, _S.mjSENS_FRAMEYAXIS, _S.mjSENS_FRAMEZAXIS)
_FRAME_OBJECTS = {int(mujoco.mjtObj.mjOBJ_SITE): 0, int(mujoco.mjtObj.mjOBJ_BODY): 1,
                  int(mujoco.mjtObj.mjOBJ_XBODY): 2, int(mujoco.mjtObj.mjOBJ_GEOM): 3}


def _add_sensor(b, mjm, k: int, act_map: dict, tendon_map: dict, unsupported: list[str]) -> None:
    """MuJoCo sensor k as an ncpgym sensor in the same sensordata layout (batch/sensors.hpp),
    or a refusal naming it: types not computed yet, noise, frame sensors relative to another
    frame, and sensors of what was itself refused (an actuator, a spatial tendon)."""
    name = _name(mjm, mujoco.mjtObj.mjOBJ_SENSOR, k)
    kind = mujoco.mjtSensor(mjm.sensor_type[k])
    who = f"sensor '{name}' ({kind.name})"
    obj, objtype = int(mjm.sensor_objid[k]), int(mjm.sensor_objtype[k])
    if kind not in _SENSORS:
        unsupported.append(f"{who}: this sensor type is not computed yet")
        return
    if mjm.sensor_noise[k] != 0:
        unsupported.append(f"{who}: noise {mjm.sensor_noise[k]:g}")
        return
    if int(mjm.sensor_refid[k]) >= 0:
        unsupported.append(f"{who}: measured in another object's frame (reftype)")
        return
    for field in ("sensor_delay", "sensor_interval"):
        if _nonzero(mjm, field, k):
            unsupported.append(f"{who}: {field.split('_')[1]} (MuJoCo 4)")
            return
    scale, frame = 1.0, 0
    if kind in (_S.mjSENS_ACTUATORPOS, _S.mjSENS_ACTUATORVEL, _S.mjSENS_ACTUATORFRC):
        if obj not in act_map:
            unsupported.append(f"{who}: its actuator is not loaded")
            return
        obj, gain = act_map[obj]
        scale = gain if kind == _S.mjSENS_ACTUATORFRC else 1.0 / gain
    elif kind in (_S.mjSENS_TENDONPOS, _S.mjSENS_TENDONVEL):
        if obj not in tendon_map:
            unsupported.append(f"{who}: its tendon is not loaded (spatial)")
            return
        obj = tendon_map[obj]
    elif kind in (_S.mjSENS_JOINTPOS, _S.mjSENS_JOINTVEL):
        if int(mjm.jnt_type[obj]) not in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)):
            unsupported.append(f"{who}: on a {mujoco.mjtJoint(mjm.jnt_type[obj]).name} joint")
            return
    elif kind in _FRAME_SENSORS:
        if objtype not in _FRAME_OBJECTS:
            unsupported.append(f"{who}: of a {mujoco.mjtObj(objtype).name}")
            return
        frame = _FRAME_OBJECTS[objtype]
    b.add_sensor(_SENSORS[kind], obj, objtype=frame, cutoff=float(mjm.sensor_cutoff[k]), scale=scale, name=name)


_D = mujoco.mjtDisableBit
_E = mujoco.mjtEnableBit
# flags that change only MuJoCo's own numerics or outputs (its solver, collision midphase and
# CCD, Euler's implicit damping: ncpgym's damping is implicit anyway, its sensor switch)
_IGNORED_FLAGS = (_D.mjDSBL_WARMSTART, _D.mjDSBL_REFSAFE, _D.mjDSBL_SENSOR, _D.mjDSBL_MIDPHASE,
                  _D.mjDSBL_EULERDAMP, _D.mjDSBL_AUTORESET, _D.mjDSBL_NATIVECCD, _D.mjDSBL_ISLAND,
                  _D.mjDSBL_MULTICCD)
_REFUSED_FLAGS = {_D.mjDSBL_FILTERPARENT: "parent-child contacts (filterparent disabled)",
                  _D.mjDSBL_ACTUATION: "actuation disabled"}
_REFUSED_ENABLE = {_E.mjENBL_OVERRIDE: "contact parameter override", _E.mjENBL_SLEEP: "sleeping bodies",
                   _E.mjENBL_IPC: "incremental potential contact"}


def _apply_option_flags(mjm: mujoco.MjModel, unsupported: list[str], notes: list[str]):
    """MuJoCo's <option><flag> switches, as a copy of the compiled model with what they turn
    off removed (so the rest of the loader reads what MuJoCo simulates): gravity, contacts
    (no geom collides), limits, equalities, dry friction, springs, dampers, all constraints,
    control clamping. Flags of MuJoCo's own numerics are ignored (noted); parent-child
    contacts, disabled actuation, contact overrides, sleeping and IPC are refused. Returns the
    model and whether contacts are off (explicit pairs too)."""
    dis, en = int(mjm.opt.disableflags), int(mjm.opt.enableflags)
    if not dis and not en:
        return mjm, False
    on = lambda bit: bool(dis & int(bit))
    for bit, what in _REFUSED_FLAGS.items():
        if on(bit):
            unsupported.append(f"option flag: {what}")
    for bit, what in _REFUSED_ENABLE.items():
        if en & int(bit):
            unsupported.append(f"option flag: {what}")
    for bit in _IGNORED_FLAGS:
        if on(bit):
            notes.append(f"option flag {bit.name} concerns MuJoCo's own numerics and is ignored")
    m = copy.copy(mjm)
    constraints = on(_D.mjDSBL_CONSTRAINT)
    if on(_D.mjDSBL_GRAVITY):
        m.opt.gravity[:] = 0
    contacts_off = constraints or on(_D.mjDSBL_CONTACT)
    if contacts_off:
        m.geom_contype[:] = 0
        m.geom_conaffinity[:] = 0
    if constraints or on(_D.mjDSBL_LIMIT):
        m.jnt_limited[:] = 0
        m.tendon_limited[:] = 0
    if constraints or on(_D.mjDSBL_FRICTIONLOSS):
        m.dof_frictionloss[:] = 0
        m.tendon_frictionloss[:] = 0
    if constraints or on(_D.mjDSBL_EQUALITY):
        m.eq_active0[:] = 0  # the rows stay, switched off (Batch.eq_active can switch them on)
    # fluid forces are passive forces too: MuJoCo drops them only with both switches off
    if on(_D.mjDSBL_SPRING) and on(_D.mjDSBL_DAMPER):
        m.opt.density, m.opt.viscosity = 0.0, 0.0
    if on(_D.mjDSBL_SPRING):
        m.jnt_stiffness[:] = 0
        m.tendon_stiffness[:] = 0
    if on(_D.mjDSBL_DAMPER):
        m.dof_damping[:] = 0
        m.tendon_damping[:] = 0
    if on(_D.mjDSBL_CLAMPCTRL):
        m.actuator_ctrllimited[:] = 0
    return m, contacts_off


def _can_collide(mjm: mujoco.MjModel, g: int) -> bool:
    """Geom g takes part in collisions (a contact bit set: MuJoCo's filter can pair it)."""
    return bool(mjm.geom_contype[g] or mjm.geom_conaffinity[g])


def _mesh_parts(b, mjm, g: int, meshes: dict, mode: str, threshold: float) -> list[int]:
    """ncpgym mesh ids for mesh geom g: its mesh as one convex hull, or its convex parts
    when it can collide and ``mode`` asks for them (added once per mesh and choice)."""
    mid = int(mjm.geom_dataid[g])
    key = (mid, _can_collide(mjm, g) and decompose.wanted(mjm, mid, mode))
    if key not in meshes:
        name = _name(mjm, mujoco.mjtObj.mjOBJ_MESH, mid)
        vertices, faces = decompose.mesh_arrays(mjm, mid)
        if key[1]:
            parts = _decomposed(name, vertices, faces, threshold)
            hulls = [convex_hull(v) for v in parts]
        else:  # MuJoCo's own hull of the mesh (qhull); it makes none for meshes no geom
            # collides with, so those get one from the same compiler here
            hull = hull_triangles(mjm, mid)
            parts, hulls = [vertices], [convex_hull(vertices) if hull is None else hull]
        meshes[key] = [b.add_mesh(v, _part_name(name, k, len(parts)), hull=h)
                       for k, (v, h) in enumerate(zip(parts, hulls))]
    return meshes[key]


def _decomposed(name: str, vertices, faces, threshold: float) -> list[np.ndarray]:
    start = time.perf_counter()
    parts, cached = decompose.convex_parts(vertices, faces, threshold)
    log.info("mesh '%s': %d convex parts (%.2f s, cache %s)", name, len(parts),
             time.perf_counter() - start, "hit" if cached else "miss")
    return parts


def _check_contact_parameters(mjm: mujoco.MjModel, unsupported: list[str]) -> list[int]:
    """Each geom's condim, friction, priority and margin, and each explicit pair's, are kept
    and resolved per contact as MuJoCo does (ncpgym/collision/contact_params.hpp). Refused:
    a nonzero gap (MuJoCo's documentation has contacts active below margin - gap; MuJoCo
    4.0.1 activates them below the margin alone) and a pair whose two sliding (or two
    rolling) coefficients differ (anisotropic friction), and a geom pair listed twice with
    different parameters (listed twice with the same ones, as the Shadow hand's
    C_rfdistal-C_lfdistal, it is one pair: under hard contact a second copy of the same rows
    adds no constraint). Returns the pairs to add: each geom pair's first listing."""
    name = lambda obj, i: _name(mjm, obj, i)
    for g in range(mjm.ngeom):
        if _can_collide(mjm, g) and mjm.geom_gap[g] != 0:
            unsupported.append(f"geom '{name(mujoco.mjtObj.mjOBJ_GEOM, g)}': gap {mjm.geom_gap[g]:g}")
    seen: dict[tuple[int, int], tuple] = {}
    first = []
    for p in range(mjm.npair):
        g1, g2 = int(mjm.pair_geom1[p]), int(mjm.pair_geom2[p])
        key = (min(g1, g2), max(g1, g2))
        params = (int(mjm.pair_dim[p]), tuple(mjm.pair_friction[p]), float(mjm.pair_margin[p]),
                  float(mjm.pair_gap[p]))
        if key not in seen:
            seen[key] = params
            first.append(p)
        elif seen[key] != params:
            unsupported.append(f"contact pair {p}: geoms {key} listed twice with different parameters")
    for p in range(mjm.npair):
        who = f"contact pair '{name(mujoco.mjtObj.mjOBJ_PAIR, p)}' ({p})"
        f = mjm.pair_friction[p]
        if f[0] != f[1] or f[3] != f[4]:
            unsupported.append(f"{who}: anisotropic friction {tuple(float(x) for x in f)}")
        if mjm.pair_gap[p] != 0:
            unsupported.append(f"{who}: gap {mjm.pair_gap[p]:g}")
    return first


def _add_contact_pairs(b, mjm, pairs: list[int], parts: dict[int, list[int]]) -> None:
    """MuJoCo's explicit pairs ``pairs`` (each geom pair once: _check_contact_parameters); a
    geom split into convex parts pairs each part (``parts``: geom id -> ncpgym ids of its
    other parts)."""
    for p in pairs:
        f = mjm.pair_friction[p]
        g1, g2 = int(mjm.pair_geom1[p]), int(mjm.pair_geom2[p])
        for a in [g1] + parts.get(g1, []):
            for c in [g2] + parts.get(g2, []):
                b.add_contact_pair(a, c, condim=int(mjm.pair_dim[p]), friction=np.array([f[0], f[2], f[3]], dtype=float),
                                   margin=float(mjm.pair_margin[p]))


_IDENTITY_QUAT = np.array([1.0, 0.0, 0.0, 0.0])


def _inertia_quat(mjm, body: int) -> np.ndarray:
    """The rotation of ``body``'s inertial frame as MuJoCo's kinematics use it: its compiler marks
    an inertial frame within 1e-6 of the body's (``body_sameframe``: BODY or BODYROT) and then
    takes the body's own rotation, dropping the small one it stored (rtb-data's pincher arms
    carry 1.4e-6 rad, which moves their mass matrix by 2e-8 relative)."""
    sf = int(mjm.body_sameframe[body])
    same = (mujoco.mjtSameFrame.mjSAMEFRAME_BODY, mujoco.mjtSameFrame.mjSAMEFRAME_BODYROT)
    return _IDENTITY_QUAT.copy() if sf in same else np.array(mjm.body_iquat[body], dtype=float)


def _local_frame(mjm, sameframe: int, body: int, pos, quat) -> tuple[np.ndarray, np.ndarray]:
    """A geom's or site's pose in its body's frame as MuJoCo's kinematics place it: one its
    compiler found to coincide (within 1e-6) with the body's frame or its inertial frame takes
    that frame's position or rotation (``mjtSameFrame``) instead of its own stored one."""
    S = mujoco.mjtSameFrame
    pos, quat = np.array(pos, dtype=float), np.array(quat, dtype=float)
    if sameframe == S.mjSAMEFRAME_BODY:
        return np.zeros(3), _IDENTITY_QUAT.copy()
    if sameframe == S.mjSAMEFRAME_INERTIA:
        return np.array(mjm.body_ipos[body], dtype=float), _inertia_quat(mjm, body)
    if sameframe == S.mjSAMEFRAME_BODYROT:
        return pos, _IDENTITY_QUAT.copy()
    if sameframe == S.mjSAMEFRAME_INERTIAROT:
        return pos, _inertia_quat(mjm, body)
    return pos, quat


def _add_geom_part(b, mjm, g: int, gtype: str, mesh: int, name: str) -> None:
    body = int(mjm.geom_bodyid[g])
    pos, quat = _local_frame(mjm, int(mjm.geom_sameframe[g]), body, mjm.geom_pos[g], mjm.geom_quat[g])
    b.add_geom(body, gtype, size=mjm.geom_size[g], pos=pos,
               quat=quat, friction=np.array(mjm.geom_friction[g], dtype=float),
               contype=int(mjm.geom_contype[g]), conaffinity=int(mjm.geom_conaffinity[g]),
               mesh=mesh, name=name, condim=int(mjm.geom_condim[g]), priority=int(mjm.geom_priority[g]),
               margin=float(mjm.geom_margin[g]))


def _fluid_semi_axes(mjm, g: int) -> np.ndarray:
    """The semi-axes of the ellipsoid MuJoCo's fluid model puts in place of geom ``g``: a sphere's
    radius thrice, a capsule's or a cylinder's radius twice and its half-length (plus the radius
    for a capsule's caps) along z, and otherwise the geom's sizes (a box's half-sides, a mesh's
    inertia box)."""
    s, t, G = np.asarray(mjm.geom_size[g], dtype=float), int(mjm.geom_type[g]), mujoco.mjtGeom
    if t == G.mjGEOM_SPHERE:
        return np.full(3, s[0])
    if t == G.mjGEOM_CAPSULE:
        return np.array([s[0], s[0], s[1] + s[0]])
    if t == G.mjGEOM_CYLINDER:
        return np.array([s[0], s[0], s[1]])
    return s.copy()


def _add_geom_fluid(b, mjm) -> None:
    """MuJoCo's ellipsoid fluid model on the geoms with fluidshape="ellipsoid", with the added
    mass and moments MuJoCo's compiler integrated (geom_fluid: flag, five coefficients, added mass
    and moments per unit density). Geom ids agree with MuJoCo's (the first part of a split mesh
    keeps its geom's id, and the wrench is the whole geom's)."""
    for g in np.flatnonzero(np.asarray(mjm.geom_fluid)[:, 0] != 0):
        f = np.asarray(mjm.geom_fluid[g], dtype=float)
        b.set_geom_fluid(int(g), _fluid_semi_axes(mjm, g), f[1:6], f[6:9], f[9:12])


def _part_name(name: str, k: int, nparts: int) -> str:
    return f"{name}/part{k}" if name and nparts > 1 else name


def from_mujoco(
    mjm: mujoco.MjModel,
    *,
    source: str = "<MjModel>",
    strict: bool = True,
    convex_decomposition: str = "auto",
    coacd_threshold: float = 0.05,
    decompose_geoms: Iterable[str] = (),
) -> _core.Model:
    """Convert a compiled MuJoCo model into an ncpgym Model (same body, joint and dof
    order, so qpos/qvel arrays carry over unchanged). ``strict``, ``convex_decomposition``,
    ``coacd_threshold`` and ``decompose_geoms`` as in :func:`load_model`; the first part of
    a decomposed mesh keeps its geom's id and the other parts are appended after MuJoCo's
    geoms, so every geom id of MuJoCo's model means the same geom here."""
    b = mujoco_builder(mjm, source=source, strict=strict, convex_decomposition=convex_decomposition,
                       coacd_threshold=coacd_threshold, decompose_geoms=decompose_geoms)
    return built(b, source)


def built(b: _core.Builder, source: str) -> _core.Model:
    """``b.build()`` with the builder's complaints reported as a ModelError about ``source``."""
    try:
        return b.build()
    except ValueError as e:
        raise ModelError(f"{source}: {e}") from None


def mujoco_builder(
    mjm: mujoco.MjModel,
    *,
    source: str = "<MjModel>",
    strict: bool = True,
    convex_decomposition: str = "auto",
    coacd_threshold: float = 0.05,
    decompose_geoms: Iterable[str] = (),
) -> _core.Builder:
    """The Builder that :func:`from_mujoco` builds, before ``build()``: worlds that add
    what MJCF cannot say (soft bodies, ncpgym.envs.allegro) to a compiled robot."""
    decompose.check_options(convex_decomposition, coacd_threshold)
    forced = set(decompose_geoms)
    for name in sorted(forced):
        g = mujoco.mj_name2id(mjm, mujoco.mjtObj.mjOBJ_GEOM, name)
        if g < 0 or mjm.geom_type[g] != mujoco.mjtGeom.mjGEOM_MESH:
            raise ValueError(f"decompose_geoms: {name!r} is not a mesh geom of {source}")
    unsupported: list[str] = []
    notes: list[str] = []
    ob = mujoco.mjtObj
    mjm, contacts_off = _apply_option_flags(mjm, unsupported, notes)
    b = _core.Builder()
    b.set_gravity(np.array(mjm.opt.gravity, dtype=float))
    b.set_timestep(float(mjm.opt.timestep))
    # wind acts only through the medium's density and viscosity (without them MuJoCo
    # applies no fluid force however strong the wind)
    # MuJoCo's inertia-box model, and its ellipsoid model on the geoms whose fluidshape asks for it
    # (ncpgym/dynamics/fluid.hpp; set on the geoms below)
    fluid = mjm.opt.density != 0 or mjm.opt.viscosity != 0
    if fluid:
        b.set_fluid(float(mjm.opt.density), float(mjm.opt.viscosity), np.array(mjm.opt.wind, dtype=float))

    # bodies (MuJoCo's body order is topological: parent id < child id)
    for i in range(1, mjm.nbody):
        name = _name(mjm, ob.mjOBJ_BODY, i)
        iquat = _inertia_quat(mjm, i)
        ipos = np.zeros(3) if mjm.body_sameframe[i] == mujoco.mjtSameFrame.mjSAMEFRAME_BODY else mjm.body_ipos[i]
        R = np.zeros(9)
        mujoco.mju_quat2Mat(R, iquat)
        R = R.reshape(3, 3)
        inertia = R @ np.diag(mjm.body_inertia[i]) @ R.T
        bid = b.add_body(int(mjm.body_parentid[i]), mjm.body_pos[i], mjm.body_quat[i],
                         float(mjm.body_mass[i]), ipos, inertia, name)
        assert bid == i
        # MuJoCo's principal axes: fluid drag depends on them where two moments are equal
        b.set_principal_inertia(bid, iquat, np.array(mjm.body_inertia[i], dtype=float))
        if mjm.body_mocapid[i] >= 0:
            b.set_mocap(bid)
        if mjm.body_gravcomp[i] != 0:
            b.set_gravcomp(bid, float(mjm.body_gravcomp[i]))

    # joints (MuJoCo's URDF import turns every joint's effort limit into an actuatorfrcrange)
    actuated = {int(mjm.actuator_trnid[a, 0]) for a in range(mjm.nu)
                if mjm.actuator_trntype[a] == mujoco.mjtTrn.mjTRN_JOINT}
    for j in range(mjm.njnt):
        name = _name(mjm, ob.mjOBJ_JOINT, j)
        jtype = _JOINT_TYPES[int(mjm.jnt_type[j])]
        qa, da = int(mjm.jnt_qposadr[j]), int(mjm.jnt_dofadr[j])
        scalar = jtype in ("hinge", "slide")
        ndof = {"free": 6, "ball": 3}.get(jtype, 1)
        if mjm.jnt_actgravcomp[j]:
            unsupported.append(f"joint '{name}': actuatorgravcomp (gravity compensation through "
                               "the actuators, clamped by their force range)")
        if _nonzero(mjm, "jnt_actfrclimited", j) and j in actuated:  # no actuator: no clamp
            unsupported.append(f"joint '{name}': actuatorfrcrange (the actuators' total force on "
                               "the joint clamped)")
        if _nonzero(mjm, "dof_dampingpoly", slice(da, da + ndof)) or _nonzero(mjm, "jnt_stiffnesspoly", j):
            unsupported.append(f"joint '{name}': polynomial damping or stiffness (MuJoCo 4)")
        stiffness = float(mjm.jnt_stiffness[j])
        if stiffness != 0 and not scalar:
            unsupported.append(f"joint '{name}': stiffness on a {jtype} joint")
            stiffness = 0.0
        damping = mjm.dof_damping[da:da + ndof]
        armature = mjm.dof_armature[da:da + ndof]
        if np.ptp(damping) != 0 or np.ptp(armature) != 0:
            unsupported.append(f"joint '{name}': per-dof damping/armature differ within the joint")
        limited = bool(mjm.jnt_limited[j]) and jtype != "free"
        if limited and jtype == "ball":
            unsupported.append(f"joint '{name}': limits on a ball joint")
            limited = False
        b.add_joint(
            int(mjm.jnt_bodyid[j]), jtype, pos=mjm.jnt_pos[j], axis=mjm.jnt_axis[j],
            ref=float(mjm.qpos0[qa]) if scalar else 0.0, stiffness=stiffness,
            springref=float(mjm.qpos_spring[qa]) if scalar else 0.0,
            damping=float(damping[0]), armature=float(armature[0]),
            frictionloss=float(mjm.dof_frictionloss[da]),
            range=tuple(mjm.jnt_range[j]) if limited else None, name=name)

    for s in range(mjm.nsite):
        body = int(mjm.site_bodyid[s])
        b.add_site(body, *_local_frame(mjm, int(mjm.site_sameframe[s]), body, mjm.site_pos[s], mjm.site_quat[s]),
                   _name(mjm, ob.mjOBJ_SITE, s))
        if int(mjm.site_type[s]) in _SITE_SHAPES:  # the zone of touch sensors
            b.set_site_shape(s, int(mjm.site_type[s]), np.array(mjm.site_size[s], dtype=float))


    # meshes and geoms (a concave mesh becomes one geom per convex part: decompose.py; the
    # first part keeps the geom's id, the others follow all of MuJoCo's geoms, so geom ids
    # agree with MuJoCo's)
    meshes: dict[tuple[int, bool], list[int]] = {}
    extra_parts = []
    pairs = _check_contact_parameters(mjm, unsupported)
    for g in range(mjm.ngeom):
        name = _name(mjm, ob.mjOBJ_GEOM, g)
        gtype = _GEOM_TYPES.get(int(mjm.geom_type[g]))
        if gtype is None:
            unsupported.append(f"geom '{name}': type {mujoco.mjtGeom(mjm.geom_type[g]).name}")
            continue
        parts = [-1]
        if gtype == "mesh":
            mode = "all" if name in forced else convex_decomposition
            parts = _mesh_parts(b, mjm, g, meshes, mode, coacd_threshold)
        _add_geom_part(b, mjm, g, gtype, parts[0], _part_name(name, 0, len(parts)))
        extra_parts += [(g, mesh, _part_name(name, k + 1, len(parts)))
                        for k, mesh in enumerate(parts[1:])]
    parts_of: dict[int, list[int]] = {}
    for k, (g, mesh, name) in enumerate(extra_parts):
        _add_geom_part(b, mjm, g, "mesh", mesh, name)
        parts_of.setdefault(g, []).append(mjm.ngeom + k)
    if not contacts_off:
        _add_contact_pairs(b, mjm, pairs, parts_of)
    if fluid:
        _add_geom_fluid(b, mjm)

    # tendons after the sites and geoms their paths name
    tendon_map = {t: k for t in range(mjm.ntendon)
                  if (k := _add_tendon(b, mjm, t, unsupported)) is not None}
    act_map = _add_actuators(b, mjm, tendon_map, unsupported)

    for e in range(mjm.neq):
        _add_equality(b, mjm, e, unsupported, tendon_map)
    for sig in mjm.exclude_signature[:mjm.nexclude]:
        b.exclude_bodies(int(sig) >> 16, int(sig) & 0xFFFF)

    for k in range(mjm.nsensor):  # never dropped silently: computed, or refused
        _add_sensor(b, mjm, k, act_map, tendon_map, unsupported)
    for n in notes:
        log.info("%s: %s", source, n)
    if unsupported:
        if strict:
            raise UnsupportedFeatureError(
                f"{source}: features ncpgym does not support yet (load with strict=False to "
                "drop them):\n  " + "\n  ".join(unsupported))
        for u in unsupported:
            log.warning("%s: dropped unsupported feature: %s", source, u)
    return b
