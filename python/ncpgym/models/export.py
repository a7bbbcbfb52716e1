"""Write an ncpgym Model as MJCF, so that MuJoCo can run exactly the same scene (used to
compare engines in benchmarks and to cross-check the converter in tests)."""

from __future__ import annotations

import numpy as np

from .. import _core

_GEOM = {0: "plane", 2: "sphere", 3: "capsule", 4: "ellipsoid", 5: "cylinder", 6: "box", 7: "mesh"}
_JOINT = {0: "free", 1: "ball", 2: "slide", 3: "hinge"}


def _f(v) -> str:
    return " ".join(repr(float(x)) for x in np.ravel(v))


def to_mjcf(model: _core.Model, *, solref: str | None = None, solimp: str | None = None) -> str:
    """MJCF text for `model` (meshes inline as vertex lists). Angles in radians; joint damping,
    armature, stiffness, limits, geom friction and the actuators (motors and position
    servos on joints, with their gear, gains and control ranges) carried over; joints are
    named j<id>, bodies b<id>; `solref` / `solimp` (e.g. "0.002 1" / "0.99 0.999 0.0001")
    are applied to every geom when given."""
    children: dict[int, list[int]] = {}
    for b in range(1, model.nbody):
        children.setdefault(int(model.body_parent[b]), []).append(b)
    extra = (f' solref="{solref}"' if solref else "") + (f' solimp="{solimp}"' if solimp else "")

    def geoms(body: int, indent: str) -> str:
        out = ""
        for g in np.nonzero(model.geom_body == body)[0]:
            t = _GEOM[int(model.geom_type[g])]
            size = model.geom_size[g]
            size = size[:1] if t == "sphere" else size[:2] if t in ("capsule", "cylinder") else \
                [5, 5, 0.1] if t == "plane" else size
            shape = f'mesh="mesh{int(model.geom_mesh[g])}"' if t == "mesh" else f'size="{_f(size)}"'
            out += (f'{indent}<geom type="{t}" {shape} pos="{_f(model.geom_pos[g])}" '
                    f'quat="{_f(model.geom_quat[g])}" friction="{_f(model.geom_friction[g])}" '
                    f'contype="{int(model.geom_contype[g])}" conaffinity="{int(model.geom_conaffinity[g])}" '
                    f'mass="0"{extra}/>\n')
        return out

    def body_xml(b: int, indent: str) -> str:
        I = model.body_inertia[b]
        mocap = ' mocap="true"' if model.body_mocapid[b] >= 0 else ""
        if model.body_gravcomp[b] != 0:
            mocap += f' gravcomp="{float(model.body_gravcomp[b])!r}"'
        s = (f'{indent}<body name="b{b}" pos="{_f(model.body_pos[b])}" quat="{_f(model.body_quat[b])}"{mocap}>\n'
             f'{indent}  <inertial pos="{_f(model.body_com[b])}" mass="{float(model.body_mass[b])!r}" '
             f'fullinertia="{_f([I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]])}"/>\n')
        for j in np.nonzero(model.jnt_body == b)[0]:
            t = _JOINT[int(model.jnt_type[j])]
            dof = model.jnt_dofadr[j]
            # <joint type="free">, not <freejoint/>: a free joint has damping and armature
            # too, which <freejoint/> does not take (MuJoCo ignores a free joint's pos, axis)
            attrs = (f'name="j{j}" type="{t}" pos="{_f(model.jnt_pos[j])}" axis="{_f(model.jnt_axis[j])}" '
                     f'damping="{float(model.dof_damping[dof])!r}" armature="{float(model.dof_armature[dof])!r}"')
            if t in ("hinge", "slide"):
                attrs += (f' ref="{float(model.jnt_ref[j])!r}" stiffness="{float(model.jnt_stiffness[j])!r}" '
                          f'springref="{float(model.jnt_springref[j])!r}"')
            if model.jnt_limited[j]:
                attrs += f' limited="true" range="{_f(model.jnt_range[j])}"'
            s += f"{indent}  <joint {attrs}/>\n"
        s += geoms(b, indent + "  ")
        for c in children.get(b, []):
            s += body_xml(c, indent + "  ")
        return s + f"{indent}</body>\n"

    world = geoms(0, "    ") + "".join(body_xml(b, "    ") for b in children.get(0, []))
    assets = "".join(f'    <mesh name="mesh{i}" vertex="{_f(model.mesh_vertices(i))}"/>\n'
                     for i in range(model.nmesh))
    assets = f"  <asset>\n{assets}  </asset>\n" if assets else ""
    g = model.gravity
    return (f'<mujoco model="ncpgym">\n  <compiler angle="radian" inertiafromgeom="false"/>\n'
            f'  <option timestep="{model.timestep!r}" gravity="{_f(g)}"/>\n{assets}'
            f"  <worldbody>\n{world}  </worldbody>\n{_actuators(model)}</mujoco>\n")


def _actuators(model: _core.Model) -> str:
    """Motors (torque gear x ctrl: MuJoCo's gain 1 with that gear) and position servos
    (gear (kp ctrl - kp gear q - kv gear qdot), as MuJoCo's <position kp kv>)."""
    out = ""
    for a in range(model.nu):
        j = int(model.actuator_joint[a])
        if j < 0:  # a tendon's actuator: the export carries no tendons (rendering needs none)
            continue
        attrs = f'joint="j{j}" gear="{float(model.actuator_gear[a])!r}"'
        if model.actuator_ctrllimited[a]:
            attrs += f' ctrllimited="true" ctrlrange="{_f(model.actuator_ctrlrange[a])}"'
        if int(model.actuator_type[a]) == 0:
            out += f"    <motor {attrs}/>\n"
        else:
            out += (f'    <position {attrs} kp="{float(model.actuator_kp[a])!r}" '
                    f'kv="{float(model.actuator_kv[a])!r}"/>\n')
    return f"  <actuator>\n{out}  </actuator>\n" if out else ""
