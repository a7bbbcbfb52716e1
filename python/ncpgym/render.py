"""Pictures of ncpgym worlds, drawn by MuJoCo's renderer (``mujoco.Renderer``).

Each task's Model has an MJCF twin: the file it was loaded from (same joints, so MuJoCo's
``qpos`` is ncpgym's ``q``) or :func:`ncpgym.models.to_mjcf`. :class:`WorldRenderer`
compiles it once (adding a sky, a checkered floor and a light when the file has none) and,
per frame, copies one world's ``q`` into an ``MjData``, runs ``mj_kinematics`` and renders.
Soft bodies are MuJoCo flexes: one flex per colour class (a PneuNet finger's chambers,
its stiff layer, the rest) made of the model's boundary triangles, whose vertex positions
are overwritten with the world's particle positions every frame. Rendering only reads the
batch: trajectories are bitwise identical with and without it.

Headless Linux: ``import ncpgym`` sets ``MUJOCO_GL=egl`` (or ``osmesa``) when the variable
is unset and there is no display; Mesa's llvmpipe then renders on the CPU (Debian:
``libegl1 libegl-mesa0 libgl1-mesa-dri``, or ``libosmesa6``).
"""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import mujoco
import numpy as np

from . import _core, _gl
from .models import to_mjcf

__all__ = ["RENDER_MODES", "Camera", "SceneSpec", "Frame", "WorldRenderer", "EnvRenderer", "tile"]

RENDER_MODES = ("rgb_array",)
DEFAULT_SIZE = (480, 480)  # (width, height), as Gymnasium's MuJoCo envs
SHADOW_SIZE = 1024  # shadow map side (pixels)

RGBA = Sequence[float]


@dataclass
class Camera:
    """A free camera looking at ``lookat`` from ``distance`` metres, ``azimuth`` and
    ``elevation`` in degrees (MuJoCo's ``mjvCamera``: azimuth 90 looks along +y, negative
    elevation looks down). With ``track`` (a body name or id) the camera follows that
    body's x, y and ``lookat`` is an offset from it; ``follow(batch, world)`` (a point, for
    worlds without bodies to track, e.g. a swimming shell) does the same with any point;
    ``heading(batch, world)`` (degrees), when given, sets the azimuth every frame."""

    lookat: Sequence[float] = (0.0, 0.0, 0.0)
    distance: float = 3.0
    azimuth: float = 90.0
    elevation: float = -20.0
    track: str | int | None = None
    heading: Callable[[Any, int], float] | None = None
    follow: Callable[[Any, int], Sequence[float]] | None = None


@dataclass
class SceneSpec:
    """What a task tells the renderer about its scene.

    source: MJCF file whose joints are the model's (None: ``to_mjcf(model)``).
    camera: the default camera (a :class:`Camera`, the name of a camera in the MJCF, or
        None for MuJoCo's default free camera framing the whole model).
    tet_class, class_rgba: colour class of every tetrahedron (ntet ints) and the colour of
        each class; a boundary triangle takes its tetrahedron's class, a shell triangle class
        0. Rods are drawn as capsules of their radius between their nodes.
    geom_rgba: colours of named geoms. edit: a change to the ``mujoco.MjSpec`` (made before
        the defaults: sky, floor, light). grid: side of a floor square (m) on an added floor.
    extent: size of the scene in metres (MuJoCo scales the clipping planes and shadows by it;
        default: compiled from the model at qpos0, which a parked object far away inflates).
    """

    source: str | os.PathLike | None = None
    camera: Camera | str | None = None
    tet_class: np.ndarray | None = None
    class_rgba: Sequence[RGBA] = ((0.85, 0.85, 0.8, 1.0),)
    geom_rgba: dict[str, RGBA] = field(default_factory=dict)
    edit: Callable[[mujoco.MjSpec], None] | None = None
    grid: float = 0.5
    extent: float | None = None


_GEOM_TYPES = {
    "sphere": mujoco.mjtGeom.mjGEOM_SPHERE,
    "capsule": mujoco.mjtGeom.mjGEOM_CAPSULE,
    "cylinder": mujoco.mjtGeom.mjGEOM_CYLINDER,
    "box": mujoco.mjtGeom.mjGEOM_BOX,
}


class Frame:
    """Handed to ``Task.render_frame`` while a frame is drawn: add decoration geoms
    (a flag, a target) or recolour soft-body classes for this frame only."""

    def __init__(self, renderer: WorldRenderer):
        self._r = renderer

    def add_geom(
        self,
        kind: str,
        size: Sequence[float],
        pos: Sequence[float],
        rgba: RGBA = (1.0, 0.2, 0.2, 1.0),
        mat: Sequence[float] | None = None,
    ) -> None:
        """Add a visual-only sphere, capsule, cylinder or box to this frame: MuJoCo's sizes
        (half-lengths), world position, row-major 3x3 orientation (default: world axes)."""
        if kind not in _GEOM_TYPES:
            raise ValueError(f"add_geom: kind must be one of {sorted(_GEOM_TYPES)}, got {kind!r}")
        scn = self._r.scene
        if scn.ngeom >= scn.maxgeom:
            return  # scene full: MuJoCo drops geoms the same way
        m = np.eye(3).ravel() if mat is None else np.asarray(mat, float).ravel()
        s = np.zeros(3)
        s[: min(3, len(size))] = np.asarray(size, float)[:3]
        mujoco.mjv_initGeom(
            scn.geoms[scn.ngeom],
            _GEOM_TYPES[kind],
            s,
            np.asarray(pos, float),
            m,
            np.asarray(rgba, np.float32),
        )
        scn.ngeom += 1

    def set_class_rgba(self, cls: int, rgba: RGBA) -> None:
        """Colour of soft-body class ``cls`` in this frame."""
        self._r.set_class_rgba(cls, rgba)


def _face_owner(tets: np.ndarray) -> dict[tuple[int, int, int], int]:
    """Tetrahedron of each face, keyed by its sorted particle ids."""
    owner = {}
    for t, (a, b, c, d) in enumerate(tets.tolist()):
        for f in ((a, b, c), (a, b, d), (a, c, d), (b, c, d)):
            owner[tuple(sorted(f))] = t
    return owner


def _decorate(s: mujoco.MjSpec, grid: float) -> None:
    """A sky, a checkered floor and a light for scenes that have none, and a warm colour
    for geoms left at MuJoCo's default grey."""
    if not any(t.type == mujoco.mjtTexture.mjTEXTURE_SKYBOX for t in s.textures):
        s.add_texture(
            name="ncpgym_sky",
            type=mujoco.mjtTexture.mjTEXTURE_SKYBOX,
            builtin=mujoco.mjtBuiltin.mjBUILTIN_GRADIENT,
            rgb1=[0.45, 0.6, 0.75],
            rgb2=[0.05, 0.05, 0.1],
            width=256,
            height=256,
        )
    floor = None
    for g in s.geoms:
        default_grey = np.allclose(list(g.rgba), [0.5, 0.5, 0.5, 1.0])
        if g.type == mujoco.mjtGeom.mjGEOM_PLANE and not g.material:
            if floor is None:
                s.add_texture(
                    name="ncpgym_grid",
                    type=mujoco.mjtTexture.mjTEXTURE_2D,
                    builtin=mujoco.mjtBuiltin.mjBUILTIN_CHECKER,
                    rgb1=[0.22, 0.26, 0.3],
                    rgb2=[0.33, 0.38, 0.43],
                    width=256,
                    height=256,
                    mark=mujoco.mjtMark.mjMARK_EDGE,
                    markrgb=[0.5, 0.55, 0.6],
                )
                # MuJoCo lays one repeat of a plane's uniform texture over 2 / texrepeat
                # metres (measured), so each of the checker's 2 x 2 squares is 1 / texrepeat
                # wide: a square of side `grid` is texrepeat = 1 / grid
                rep = 1.0 / grid
                floor = s.add_material(
                    name="ncpgym_floor", texuniform=True, texrepeat=[rep, rep], reflectance=0.15
                )
                floor.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = "ncpgym_grid"
            g.material = "ncpgym_floor"
            g.rgba = [1.0, 1.0, 1.0, 1.0]
        elif default_grey and not g.material:
            g.rgba = [0.8, 0.6, 0.4, 1.0]
    if len(s.lights) == 0:
        s.worldbody.add_light(
            name="ncpgym_sun",
            pos=[0.0, 0.0, 4.0],
            dir=[0.2, 0.3, -1.0],
            type=mujoco.mjtLightType.mjLIGHT_DIRECTIONAL,
            diffuse=[0.7, 0.7, 0.7],
            specular=[0.2, 0.2, 0.2],
            castshadow=True,
        )
        s.visual.headlight.ambient = [0.3, 0.3, 0.3]
        s.visual.headlight.diffuse = [0.4, 0.4, 0.4]


def _headless_fallback() -> None:
    """When mujoco was imported before ncpgym on a machine without a display, MuJoCo chose
    GLFW, which cannot open a window here: use the EGL or OSMesa context instead."""
    from mujoco.rendering.classic import gl_context

    ctx = getattr(gl_context, "GLContext", None)
    glfw = ctx is not None and ctx.__module__.startswith("mujoco.glfw")
    # MUJOCO_GL unset, or set by ncpgym after mujoco had read it: not the user's choice
    ours = os.environ.get("MUJOCO_GL", "") in ("", _gl.chosen)
    if glfw and ours and sys.platform.startswith("linux") and not _gl.has_display():
        backend = _gl.headless_backend()
        if backend == "egl":
            from mujoco.egl import GLContext
        else:
            from mujoco.osmesa import GLContext
        gl_context.GLContext = GLContext
        os.environ["MUJOCO_GL"] = backend


# Mesa's software renderer (llvmpipe) draws on threads it starts with a process's first
# context, unless LP_NUM_THREADS=0; a process forked after that has no such threads and its
# first frame waits for them forever. Renderers refuse there with the way out instead: when
# made (a renderer there could never draw, so say so at once) and when one made before the
# fork is asked for a frame.
_threaded_llvmpipe = False  # this process (or the parent it was forked from) drew that way
_forked_after_render = False


def _after_fork_in_child() -> None:
    global _forked_after_render
    _forked_after_render = _forked_after_render or _threaded_llvmpipe


os.register_at_fork(after_in_child=_after_fork_in_child)


def _note_driver() -> None:
    """Right after a context is made current: is it llvmpipe drawing on threads?"""
    global _threaded_llvmpipe
    if _threaded_llvmpipe or os.environ.get("LP_NUM_THREADS") == "0":
        return
    try:
        from OpenGL import GL

        _threaded_llvmpipe = b"llvmpipe" in (GL.glGetString(GL.GL_RENDERER) or b"")
    except Exception:  # no PyOpenGL or no current context: nothing known, nothing refused
        pass


def _check_fork() -> None:
    if _forked_after_render:
        raise RuntimeError(
            "ncpgym rendering: this process was forked after it (or its parent) rendered with "
            "Mesa's llvmpipe, whose drawing threads do not survive fork (the first frame would "
            "wait forever). Start worker processes with multiprocessing's 'spawn' method, or "
            "set LP_NUM_THREADS=0 before the first render (llvmpipe then draws on the calling "
            "thread and forked processes can render)"
        )


def _new_renderer(m: mujoco.MjModel, width: int, height: int) -> mujoco.Renderer:
    _check_fork()
    _headless_fallback()
    try:
        r = mujoco.Renderer(m, height=height, width=width)
        _note_driver()
        return r
    except Exception as e:  # any failure to make a GL context lands here
        from mujoco.rendering.classic import gl_context

        gl = os.environ.get("MUJOCO_GL", "")
        used = getattr(getattr(gl_context, "GLContext", None), "__module__", "none")
        raise RuntimeError(
            f"ncpgym rendering: could not create an OpenGL context (MUJOCO_GL={gl!r}, "
            f"context {used}): {e}. "
            f"On a headless Linux machine install Mesa's EGL (Debian: apt-get install "
            f"{_gl.PACKAGES['egl']}) and set MUJOCO_GL=egl, or OSMesa (apt-get install "
            f"{_gl.PACKAGES['osmesa']}) and MUJOCO_GL=osmesa, before Python imports mujoco"
        ) from e


class WorldRenderer:
    """Renders worlds of batches of one :class:`ncpgym.Model` to (height, width, 3) uint8.

    ``camera``: a :class:`Camera`, the name of a camera of the scene's MJCF, a dict of
    :class:`Camera` fields, or None for ``spec.camera``. ``frame_hook(batch, world, frame)``
    is called for every frame (a task's ``render_frame``)."""

    def __init__(
        self,
        model: _core.Model,
        spec: SceneSpec | None = None,
        *,
        width: int = DEFAULT_SIZE[0],
        height: int = DEFAULT_SIZE[1],
        camera: Camera | str | dict | None = None,
        frame_hook: Callable[[Any, int, Frame], None] | None = None,
    ):
        spec = spec or SceneSpec()
        self.model, self.width, self.height = model, int(width), int(height)
        self.frame_hook = frame_hook
        s = (
            mujoco.MjSpec.from_file(os.fspath(spec.source))
            if spec.source is not None
            else mujoco.MjSpec.from_string(to_mjcf(model))
        )
        if spec.edit is not None:
            spec.edit(s)
        _decorate(s, spec.grid)
        for g in s.geoms:
            if g.name in spec.geom_rgba:
                g.rgba = list(spec.geom_rgba[g.name])
        classes = self._add_soft(s, model, spec)
        self.mj = s.compile()
        if self.mj.nq != model.nq:
            raise ValueError(
                f"render scene: the MJCF has nq = {self.mj.nq}, the model nq = {model.nq}; "
                "SceneSpec.source must have the model's joints"
            )
        if spec.extent is not None:
            self.mj.stat.extent = spec.extent
        # llvmpipe draws MuJoCo's default 4096^2 shadow map in ~70 ms a frame; 1024^2 is ~16x less
        self.mj.vis.quality.shadowsize = min(self.mj.vis.quality.shadowsize, SHADOW_SIZE)
        self.mj.vis.global_.offwidth = max(self.mj.vis.global_.offwidth, self.width)
        self.mj.vis.global_.offheight = max(self.mj.vis.global_.offheight, self.height)
        self.data = mujoco.MjData(self.mj)
        # (flex id, its first vertex in flexvert_xpos, particle ids) per soft colour class
        self._flex = [
            (int(mujoco.mj_name2id(self.mj, mujoco.mjtObj.mjOBJ_FLEX, name)), parts)
            for name, parts in classes
        ]
        self._flex = [(f, int(self.mj.flex_vertadr[f]), p) for f, p in self._flex]
        self.camera = self._camera(spec.camera if camera is None else camera)
        self._renderer = _new_renderer(self.mj, self.width, self.height)
        self._frame = Frame(self)

    # -- scene -----------------------------------------------------------------------------

    @staticmethod
    def _add_soft(
        s: mujoco.MjSpec, model: _core.Model, spec: SceneSpec
    ) -> list[tuple[str, np.ndarray]]:
        """One two-dimensional flex per colour class of the boundary triangles (shell
        triangles in class 0)."""
        tri = np.asarray(model.surface_triangles, np.int64).reshape(-1, 3)
        shell = np.asarray(model.shell_triangles, np.int64).reshape(-1, 3)
        if tri.size == 0 and shell.size == 0:
            return []
        if spec.tet_class is None or tri.size == 0:
            tri_class = np.zeros(len(tri), np.int64)
        else:
            tet_class = np.asarray(spec.tet_class, np.int64)
            if tet_class.shape != (model.ntet,):
                raise ValueError(
                    f"SceneSpec.tet_class: expected shape ({model.ntet},), got {tet_class.shape}"
                )
            owner = _face_owner(np.asarray(model.tet_particles, np.int64))
            faces = [owner.get(tuple(sorted(t)), -1) for t in tri.tolist()]
            if min(faces) < 0:
                raise ValueError("render scene: a boundary triangle is no face of a tetrahedron")
            tri_class = tet_class[faces]
        tri = np.concatenate([tri, shell])
        tri_class = np.concatenate([tri_class, np.zeros(len(shell), np.int64)])
        rgba = np.asarray(spec.class_rgba, float).reshape(-1, 4)
        if tri_class.max() >= len(rgba) or tri_class.min() < 0:
            raise ValueError(
                f"SceneSpec: tet classes {sorted(set(tri_class.tolist()))} need "
                f"{tri_class.max() + 1} colours in class_rgba, got {len(rgba)}"
            )
        pos0 = np.asarray(model.particle_pos0, float).reshape(-1, 3)
        out = []
        for c in range(len(rgba)):
            t = tri[tri_class == c]
            if len(t) == 0:  # keep class numbering: an empty class gets an invisible flex
                t = tri[:1]
                colour = [0.0, 0.0, 0.0, 0.0]
            else:
                colour = rgba[c].tolist()
            parts, local = np.unique(t, return_inverse=True)
            name = f"ncpgym_soft{c}"
            s.add_flex(
                name=name,
                dim=2,
                vertbody=["world"],
                vert=pos0[parts].ravel().tolist(),
                elem=local.ravel().tolist(),
                rgba=colour,
                contype=0,
                conaffinity=0,
                radius=0.0005,
            )
            out.append((name, parts))
        return out

    def _camera(self, cam: Camera | str | dict | None):
        if cam is None:
            return None
        if isinstance(cam, dict):
            cam = Camera(**cam)
        if isinstance(cam, str):
            if mujoco.mj_name2id(self.mj, mujoco.mjtObj.mjOBJ_CAMERA, cam) < 0:
                names = [self.mj.camera(i).name for i in range(self.mj.ncam)]
                raise ValueError(
                    f"camera {cam!r} is not in the scene; its cameras: {names} "
                    "(or pass an ncpgym.render.Camera)"
                )
            return cam
        if not isinstance(cam, Camera):
            raise ValueError(
                f"camera: expected a Camera, a camera name, a dict or None, got {cam!r}"
            )
        if cam.track is not None:
            body = (
                cam.track
                if isinstance(cam.track, (int, np.integer))
                else mujoco.mj_name2id(self.mj, mujoco.mjtObj.mjOBJ_BODY, cam.track)
            )
            if not 0 <= body < self.mj.nbody:
                raise ValueError(f"Camera.track: no body {cam.track!r} in the scene")
            self._track = int(body)
        return cam

    def set_class_rgba(self, cls: int, rgba: RGBA) -> None:
        """Set the colour of one soft-body class for the next frames."""
        if not 0 <= cls < len(self._flex):
            raise ValueError(f"soft colour class {cls} out of range [0, {len(self._flex)})")
        self.mj.flex_rgba[self._flex[cls][0]] = rgba

    @property
    def scene(self) -> mujoco.MjvScene:
        """The MuJoCo scene of the last frame (add decorations to it before rendering)."""
        return self._renderer.scene

    # -- frames ----------------------------------------------------------------------------

    def _mjv_camera(self, batch, world: int):
        cam = self.camera
        if cam is None or isinstance(cam, str):
            if cam is None:
                c = mujoco.MjvCamera()
                mujoco.mjv_defaultFreeCamera(self.mj, c)
                return c
            return cam
        c = mujoco.MjvCamera()
        c.type = mujoco.mjtCamera.mjCAMERA_FREE
        c.lookat[:] = cam.lookat
        if cam.track is not None:
            c.lookat[:2] += self.data.xpos[self._track, :2]
        if cam.follow is not None:
            c.lookat[:] += np.asarray(cam.follow(batch, world), float)
        c.distance, c.elevation = cam.distance, cam.elevation
        c.azimuth = cam.azimuth if cam.heading is None else float(cam.heading(batch, world))
        return c

    def render(self, batch, world: int = 0) -> np.ndarray:
        """World ``world`` of ``batch`` (a :class:`ncpgym.Batch` of this model) as
        (height, width, 3) uint8. Reads the batch only."""
        _check_fork()
        d = self.data
        d.qpos[:] = batch.q[world]
        if self.mj.nmocap:  # each world places its mocap bodies (a fixture, a scale) itself
            d.mocap_pos[:] = batch.mocap_pos[world]
            d.mocap_quat[:] = batch.mocap_quat[world]
        mujoco.mj_kinematics(self.mj, d)
        if self._flex:
            x = batch.x[world]
            for _, adr, parts in self._flex:
                d.flexvert_xpos[adr : adr + len(parts)] = x[parts]
            rgba = self.mj.flex_rgba[[f for f, _, _ in self._flex]].copy()
        self._renderer.update_scene(d, self._mjv_camera(batch, world))
        self._draw_rods(batch.x[world])
        if self.frame_hook is not None:
            self.frame_hook(batch, world, self._frame)
        if self._flex:
            # recoloured classes must update the scene's flex geoms, made before the hook ran
            for i in range(self.scene.ngeom):
                g = self.scene.geoms[i]
                if g.type == mujoco.mjtGeom.mjGEOM_FLEX:
                    g.rgba[:] = self.mj.flex_rgba[g.objid]
            self.mj.flex_rgba[[f for f, _, _ in self._flex]] = rgba
        return self._renderer.render()

    def _draw_rods(self, x: np.ndarray) -> None:
        """Each rod edge as a capsule of its nodes' radius (rods have no surface mesh)."""
        if self.model.nrodedge == 0:
            return
        edges = np.asarray(self.model.rod_edges)
        radius = np.asarray(self.model.rod_edge_radius)
        scn = self.scene
        for (a, b, _), r in zip(edges, radius):
            if scn.ngeom >= scn.maxgeom:
                return
            g = scn.geoms[scn.ngeom]
            mujoco.mjv_initGeom(g, mujoco.mjtGeom.mjGEOM_CAPSULE, np.zeros(3), np.zeros(3), np.eye(3).ravel(),
                                np.array([0.85, 0.45, 0.2, 1.0], np.float32))
            mujoco.mjv_connector(g, mujoco.mjtGeom.mjGEOM_CAPSULE, float(r), x[a].astype(float), x[b].astype(float))
            scn.ngeom += 1

    def close(self) -> None:
        """Release the renderer's OpenGL context."""
        r = getattr(self, "_renderer", None)
        if r is not None:
            r.close()
            self._renderer = None


def tile(frames: np.ndarray, cols: int | None = None, pad: int = 2) -> np.ndarray:
    """Frames (K, H, W, 3) laid out in a grid of ``cols`` columns (default: about square),
    ``pad`` black pixels between them: one (rows H + ..., cols W + ..., 3) uint8 image."""
    frames = np.asarray(frames)
    if frames.ndim != 4 or frames.shape[-1] != 3:
        raise ValueError(f"tile: expected frames of shape (K, H, W, 3), got {frames.shape}")
    k, h, w, _ = frames.shape
    cols = int(cols or math.ceil(math.sqrt(k)))
    if cols < 1:
        raise ValueError(f"tile: cols must be >= 1, got {cols}")
    rows = math.ceil(k / cols)
    out = np.zeros((rows * h + (rows - 1) * pad, cols * w + (cols - 1) * pad, 3), frames.dtype)
    for i in range(k):
        r, c = divmod(i, cols)
        out[r * (h + pad) : r * (h + pad) + h, c * (w + pad) : c * (w + pad) + w] = frames[i]
    return out


def check_render_mode(render_mode: str | None) -> str | None:
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(
            f"render_mode {render_mode!r} is not supported; supported: {list(RENDER_MODES)} or None"
        )
    return render_mode


def _check_size(name: str, v: Any) -> int:
    if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
        raise ValueError(f"{name} must be a positive integer (pixels), got {v!r}")
    return int(v)


def check_render_worlds(worlds: int | Iterable[int] | None, num_worlds: int) -> np.ndarray:
    """The world indices to render (default: the first world), checked against num_worlds."""
    if worlds is None:
        worlds = [0]
    elif isinstance(worlds, (int, np.integer)):
        worlds = [worlds]
    out = np.asarray(list(worlds))
    if out.ndim != 1 or out.size == 0 or not np.issubdtype(out.dtype, np.integer):
        raise ValueError(
            f"render_worlds: expected a world index or a non-empty list of them, got {worlds!r}"
        )
    bad = out[(out < 0) | (out >= num_worlds)]
    if bad.size:
        raise ValueError(f"render_worlds: {bad.tolist()} out of range [0, {num_worlds})")
    return out.astype(np.int64)


class EnvRenderer:
    """Rendering state of an env: checked arguments and a renderer made at the first frame."""

    def __init__(
        self,
        task,
        model: _core.Model,
        num_worlds: int,
        render_mode: str | None,
        render_worlds=None,
        width: int | None = None,
        height: int | None = None,
        camera: Camera | str | dict | None = None,
    ):
        self.render_mode = check_render_mode(render_mode)
        self.task, self.model, self.num_worlds = task, model, num_worlds
        self.worlds = check_render_worlds(render_worlds, num_worlds)
        self.width = _check_size("width", DEFAULT_SIZE[0] if width is None else width)
        self.height = _check_size("height", DEFAULT_SIZE[1] if height is None else height)
        if camera is not None and not isinstance(camera, (Camera, str, dict)):
            raise ValueError(
                f"camera: expected a Camera, a camera name, a dict or None, got {camera!r}"
            )
        self.camera = camera
        self._r: WorldRenderer | None = None

    def renderer(self) -> WorldRenderer:
        """The world renderer, created on first use."""
        if self._r is None:
            self._r = WorldRenderer(
                self.model,
                self.task.render_scene(self.model),
                width=self.width,
                height=self.height,
                camera=self.camera,
                frame_hook=self.task.render_frame,
            )
        return self._r

    def render(self, batch) -> np.ndarray:
        """(K, H, W, 3) uint8 frames of the render worlds."""
        r = self.renderer()
        return np.stack([r.render(batch, int(w)) for w in self.worlds])

    def close(self) -> None:
        """Release the renderer's OpenGL context."""
        if self._r is not None:
            self._r.close()
            self._r = None
