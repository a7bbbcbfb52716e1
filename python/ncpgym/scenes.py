"""Validation scenes of Macklin et al. 2019 built with the Builder API (rocks: written
as MJCF and compiled by MuJoCo for the hulls' mass properties), used by the tests and
benchmarks/contact_scenes.py."""

from __future__ import annotations

import numpy as np

from ._core import Builder, Model


def _box_inertia(mass, half):
    x, y, z = 2 * np.asarray(half, dtype=float)
    return mass / 12.0 * np.diag([y * y + z * z, x * x + z * z, x * x + y * y])


def _quat_x(angle):
    return np.array([np.cos(angle / 2), np.sin(angle / 2), 0.0, 0.0])


def incline(theta: float, mu: float, half=0.1, mass=1.0, timestep=1 / 120,
            newton_iterations=None) -> tuple[Model, np.ndarray]:
    """A box resting on a plane tilted by `theta` about x. Returns the model and the
    initial qpos (box on the plane, aligned with it). `newton_iterations`, if given, is
    the model's count (Builder.set_solver_iterations; the seed's Table 2 sets counts per
    scene). The default 8 hold the block with the warm start (solver option warm_start);
    from lambda = 0 every friction row is inactive in the first iterate, the block slides
    there, and the lagged W of eq. 104 brings the slip back only linearly: 8 damped
    iterations leave a creep of ~5e-5 m/s, 12 remove it (the count this scene asked for
    before session 31)."""
    b = Builder()
    b.set_timestep(timestep)
    if newton_iterations:
        b.set_solver_iterations(newton=newton_iterations)
    quat = _quat_x(theta)
    b.add_geom(0, "plane", quat=quat, friction=[mu, 0, 0], name="incline")
    hs = np.full(3, half)
    body = b.add_body(0, mass=mass, inertia=_box_inertia(mass, hs), name="box")
    b.add_joint(body, "free")
    b.add_geom(body, "box", size=hs, friction=[mu, 0, 0], name="box")
    normal = np.array([0.0, -np.sin(theta), np.cos(theta)])
    q0 = np.concatenate([normal * half, quat])
    return b.build(), q0


def heavy_stack(masses=(8, 64, 512, 4096, 32768), half=0.2, mu=0.5, timestep=1 / 120):
    """Boxes stacked on the ground with geometrically increasing masses (seed §10.1.5).
    Returns the model and the initial qpos (resting, touching)."""
    b = Builder()
    b.set_timestep(timestep)
    b.add_geom(0, "plane", friction=[mu, 0, 0], name="ground")
    hs = np.full(3, half)
    q0 = []
    for i, m in enumerate(masses):
        body = b.add_body(0, mass=float(m), inertia=_box_inertia(m, hs), name=f"box{i}")
        b.add_joint(body, "free")
        b.add_geom(body, "box", size=hs, friction=[mu, 0, 0], name=f"box{i}")
        q0 += [0.0, 0.0, half * (2 * i + 1), 1.0, 0.0, 0.0, 0.0]
    return b.build(), np.array(q0)


def stiff_chain(n=16, mass=0.003, stiffness=250.0, link=0.05, damping=0.0, timestep=1 / 120):
    """A horizontal cantilever of `n` links (Fetch-beam-like) along +x, each joined to the
    previous (the first to the world) by a hinge about y with a torsional spring. Each
    link's mass sits at its midpoint; the site 'tip' marks the free end."""
    b = Builder()
    b.set_timestep(timestep)
    parent = 0
    rod = mass * link * link / 12.0
    for i in range(n):
        body = b.add_body(parent, pos=[0.0 if i == 0 else link, 0, 0], mass=mass,
                          com=[link / 2, 0, 0], inertia=np.diag([1e-9, rod, rod]), name=f"link{i}")
        b.add_joint(body, "hinge", axis=[0, 1, 0], stiffness=stiffness, damping=damping,
                    name=f"bend{i}")
        parent = body
    b.add_site(parent, pos=[link, 0, 0], name="tip")
    return b.build()


def stiff_chain_deflection(n=16, mass=0.003, stiffness=250.0, link=0.05, g=9.81):
    """Small-deflection tip displacement of stiff_chain under gravity: joint i carries the
    moment of the links outboard, M_i = sum_j m g (x_j + l/2 - x_i), turns by M_i / k, and
    moves the tip by theta_i (L - x_i)."""
    x = link * np.arange(n)
    L = link * n
    moments = np.array([mass * g * np.sum(x[i:] + link / 2 - x[i]) for i in range(n)])
    return float(np.sum(moments / stiffness * (L - x)))


BEAM = dict(n=16, mass=0.003, stiffness=250.0, link=0.0125, width=0.006, thickness=0.006)  # FetchBeamInsert-v0's


def fetch_beam(n=16, mass=0.003, stiffness=250.0, link=0.0125, width=0.006, thickness=0.006,
               support_x=None, tip_mass=0.0, timestep=1 / 120, gravity=9.81):
    """The seed's Fetch Beam without the robot (Macklin et al. 2019 §10.1.2: 16 rigid
    bodies of 3 g joined with 250 N m/rad bending springs; the link size of
    FetchBeamInsert-v0's beam, bending in one plane): a horizontal cantilever of `n`
    box links (`link` long, `width` x `thickness` in section) along +x from a clamp at the
    origin, each joined to the previous (the first to the world) by a hinge about y with a
    torsional spring, the joints at the links' inner ends. Under the beam a support (a
    capsule across it, radius 5 mm, a mocap body) that a benchmark or test raises into the
    underside of the link above it at `support_x` (default: the last link's middle) to
    bend the beam against its springs through contact. Site 'tip' marks the free end;
    `tip_mass` > 0 hangs a point mass there (a body fixed to the last link: a tip load)."""
    b = Builder()
    b.set_timestep(timestep)
    b.set_gravity(np.array([0.0, 0.0, -gravity]))
    parent = 0
    half = np.array([link / 2, width / 2, thickness / 2])
    for i in range(n):
        body = b.add_body(parent, pos=[0.0 if i == 0 else link, 0, 0], mass=mass, com=[link / 2, 0, 0],
                          inertia=_box_inertia(mass, half), name=f"beam{i}")
        b.add_joint(body, "hinge", axis=[0, 1, 0], stiffness=stiffness, name=f"bend{i}")
        b.add_geom(body, "box", size=half, pos=[link / 2, 0, 0], friction=[0.5, 0, 0], name=f"beam{i}")
        parent = body
    b.add_site(parent, pos=[link, 0, 0], name="tip")
    if tip_mass > 0:
        b.add_body(parent, pos=[link, 0, 0], mass=tip_mass, inertia=np.eye(3) * 1e-9, name="tip_load")
    x = link * (n - 0.5) if support_x is None else float(support_x)
    support = b.add_body(0, pos=[x, 0.0, -thickness / 2 - 0.005 - 0.01], mass=1.0, name="support")
    b.set_mocap(support)
    b.add_geom(support, "capsule", size=[0.005, 2 * width, 0], quat=_quat_x(np.pi / 2), friction=[0.5, 0, 0],
               name="support")
    return b.build()


def fetch_beam_angles(lift, n=16, mass=0.003, stiffness=250.0, link=0.0125, support_x=None, g=9.81):
    """Static joint coordinates (rad; a hinge about +y turns +x towards -z, so lifting the
    beam is negative) of fetch_beam when the support
    lifts the beam's underside at `support_x` by `lift` (m) above where the unloaded,
    gravity-free beam would be, and the support's force F (N), from small-deflection
    statics: joint i at x_i = i l lifts by (F (x_s - x_i) - G_i) / k, G_i = sum over the
    links j >= i of m g (x_j + l/2 - x_i), and the angles of the joints inboard of x_s lift
    the point x_s by sum_i theta_i (x_s - x_i) = lift, which fixes F."""
    x = link * np.arange(n)
    xs = link * (n - 0.5) if support_x is None else float(support_x)
    G = np.array([mass * g * np.sum(x[i:] + link / 2 - x[i]) for i in range(n)])
    arm = np.maximum(xs - x, 0.0)
    F = (stiffness * lift + np.sum(G * arm)) / np.sum(arm * arm)
    return -(F * arm - G) / stiffness, float(F)


def fetch_tomato(n=4, model="neohookean", timestep=0.0083, drop=0.003):
    """The seed's Fetch Tomato without the robot (Macklin et al. 2019 §10.1.1): the
    mechanical scale of ncpgym.envs.scale on a floor and the seed's FEM tomato
    (ncpgym.envs.fetch.add_tomato: Young 0.1 MPa, Poisson 0.45, 1000 kg/m^3, 6 n^3
    tetrahedra) released `drop` m above its plate. Once at rest the needle reads the
    tomato's mass (tests/python/test_scale.py)."""
    from .envs import fetch
    from .envs import scale as sc
    from .models import built, mujoco_builder

    mj = sc.scale_world(timestep)
    b = mujoco_builder(mj, source="ncpgym.scenes.fetch_tomato")
    fetch.add_tomato(b, n=n, model=model, centre=[0.0, 0.0, sc.PLATE_TOP + fetch.TOMATO_RADII[2] + drop])
    return built(b, "ncpgym.scenes.fetch_tomato")


def pile(n=50, seed=0, mu=0.5, timestep=1 / 120):
    """`n` boxes and capsules (alternating, random sizes and orientations) dropped in a
    loose column above the ground, inside four walls. Returns the model and qpos."""
    rng = np.random.default_rng(seed)
    b = Builder()
    b.set_timestep(timestep)
    b.add_geom(0, "plane", friction=[mu, 0, 0], name="ground")
    # walls: planes whose normals (their local z, turned 90 degrees about `axis`) point inwards
    for k, (pos, axis) in enumerate([([1.2, 0, 0], [0, -1, 0]), ([-1.2, 0, 0], [0, 1, 0]),
                                     ([0, 1.2, 0], [1, 0, 0]), ([0, -1.2, 0], [-1, 0, 0])]):
        a = np.asarray(axis, dtype=float) * np.sin(np.pi / 4)
        b.add_geom(0, "plane", pos=pos, quat=[np.cos(np.pi / 4), *a], friction=[mu, 0, 0],
                   name=f"wall{k}")
    q0 = []
    for i in range(n):
        mass = float(rng.uniform(0.5, 2.0))
        if i % 2 == 0:
            hs = rng.uniform(0.08, 0.15, 3)
            geom = dict(type="box", size=hs)
            inertia = _box_inertia(mass, hs)
        else:
            r, hl = rng.uniform(0.05, 0.08), rng.uniform(0.08, 0.15)
            geom = dict(type="capsule", size=[r, hl, 0])
            inertia = np.diag([mass * (3 * r * r + 4 * hl * hl) / 12] * 2 + [mass * r * r / 2])
        body = b.add_body(0, mass=mass, inertia=inertia, name=f"piece{i}")
        b.add_joint(body, "free")
        b.add_geom(body, friction=[mu, 0, 0], **geom)
        quat = rng.normal(size=4)
        layer, slot = divmod(i, 9)
        x, y = (slot % 3 - 1) * 0.6, (slot // 3 - 1) * 0.6
        q0 += [x + rng.uniform(-0.05, 0.05), y + rng.uniform(-0.05, 0.05), 0.3 + 0.45 * layer,
               *(quat / np.linalg.norm(quat))]
    model = b.build()
    return model, np.array(q0)


def hanging_loop_mjcf(n=20, link=0.1, timestep=1 / 120) -> str:
    """MJCF of a chain of n capsule links (0.1 kg, radius 0.01 m, ball joints with damping
    0.01) bent into a half circle from a point 2 m up, its free end connected to the world:
    a closed loop hanging from two points (README's equality scenes, test_equality.py).
    Load it with ``ncpgym.load_model`` or MuJoCo."""
    body = ""
    for i in reversed(range(n)):
        pos = "0 0 2" if i == 0 else f"{link} 0 0"
        turn = np.pi / n / (2 if i == 0 else 1)
        body = (f'<body name="l{i}" pos="{pos}" euler="0 {turn} 0"><joint type="ball" damping="0.01"/>'
                f'<geom type="capsule" fromto="0 0 0 {link} 0 0" size="0.01" mass="0.1" '
                f'contype="0" conaffinity="0"/>{body}</body>')
    return (f'<mujoco><option timestep="{timestep}"/><worldbody>{body}</worldbody><equality>'
            f'<connect body1="l{n - 1}" body2="world" anchor="{link} 0 0"/></equality></mujoco>')


def hanging_chain(n=80, mass=0.01, segment=0.02, compliance=1e-4, timestep=1 / 120):
    """`n` particles joined by compliant distance constraints, the first pinned to the
    world at the origin, hanging straight down at rest length."""
    b = Builder()
    b.set_timestep(timestep)
    ids = [b.add_particle([0.0, 0.0, -segment * i], mass, radius=0.0) for i in range(n)]
    for i in range(n - 1):
        b.add_distance(ids[i], ids[i + 1], compliance=compliance)
    b.add_attachment(ids[0], 0, [0.0, 0.0, 0.0])
    return b.build()


def hanging_chain_static(n=80, mass=0.01, segment=0.02, compliance=1e-4, g=9.81):
    """Static heights of hanging_chain: segment k carries the weight below it and
    stretches by compliance * tension."""
    tension = mass * g * (n - 1 - np.arange(n - 1))
    return -np.concatenate([[0.0], np.cumsum(segment + compliance * tension)])


def arch(n=20, span=4.0, rise=2.0, thickness=0.4, depth=0.5, min_mass=15.0, mu=0.6,
         timestep=1 / 120, masses=None, newton_iterations=None):
    """A self-supporting parabolic arch of `n` voussoirs (convex wedge blocks, seed §10.1.5,
    Fig. 14) between two static abutments that continue the arch below the springing.
    A parabola is the thrust line of a load uniform per horizontal length, so each
    voussoir's mass is proportional to its horizontal extent (the lightest `min_mass`);
    with the default shape the masses span 15..33 kg (the seed's 15..110 kg needs a far
    steeper parabola: rise 3.63 on span 2 gives 15..74). `masses=(crown, springing)`
    instead interpolates linearly in |x|; masses=(15, 110) gives the seed's range.
    `newton_iterations`, if given, is the model's count. The default 8 hold the arch with the
    warm start (seed masses: drift 0-0.5 mm over 10 s); from lambda = 0 sticking friction
    converges linearly under the lagged W of eq. 104 and 8 let it creep 2 mm (12, the count
    asked before session 31, 0.4 mm). Returns the model and qpos."""
    half = span / 2
    xs = np.linspace(-half, half, 4001)
    zs = rise * (1 - (xs / half) ** 2)
    arc = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(xs), np.diff(zs)))])
    s_joint = np.linspace(0, arc[-1], n + 1)
    xj = np.interp(s_joint, arc, xs)
    zj = rise * (1 - (xj / half) ** 2)
    tangent = np.stack([np.ones_like(xj), -2 * rise * xj / half**2], axis=1)
    tangent /= np.linalg.norm(tangent, axis=1, keepdims=True)
    normal = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)  # outward (up at the crown)
    centre = np.stack([xj, zj], axis=1)
    inner = centre - thickness / 2 * normal
    outer = centre + thickness / 2 * normal

    def prism(points2d):  # (k, 2) in the x-z plane -> (2k, 3) extruded along y
        return np.array([[p[0], y, p[1]] for y in (-depth / 2, depth / 2) for p in points2d])

    b = Builder()
    b.set_timestep(timestep)
    if newton_iterations:
        b.set_solver_iterations(newton=newton_iterations)
    # static abutments: the arch continued 1 m past each springing
    for j, sgn in ((0, -1.0), (n, 1.0)):
        ext = sgn * tangent[j]
        quad = [inner[j], outer[j], outer[j] + ext, inner[j] + ext]
        mid = 0.5 * (inner[j] + outer[j])
        mesh = b.add_mesh(prism([p - mid for p in quad]), name=f"abutment{j}")
        b.add_geom(0, "mesh", mesh=mesh, pos=[mid[0], 0.0, mid[1]], friction=[mu, 0, 0],
                   name=f"abutment{j}")
    q0 = []
    width = np.abs(np.diff(xj))
    for k in range(n):
        quad = [inner[k], outer[k], outer[k + 1], inner[k + 1]]
        verts = prism(quad)
        c = verts.mean(axis=0)
        if masses is None:
            mass = min_mass * width[k] / width.min()
        else:
            mass = masses[0] + (masses[1] - masses[0]) * abs(c[0]) / half
        ext = verts.max(axis=0) - verts.min(axis=0)
        inertia = mass / 12 * np.diag([ext[1] ** 2 + ext[2] ** 2, ext[0] ** 2 + ext[2] ** 2,
                                       ext[0] ** 2 + ext[1] ** 2])
        body = b.add_body(0, mass=float(mass), inertia=inertia, name=f"voussoir{k}")
        b.add_joint(body, "free")
        mesh = b.add_mesh(verts - c, name=f"voussoir{k}")
        b.add_geom(body, "mesh", mesh=mesh, friction=[mu, 0, 0], name=f"voussoir{k}")
        q0 += [*c, 1.0, 0.0, 0.0, 0.0]
    return b.build(), np.array(q0)


def _compound_inertia(boxes, mass):
    """Mass centre and inertia (about it) of boxes [(centre, half sizes)] of one density
    whose total mass is `mass`."""
    vol = np.array([8.0 * np.prod(h) for _, h in boxes])
    masses = mass * vol / vol.sum()
    centres = np.array([c for c, _ in boxes], dtype=float)
    com = masses @ centres / mass
    inertia = np.zeros((3, 3))
    for m, c, (_, h) in zip(masses, centres, boxes):
        d = c - com
        inertia += _box_inertia(m, h) + m * (d @ d * np.eye(3) - np.outer(d, d))
    return com, inertia


def table_pile(n=54, seed=0, mass=4.7, mu=0.7, timestep=1 / 120):
    """The seed's table piling scene (§10.2, Table 2 "Table Pile": 54 tables of 4.7 kg,
    mu = 0.7, h = 0.0083 s). Each table is one rigid body of five boxes of one density: a
    top of 0.5 x 0.3 x 0.04 m and four 0.05 x 0.05 x 0.26 m legs, 0.3 m tall overall.
    `n` tables with random yaw and up to 0.25 rad of tilt are dropped in layers of 3 x 3
    (0.7 m apart, layers 0.5 m apart, the lowest 0.25 m up) onto a ground plane, where
    they fall on each other into a pile. Returns the model and qpos."""
    import mujoco

    rng = np.random.default_rng(seed)
    top = ([0.0, 0.0, 0.13], [0.25, 0.15, 0.02])
    legs = [([x, y, -0.02], [0.025, 0.025, 0.13]) for x in (-0.22, 0.22) for y in (-0.12, 0.12)]
    boxes = [top, *legs]
    com, inertia = _compound_inertia(boxes, mass)
    b = Builder()
    b.set_timestep(timestep)
    b.add_geom(0, "plane", friction=[mu, 0, 0], name="ground")
    q0 = []
    for i in range(n):
        body = b.add_body(0, mass=mass, com=com, inertia=inertia, name=f"table{i}")
        b.add_joint(body, "free")
        for k, (c, h) in enumerate(boxes):
            b.add_geom(body, "box", size=h, pos=c, friction=[mu, 0, 0], name=f"table{i}/{k}")
        yaw = rng.uniform(0, 2 * np.pi)
        axis = np.r_[rng.normal(size=2), 0.0]
        axis /= np.linalg.norm(axis)
        tilt = rng.uniform(0, 0.25)
        q_yaw = np.array([np.cos(yaw / 2), 0.0, 0.0, np.sin(yaw / 2)])
        q_tilt = np.r_[np.cos(tilt / 2), np.sin(tilt / 2) * axis]
        quat = np.zeros(4)
        mujoco.mju_mulQuat(quat, q_tilt, q_yaw)
        layer, slot = divmod(i, 9)
        x, y = (slot % 3 - 1) * 0.7, (slot // 3 - 1) * 0.7
        q0 += [x + rng.uniform(-0.03, 0.03), y + rng.uniform(-0.03, 0.03), 0.25 + 0.5 * layer, *quat]
    return b.build(), np.array(q0)


def rock_vertices(rng, n: int, radii=(0.05, 0.14)) -> np.ndarray:
    """`n` random points of a rock: on an ellipsoid with random radii in `radii`, each
    pulled in by up to 10 %, so the hull is irregular and has at most `n` vertices."""
    r = rng.uniform(*radii, 3)
    d = rng.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    return d * r * rng.uniform(0.9, 1.0, (n, 1))


def rocks(n=30, seed=0, mu=0.5, density=1000.0, half_width=0.6, timestep=1 / 120):
    """`n` random convex rocks (hulls of 50-300 random points, `rock_vertices`) dropped in
    layers of 3 x 3 (0.38 m apart, layers 0.32 m apart) into a box: a ground plane and four
    static box walls 0.6 m high around a 2 `half_width` square. The rocks' mass properties
    (of the hull at `density`) and hull faces come from MuJoCo's compiler: the scene is
    written as MJCF and converted by ncpgym.models.from_mujoco (each mesh as its hull).
    Returns the model and qpos."""
    import mujoco

    from .models import from_mujoco

    def f(v):
        return " ".join(repr(float(x)) for x in np.ravel(v))

    rng = np.random.default_rng(seed)
    w, t, hh = half_width, 0.05, 0.3
    walls = [([w + t, 0, hh], [t, w + 2 * t, hh]), ([-w - t, 0, hh], [t, w + 2 * t, hh]),
             ([0, w + t, hh], [w + 2 * t, t, hh]), ([0, -w - t, hh], [w + 2 * t, t, hh])]
    geoms = [f'<geom name="ground" type="plane" size="5 5 0.1" friction="{f(mu)} 0 0"/>']
    geoms += [f'<geom name="wall{k}" type="box" pos="{f(p)}" size="{f(s)}" friction="{f(mu)} 0 0"/>'
              for k, (p, s) in enumerate(walls)]
    assets, bodies = [], []
    for i in range(n):
        assets.append(f'<mesh name="rock{i}" vertex="{f(rock_vertices(rng, int(rng.integers(50, 301))))}"/>')
        quat = rng.normal(size=4)
        layer, slot = divmod(i, 9)
        pos = [(slot % 3 - 1) * 0.38 + rng.uniform(-0.02, 0.02),
               (slot // 3 - 1) * 0.38 + rng.uniform(-0.02, 0.02), 0.2 + 0.32 * layer]
        bodies.append(f'<body name="rock{i}" pos="{f(pos)}" quat="{f(quat / np.linalg.norm(quat))}">'
                      f'<freejoint/><geom name="rock{i}" type="mesh" mesh="rock{i}" '
                      f'density="{f(density)}" friction="{f(mu)} 0 0"/></body>')
    xml = (f'<mujoco><option timestep="{f(timestep)}"/><asset>{"".join(assets)}</asset>'
           f'<worldbody>{"".join(geoms + bodies)}</worldbody></mujoco>')
    mjm = mujoco.MjModel.from_xml_string(xml)
    return from_mujoco(mjm, source="scenes.rocks", convex_decomposition="hull"), mjm.qpos0.copy()


def manta_ray(n=10, thickness=2e-3, timestep=5e-3, span=1.0, length=1.0, depth=1.5, skin_friction=0.0):
    """The seed's manta ray (dismech-rods-shells.txt §7): a hinge shell of 1 m span and
    length (a rhombus, shells.diamond_mesh), E = 6 GPa, nu = 0.3, rho = 1057 kg/m^3, in
    water (rho_med = 1000, C_D = 0.5) under gravity, buoyancy and drag. The hinges on the
    centre line (x = 0) form activation groups 0, 1, ... from the front (+y) to the back:
    each group's value is its hinge's natural angle (rad). The thickness is not in the seed;
    2 mm here. The body starts flat at height ``depth`` above the origin (nothing to touch:
    the floor a picture shows is a seabed drawn for scale). ``skin_friction``: the medium's
    skin friction coefficient C_f (not in the seed: 0 is the seed's normal drag only).
    Returns (model, hinge ids of the groups)."""
    from . import shells

    b = Builder()
    b.set_timestep(timestep)
    b.set_medium(1000.0, 0.5, 0.0, skin_friction)
    v, t = shells.diamond_mesh(span, length, n)
    v[:, 2] = depth
    shell = shells.add_shell(b, v, t, thickness=thickness, young=6e9, poisson=0.3, density=1057.0)
    hinge = np.asarray([b.hinge_particles(int(k)) for k in shell.hinges]) - shell.first
    centre = np.flatnonzero(np.all(np.abs(v[hinge[:, :2], 0]) < 1e-9, axis=1))
    centre = centre[np.argsort(-v[hinge[centre, :2], 1].mean(axis=1))]  # front first
    for g, k in enumerate(centre):
        b.set_hinge_group(int(shell.hinges[k]), g)
    return b.build(), shell.hinges[centre]


def parachute(n=4, timestep=5e-3, height=5.0, rope_edges=10):
    """The seed's parachute (dismech-rods-shells.txt §7, Fig. 6): a flat hexagonal canopy (side
    1 m, 1 mm, E = 1 GPa, nu = 0.3; shells.hexagon_mesh with n lattice steps per side) at
    ``height``, six rope rods (E = 10 MPa, nu = 0.5, radius 1 mm, not in the seed) from its
    corners to a 0.13 kg payload particle 1 m below its centre, rho = 1500 kg/m^3 for both, in
    air (rho_med = 1, C_D = 10) with gravity and drag. Returns (model, canopy Shell, payload
    particle id, rope Rods)."""
    from . import rods, shells

    b = Builder()
    b.set_timestep(timestep)
    b.set_medium(density=1.0, drag_coefficient=10.0)
    v, t = shells.hexagon_mesh(1.0, n)
    v = v + [0, 0, height]
    canopy = shells.add_shell(b, v, t, thickness=1e-3, young=1e9, poisson=0.3, density=1500.0)
    below = [0.0, 0.0, height - 1.0]
    payload = b.add_particle(below, 0.13, 0.01, 0.5)
    corners = np.flatnonzero(np.abs(np.linalg.norm(v[:, :2], axis=1) - 1.0) < 1e-9)
    ropes = [rods.add_rod(b, rods.straight(v[k], below, rope_edges), radius=1e-3, young=1e7, poisson=0.5,
                          density=1500.0, start=canopy.first + k, end=payload) for k in corners]
    return b.build(), canopy, payload, ropes


def trampoline(timestep=2e-3, n=12):
    """Deformables on deformables (collision/deformable_contact.cpp): a 0.3 m square shell
    (2 mm, E = 10 MPa) clamped along its border, a soft tetrahedral block (6 x 6 x 4 cm,
    E = 100 kPa) dropped onto it, a rod (radius 5 mm, E = 10 MPa) dropped across the block
    and the shell, and a small shell square (2 mm, E = 100 MPa) onto the rod and the block.
    Returns (model, qpos) (no rigid bodies: qpos is empty)."""
    from . import rods, shells, soft

    b = Builder()
    b.set_timestep(timestep)
    v, t = shells.rectangle_mesh(0.3, 0.3, n)
    v = v - v.mean(0)
    sheet = shells.add_shell(b, v, t, thickness=2e-3, young=1e7, poisson=0.3, density=1000.0)
    shells.clamp(b, sheet, (np.abs(v[:, 0]) > 0.149) | (np.abs(v[:, 1]) > 0.149))
    bv, bt = soft.box_mesh([0.06, 0.06, 0.04], 3, origin=(-0.03, -0.03, 0.01))
    soft.add_mesh(b, bv, bt, density=500.0, young=1e5, poisson=0.3)
    rods.add_rod(b, rods.straight([-0.12, 0.03, 0.08], [0.12, -0.04, 0.08], 16), radius=5e-3, young=1e7,
                 poisson=0.3, density=1500.0)
    sv, st = shells.rectangle_mesh(0.08, 0.08, 5)
    shells.add_shell(b, sv - [0.04, 0.04, -0.12], st, thickness=2e-3, young=1e8, poisson=0.3, density=1000.0)
    return b.build(), np.zeros(0)
