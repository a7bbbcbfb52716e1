"""PneuNet soft fingers and the three-finger gripper world of ncpgym/PneuNetGrasp-v0:
procedural tetrahedral meshes of a finger with a stiff, nearly inextensible bottom layer and
pneumatic chambers along its back.

Dimensions follow the SOFA PneuNet tutorial's finger (about 115 x 30 x 20 mm with 7
chambers); material from the seed (silicone rubber, Young 0.01 GPa, nu = 0.47,
1200 kg/m^3) in the gripper; ``add_finger`` defaults to a softer 0.5 MPa so that a lone
coarse finger bends visibly under its own weight. The chambers are modelled as groups of
elements with an active volumetric strain (Batch.activation), the seed's uniform internal
volumetric stress written as a shift of the target strain, rather than as hollow cavities.
The bottom layer is 10x stiffer than the rest. Elements are linear co-rotational by default:
stable Neo-Hookean fingers (``model="neohookean"``) now settle under activation at h = 1/120
(six rows per element, issue 20), but the gripper built with them still diverges at
PneuNetGrasp-v0's h = 0.02 (docs/architecture.md).
"""

from __future__ import annotations

import numpy as np

from ...soft import add_mesh, box_mesh, compact, tet_centroids

LENGTH, WIDTH, HEIGHT = 0.115, 0.030, 0.020
CHAMBERS = 7


def finger_mesh(n=(12, 3, 3), hollow: bool = False, wall: float = 0.002):
    """(verts, tets, groups, stiff) of one finger along +x from the origin: groups is the
    chamber index (0..6) of the elements in the upper two thirds, -1 elsewhere; stiff marks
    the bottom layer. With ``hollow`` each chamber is cut out of the grid, leaving walls
    of at least ``wall`` (elements whose centroids lie deeper inside the chamber block are
    removed; use a grid fine enough to leave walls, e.g. n = (30, 3, 4))."""
    verts, tets = box_mesh((LENGTH, WIDTH, HEIGHT), n, origin=(0.0, -WIDTH / 2, 0.0))
    c = tet_centroids(verts, tets)
    base = 0.1 * LENGTH  # the first 10 % is the clamped, passive root
    in_chamber = (c[:, 2] > HEIGHT / 3) & (c[:, 0] > base)
    step = (LENGTH - base) / CHAMBERS
    idx = np.clip(((c[:, 0] - base) / step).astype(int), 0, CHAMBERS - 1)
    if hollow:
        x0 = base + idx * step
        cavity = (in_chamber & (c[:, 0] > x0 + wall) & (c[:, 0] < x0 + step - wall)
                  & (np.abs(c[:, 1]) < WIDTH / 2 - wall) & (c[:, 2] > HEIGHT / 3 + wall) & (c[:, 2] < HEIGHT - wall))
        if not cavity.any():
            raise ValueError(f"finger_mesh: a {tuple(n)} grid is too coarse to cut chambers with {wall} m walls")
        keep = ~cavity
        verts, tets = compact(verts, tets[keep])
        c, in_chamber, idx = c[keep], in_chamber[keep], idx[keep]
    stiff = c[:, 2] < HEIGHT / np.asarray(n)[2]
    groups = np.where(in_chamber, idx, -1)
    return verts, tets, groups, stiff


def thin_wall_axes(chambers: int = CHAMBERS, wall: float = 0.002, bottom: float = 0.003, roof: float = 0.002):
    """Grid coordinates (xs, ys, zs) for ``chambered_finger_mesh(axes=...)``: along x a
    two-cell root, then per chamber a cavity cell and a ``wall``-thick cell between
    chambers; across, walls of ``wall`` either side of one cavity cell; up, the stiff
    bottom layer (``bottom``), a floor wall, the cavity and a ``roof``. Every chamber's
    cavity then fills its slice of the finger but for thin walls, as in a cast PneuNet."""
    base = 0.1 * LENGTH
    pitch = (LENGTH - base) / chambers
    xs = [0.0, base / 2, base]
    for k in range(chambers):
        xs += [base + k * pitch + pitch - wall, base + (k + 1) * pitch]
    ys = [-WIDTH / 2, -WIDTH / 2 + wall, WIDTH / 2 - wall, WIDTH / 2]
    zs = [0.0, bottom, bottom + wall, HEIGHT - roof, HEIGHT]
    return np.array(xs), np.array(ys), np.array(zs)


def chambered_finger_mesh(n=(16, 3, 4), chambers: int = CHAMBERS, axes=None):
    """(verts, tets, stiff, cavities) of a finger along +x with closed air chambers for
    pressure actuation (``Builder.add_pressure_chamber``): the grid of ``finger_mesh`` with,
    for chamber k, the hexahedral cell (i = 2 + 2k, the middle cell across, the second cell
    from the top) cut out, so every chamber has walls of one cell on all sides (roof, floor,
    sides, and between chambers). ``cavities`` lists each chamber's triangles (vertex
    indices, oriented out of the cavity), root to tip. Needs n = (>= 2 chambers + 2, odd
    >= 3, >= 4). ``axes`` (xs, ys, zs; e.g. ``thin_wall_axes()``) gives the grid's node
    coordinates instead of a uniform n: thin walls around wide cavities. ``stiff`` marks the
    bottom cell layer."""
    from ...soft import cavities as find_cavities
    from ...soft import grid_mesh

    if axes is not None:
        n = tuple(len(a) - 1 for a in axes)
    n = tuple(int(k) for k in n)
    if n[0] < 2 * chambers + 2 or n[1] < 3 or n[1] % 2 == 0 or n[2] < 4:
        raise ValueError(f"chambered_finger_mesh: n = {n} leaves no walls for {chambers} chambers "
                         f"(need n >= ({2 * chambers + 2}, 3 (odd), 4))")
    if axes is None:
        verts, tets = box_mesh((LENGTH, WIDTH, HEIGHT), n, origin=(0.0, -WIDTH / 2, 0.0))
    else:
        verts, tets = grid_mesh(*axes)
    ncell = n[0] * n[1] * n[2]
    i, j, k = np.unravel_index(np.arange(len(tets)) % ncell, n)  # box_mesh: 6 blocks of cells
    cut = (j == n[1] // 2) & (k == n[2] - 2) & (i >= 2) & (i < 2 + 2 * chambers) & ((i - 2) % 2 == 0)
    verts, tets = compact(verts, tets[~cut])
    c = tet_centroids(verts, tets)
    stiff = c[:, 2] < (HEIGHT / n[2] if axes is None else axes[2][1])
    cav = sorted(find_cavities(verts, tets), key=lambda t: verts[t].reshape(-1, 3)[:, 0].mean())
    if len(cav) != chambers:
        raise AssertionError(f"chambered_finger_mesh: {len(cav)} closed cavities, expected {chambers}")
    return verts, tets, stiff, cav


def add_pressure_finger(builder, *, young=5e5, bottom_young=5e6, poisson=0.47, density=1200.0, model="linear",
                        transform=None, clamp_body=0, clamp_origin=(0.0, 0.0, 0.0), friction=0.7, radius=0.002,
                        n=(16, 3, 4), chambers=CHAMBERS, group_offset=0, axes=None, one_group=False):
    """``add_finger`` for a pressure-actuated finger (``chambered_finger_mesh``, ``axes`` as
    there): chamber k is a pressure chamber driven by activation group group_offset + k (Pa),
    or every chamber by group_offset with ``one_group`` (one supply line, as a PneuNet's
    chambers share one). Returns (first particle, particle count, chamber indices)."""
    verts, tets, stiff, cav = chambered_finger_mesh(n, chambers, axes=axes)
    x = verts if transform is None else (np.c_[verts, np.ones(len(verts))] @ np.asarray(transform).T)[:, :3]
    young_t = np.where(stiff, bottom_young, young)
    first, _ = add_mesh(builder, x, tets, density=density, young=young_t, poisson=poisson, model=model,
                        radius=radius, friction=friction)
    for i in np.flatnonzero(verts[:, 0] < 1e-9):
        builder.add_attachment(int(first + i), clamp_body, x[i] - np.asarray(clamp_origin, float))
    ids = [builder.add_pressure_chamber(first + t, group_offset + (0 if one_group else k)) for k, t in enumerate(cav)]
    return first, len(verts), ids


def pressure_finger(*, young=1e5, bottom_young=1e6, poisson=0.3, gravity=True, timestep=0.02, n=(16, 3, 4)):
    """A lone pressure finger clamped at its root (``add_pressure_finger``; chamber k is
    activation group k, Pa), softer than the gripper's (E = 0.1 MPa, nu = 0.3: linear
    tetrahedra lock at nu = 0.47) so that a few tens of kPa bend it; it balloons past ~30 kPa.
    Returns (model, tips): the two particles at the tip's lower edge, 5 mm either side of the
    centre line."""
    import ncpgym

    b = ncpgym.Builder()
    b.set_timestep(timestep)
    if not gravity:
        b.set_gravity([0.0, 0.0, 0.0])
    first, count, _ = add_pressure_finger(b, young=young, bottom_young=bottom_young, poisson=poisson, n=n)
    model = b.build()
    x0 = np.asarray(model.particle_pos0)[first:first + count]
    tips = first + np.flatnonzero(np.isclose(x0[:, 0], LENGTH) & np.isclose(np.abs(x0[:, 1]), 0.005)
                                  & np.isclose(x0[:, 2], 0.0))
    if len(tips) != 2:
        raise ValueError(f"pressure_finger: n = {tuple(n)} has no tip vertices 5 mm either side of the centre line "
                         "(use three cells across)")
    return model, tips


def settle(sim, steps: int) -> None:
    """Quasi-static relaxation of a Simulator: step, zero the particle velocities."""
    for _ in range(steps):
        sim.step()
        sim.v[:] = 0.0


def loop_targets(model, tips, angles_deg=(0, 90, 180, 270), centre=1.2e4, radius=8e3, steps=30):
    """Targets a pressure finger (``pressure_finger``, chambers = groups 0..6) can reach by
    construction: where its tips settle under a circle of actuations (the root three chambers
    at centre + radius cos a, the tip four at centre + radius sin a, Pa), one per angle."""
    import ncpgym

    out = []
    for a in np.radians(angles_deg):
        sim = ncpgym.Simulator(model)
        root = CHAMBERS // 2
        sim.activation[:CHAMBERS] = [centre + radius * np.cos(a)] * root + [centre + radius * np.sin(a)] * (CHAMBERS - root)
        settle(sim, steps)
        out.append(sim.x[tips].copy())
    return out


def add_finger(builder, *, young=5e5, bottom_young=5e6, poisson=0.47, density=1200.0, model="linear",
               transform=None, clamp_body=0, clamp_origin=(0.0, 0.0, 0.0), friction=0.7, radius=0.002,
               n=(12, 3, 3), group_offset=0, hollow=False):
    """Add a finger (optionally moved by a 4 x 4 transform) and pin its root face to
    `clamp_body` (0: the world), whose frame is at `clamp_origin` with the world's axes.
    Its chambers are activation groups group_offset .. group_offset + 6.
    Returns (first particle, particle count, first tet)."""
    verts, tets, groups, stiff = finger_mesh(n, hollow=hollow)
    x = verts if transform is None else (np.c_[verts, np.ones(len(verts))] @ np.asarray(transform).T)[:, :3]
    young_t = np.where(stiff, bottom_young, young)
    groups = np.where(groups >= 0, groups + group_offset, -1)
    first, first_tet = add_mesh(builder, x, tets, density=density, young=young_t, poisson=poisson, model=model,
                                groups=groups, radius=radius, friction=friction)
    for i in np.flatnonzero(verts[:, 0] < 1e-9):
        builder.add_attachment(int(first + i), clamp_body, x[i] - np.asarray(clamp_origin, float))
    return first, len(verts), first_tet


def finger_transform(azimuth: float, tilt: float, root_radius: float, height: float) -> np.ndarray:
    """4 x 4 pose of a finger mesh whose length points away from the gripper's axis at
    `azimuth` and `tilt` radians below the horizontal, stiff layer facing down and inward,
    root face centred `root_radius` from the axis at `height`."""
    ca, sa, ct, st = np.cos(azimuth), np.sin(azimuth), np.cos(tilt), np.sin(tilt)
    radial = np.array([ca, sa, 0.0])
    along = ct * radial - st * np.array([0.0, 0.0, 1.0])  # the finger's length (mesh x)
    normal = st * radial + ct * np.array([0.0, 0.0, 1.0])  # from stiff layer to chambers (mesh z)
    side = np.cross(normal, along)  # mesh y
    T = np.eye(4)
    T[:3, :3] = np.stack([along, side, normal], axis=1)
    T[:3, 3] = root_radius * radial + [0.0, 0.0, height]
    return T


# The three-finger gripper world (ncpgym/PneuNetGrasp-v0).
BALL_RADIUS, BALL_MASS, BALL_FRICTION = 0.04, 0.32, 0.7
FINGERS = 3


def build_gripper(*, n=(12, 3, 3), young=1e7, bottom_young=1e8, poisson=0.47, density=1200.0, model="linear",
                  tilt=np.radians(60.0), root_radius=0.03, mount_height=0.16, mount_mass=0.3,
                  mount_kp=4000.0, timestep=0.01, hollow=False, actuation="strain", chambers=CHAMBERS):
    """Three PneuNet fingers 120 degrees apart on a mount that slides vertically (position
    servo, actuator 0: target displacement in metres from `mount_height`), and a rigid ball
    of 0.32 kg, mu = 0.7, on the ground under the mount (``hollow``: fingers with their
    chambers cut out, see finger_mesh). Material from the seed: silicone
    rubber, Young 0.01 GPa, nu = 0.47, 1200 kg/m^3; bottom layer 10x stiffer. With
    ``actuation="strain"`` finger f's chambers are activation groups 7f .. 7f + 6 (active
    strain); with ``"pressure"`` the fingers are cast with thin-walled air chambers
    (``chambered_finger_mesh(axes=thin_wall_axes())``, 1,110 tetrahedra, ``n`` unused)
    whose seven chambers (``chambers``) share activation group f (Pa). Returns (model, info)
    with info the particle ranges of the fingers, their tip particles and the body ids."""
    if actuation not in ("strain", "pressure"):
        raise ValueError(f"actuation must be 'strain' or 'pressure', got {actuation!r}")
    import ncpgym

    b = ncpgym.Builder()
    b.set_timestep(timestep)
    b.add_geom(0, "plane", size=[1.0, 1.0, 0.1], friction=[BALL_FRICTION, 0.005, 0.0001])
    mount = b.add_body(0, pos=[0.0, 0.0, mount_height], mass=mount_mass, inertia=np.eye(3) * 1e-3, name="mount")
    slide = b.add_joint(mount, "slide", axis=[0.0, 0.0, 1.0], range=(-0.1, 0.2), name="mount_z")
    kv = 2.0 * np.sqrt(mount_kp * (mount_mass + 0.25))  # about critically damped with the fingers
    b.add_actuator(slide, "position", kp=mount_kp, kv=kv, ctrlrange=(-0.1, 0.2), name="mount_z")
    axes = thin_wall_axes(chambers)
    # every finger is the same mesh moved: its tip-face vertices once
    verts = finger_mesh(n, hollow=hollow)[0] if actuation == "strain" else chambered_finger_mesh(
        chambers=chambers, axes=axes)[0]
    tip = np.flatnonzero(np.abs(verts[:, 0] - LENGTH) < 1e-9)
    fingers, tips = [], []
    for f in range(FINGERS):
        T = finger_transform(np.pi / 2 + 2 * np.pi * f / FINGERS, tilt, root_radius, mount_height)
        common = dict(young=young, bottom_young=bottom_young, poisson=poisson, density=density, model=model,
                      transform=T, clamp_body=mount, clamp_origin=(0.0, 0.0, mount_height), friction=BALL_FRICTION)
        if actuation == "strain":
            first, count, _ = add_finger(b, n=n, group_offset=CHAMBERS * f, hollow=hollow, **common)
        else:
            first, count, _ = add_pressure_finger(b, axes=axes, chambers=chambers, group_offset=f, one_group=True,
                                                  **common)
        fingers.append((first, count))
        tips.append(first + tip)
    for i in range(FINGERS):  # the fingers share the mount: their roots touch, they do not collide
        for j in range(i + 1, FINGERS):
            b.exclude_soft_pair(fingers[i][0], fingers[j][0])
    r = BALL_RADIUS
    ball = b.add_body(0, pos=[0.0, 0.0, r], mass=BALL_MASS, inertia=np.eye(3) * 0.4 * BALL_MASS * r * r, name="ball")
    b.add_joint(ball, "free", name="ball")
    b.add_geom(ball, "sphere", size=[r, 0, 0], friction=[BALL_FRICTION, 0.005, 0.0001])
    return b.build(), {"fingers": fingers, "tips": np.array(tips), "mount": mount, "ball": ball}
