"""ncpgym: many robot worlds stepped in parallel by a non-smooth Newton NCP solver on
O(n) articulated-body dynamics, served to Python as Gymnasium vector environments."""

from importlib.metadata import PackageNotFoundError, version as _version

from . import _gl

# before anything imports mujoco, which reads MUJOCO_GL once (headless: egl or osmesa)
_gl.choose_backend()

from . import _core  # noqa: E402
from ._core import Batch, Builder, Model, Simulator, SolverOptions, State
from . import dynamics
from .models import load_model
from . import vector
from .tasks import TASK_IDS, register_all as _register_all

_register_all()


def make(id: str, **kwargs):
    """``gymnasium.make`` for an ncpgym task id (``"ncpgym/"`` may be omitted): one world,
    a Gymnasium ``Env``.

    Keyword arguments: ``num_threads`` (physics threads, default 1), ``render_mode``
    (``"rgb_array"`` or None), ``width``/``height`` (pixels), ``camera`` (an
    :class:`ncpgym.render.Camera`, a camera name or None), ``max_episode_steps``
    (Gymnasium's TimeLimit), and the task's own keyword arguments (see the task class's
    docstring, e.g. ``reward_weights``, ``extra_reward_terms``; unknown ones raise
    TypeError)."""
    import gymnasium

    return gymnasium.make(_full_id(id), **kwargs)


def make_vec(id: str, num_envs: int = 1, **kwargs):
    """``gymnasium.make_vec`` through the task's C++ batch (never Python sub-envs):
    ``num_envs`` worlds stepped together, a Gymnasium ``VectorEnv``.

    Keyword arguments: ``num_threads`` (physics threads; 0, the default, uses every core),
    ``autoreset_mode`` (``"next_step"``, Gymnasium's default, or ``"same_step"``),
    ``max_episode_steps`` (None: the task's), ``world_offset`` (seed numbering of a shard),
    ``render_mode`` (``"rgb_array"``), ``render_worlds`` (an index or a list: the worlds
    ``render()`` draws), ``width``/``height``, ``camera``, and the task's own keyword
    arguments (see the task class's docstring; unknown ones raise TypeError). The same
    seed gives bitwise-identical trajectories whatever ``num_envs`` and ``num_threads``."""
    import gymnasium

    return gymnasium.make_vec(_full_id(id), num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs)


def _full_id(id: str) -> str:
    full = id if id.startswith("ncpgym/") else "ncpgym/" + id
    if full not in TASK_IDS:
        raise ValueError(f"unknown ncpgym task {id!r}; registered: {', '.join(TASK_IDS)}")
    return full

try:
    __version__ = _version("ncpgym")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = _core.__version__

__all__ = [
    "Batch",
    "Builder",
    "Model",
    "Simulator",
    "SolverOptions",
    "State",
    "TASK_IDS",
    "dynamics",
    "load_model",
    "make",
    "make_vec",
    "vector",
    "__version__",
]
